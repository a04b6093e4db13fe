#include "bench/algorithms.hpp"

#include <vector>

namespace bitonic::bench {
namespace {

// The library offers no list of its algorithms: add new variants here (automatic last, since it
// repeats one of the others).
constexpr bitonic::algorithm library_variants[] = {
    bitonic::algorithm::global_step,  bitonic::algorithm::fused_steps,
    bitonic::algorithm::shared_tiles, bitonic::algorithm::block_merge,
    bitonic::algorithm::optimized,    bitonic::algorithm::automatic};

const std::vector<algorithm_id>& catalogue() {
  static const std::vector<algorithm_id> all = [] {
    std::vector<algorithm_id> list;
    for (bitonic::algorithm a : library_variants) {
      list.push_back({bitonic::to_string(a), algorithm_kind::variant, a});
    }
    list.push_back(
        {"automatic_workspace", algorithm_kind::variant, bitonic::algorithm::automatic, true});
    list.push_back({"automatic_out_of_place", algorithm_kind::variant,
                    bitonic::algorithm::automatic, false, false, true});
    list.push_back({"cub_radix", algorithm_kind::gpu_peer});
    list.push_back({"cub_merge", algorithm_kind::gpu_peer});
    list.push_back({"thrust_cmp", algorithm_kind::gpu_peer});
    list.push_back({"std_sort", algorithm_kind::cpu_peer});
    list.push_back({"qsort", algorithm_kind::cpu_peer});
    list.push_back({"sort_host", algorithm_kind::host_sort});
    return list;
  }();
  return all;
}

const std::vector<algorithm_id>& record_catalogue() {
  static const std::vector<algorithm_id> all = {
      {"automatic", algorithm_kind::variant, bitonic::algorithm::automatic},
      {"automatic_workspace", algorithm_kind::variant, bitonic::algorithm::automatic, true},
      {"automatic_stable", algorithm_kind::variant, bitonic::algorithm::automatic, false, true},
      {"cub_radix", algorithm_kind::gpu_peer},
      {"cub_merge", algorithm_kind::gpu_peer},
      {"thrust", algorithm_kind::gpu_peer},
      {"std_sort", algorithm_kind::cpu_peer},
  };
  return all;
}

std::optional<algorithm_id> find_in(std::span<const algorithm_id> list, std::string_view name) {
  for (const algorithm_id& a : list) {
    if (a.name == name) return a;
  }
  return std::nullopt;
}

}  // namespace

std::span<const algorithm_id> all_algorithms() {
  return catalogue();
}

std::span<const algorithm_id> variants() {
  return all_algorithms().first(std::size(library_variants));
}

std::optional<algorithm_id> find_algorithm(std::string_view name) {
  return find_in(all_algorithms(), name);
}

std::optional<value_mode> parse_value_mode(std::string_view name) {
  for (value_mode mode : {value_mode::none, value_mode::u32, value_mode::u64, value_mode::argsort,
                          value_mode::argsort64}) {
    if (to_string(mode) == name) return mode;
  }
  return std::nullopt;
}

std::span<const algorithm_id> record_algorithms() {
  return record_catalogue();
}

std::optional<algorithm_id> find_record_algorithm(std::string_view name) {
  return find_in(record_algorithms(), name);
}

void append_name(std::string& names, std::string_view name) {
  if (!names.empty()) names += ' ';
  names += name;
}

}  // namespace bitonic::bench
