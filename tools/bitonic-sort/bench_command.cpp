// bitonic-sort bench: options → bench::config; the benchmark itself lives in bench/.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "args.hpp"
#include "bench/algorithms.hpp"
#include "bench/batched.hpp"
#include "bench/driver.hpp"
#include "bench/keys.hpp"
#include "bench/topk.hpp"
#include "commands.hpp"
#include "file_options.hpp"

namespace bitonic::cli {

int bench_command(std::span<const std::string_view> args) {
  bench::config cfg;
  bench::batched_config batched;
  bench::topk_config topk;
  bool topk_mode = false;
  std::vector<std::string_view> algos, types;
  bool host = false;
  const auto count = [](std::string_view name, unsigned& target) {
    return [name, &target](std::string_view v) { target = unsigned(parse_uint(name, v, 1, 1000)); };
  };
  const option options[] = {
      {"--log2n",
       [&](std::string_view v) {
         const log2_range r = parse_log2_range("--log2n", v, max_log2n);
         cfg.log2_first = r.first;
         cfg.log2_last = r.last;
       }},
      {"--n",
       [&](std::string_view v) {
         for (std::string_view n : split_list("--n", v)) {
           cfg.sizes.push_back(std::size_t(parse_uint("--n", n, 1, std::size_t{1} << max_log2n)));
         }
       }},
      {"--algo",
       [&](std::string_view v) {
         // Checked once --values is known: the records mode has rows of its own.
         for (std::string_view name : split_list("--algo", v))
           algos.push_back(name);
       },
       true, true},
      {"--values",
       [&](std::string_view v) {
         const auto mode = bench::parse_value_mode(v);
         if (!mode) {
           throw usage_error("--values: '" + std::string(v) +
                             "' is not u32, u64, argsort, argsort64 or none");
         }
         cfg.values = *mode;
       }},
      {"--type",
       [&](std::string_view v) {
         for (std::string_view name : split_list("--type", v)) {
           if (!tools::with_key_type(name, [](auto) {})) {
             throw usage_error("--type: unknown key type '" + std::string(name) + "'");
           }
           if (std::find(types.begin(), types.end(), name) == types.end()) types.push_back(name);
         }
       }},
      {"--host",
       [&](std::string_view) {
         host = true;
         algos.insert(algos.end(), {"sort_host", "std_sort"});
       },
       false},
      {"--dist", [&](std::string_view v) { cfg.dist = parse_distribution_name(v); }},
      {"--runs", count("--runs", cfg.runs)},
      {"--cpu-runs", count("--cpu-runs", cfg.cpu_runs)},
      {"--seed", [&](std::string_view v) { cfg.seed = parse_uint("--seed", v, 0, UINT64_MAX); }},
      {"--batched",
       [&](std::string_view v) {
         for (std::string_view size : split_list("--batched", v)) {
           batched.array_sizes.push_back(
               std::size_t(parse_uint("--batched", size, 1, std::size_t{1} << max_log2n)));
         }
       }},
      {"--topk",
       [&](std::string_view v) {
         topk_mode = true;
         if (v == "default") {
           const auto shapes = bench::default_topk_shapes();
           topk.shapes.insert(topk.shapes.end(), shapes.begin(), shapes.end());
           return;
         }
         for (std::string_view shape : split_list("--topk", v)) {
           try {
             topk.shapes.push_back(bench::parse_topk_shape(shape));
           } catch (const std::invalid_argument& e) {
             throw usage_error(std::string("--topk: ") + e.what());
           }
         }
       }},
      {"--total",
       [&](std::string_view v) {
         batched.total_keys = std::size_t(parse_uint("--total", v, 1, std::size_t{1} << max_log2n));
       }},
      {"--csv",
       [&](std::string_view v) {
         if (v.empty()) throw usage_error("--csv needs a file name");
         cfg.csv_path = std::string(v);
       }},
  };
  parse_options(args, options);
  if (!types.empty()) cfg.key_types = types;
  const bool uniform = cfg.dist == tools::distribution::uniform;
  if (topk_mode) {  // the top-k mode: its own rows and table
    if (!algos.empty() || host || cfg.values != bench::value_mode::none ||
        !batched.array_sizes.empty() || !uniform) {
      throw usage_error(
          "--topk has rows of its own: it takes no --algo, --host, --values, --batched or "
          "--dist");
    }
    if (!types.empty()) topk.key_types = types;
    topk.runs = cfg.runs;
    topk.seed = cfg.seed;
    topk.csv_path = cfg.csv_path;
    return bench::run_topk(topk);
  }
  if (!batched.array_sizes.empty()) {  // the batched mode: its own rows, peers and table
    if (host || cfg.values != bench::value_mode::none || !uniform) {
      throw usage_error("--batched has rows of its own: it takes no --host, --values or --dist");
    }
    const auto& rows = bench::batched_algorithms();
    for (std::string_view name : algos) {
      if (std::find(rows.begin(), rows.end(), name) == rows.end()) {
        std::string known;
        for (std::string_view row : rows)
          bench::append_name(known, row);
        throw usage_error("--algo: '" + std::string(name) + "' is not a row of --batched (" +
                          known + ")");
      }
    }
    batched.algorithms = algos;
    batched.key_types = cfg.key_types;
    batched.runs = cfg.runs;
    batched.seed = cfg.seed;
    batched.csv_path = cfg.csv_path;
    return bench::run_batched(batched);
  }
  const bool records = cfg.values != bench::value_mode::none;
  if (records && host) throw usage_error("--host sorts keys alone; it does not take --values");
  const auto rows = records ? bench::record_algorithms() : bench::all_algorithms();
  for (std::string_view name : algos) {
    const bool known = records ? bench::find_record_algorithm(name).has_value()
                               : bench::find_algorithm(name).has_value();
    if (!known) {
      throw usage_error("--algo: unknown algorithm '" + std::string(name) + "'" +
                        (records ? " with --values" : ""));
    }
  }
  for (const bench::algorithm_id& a : rows) {  // table order, no repeats
    if (std::find(algos.begin(), algos.end(), a.name) != algos.end()) cfg.algorithms.push_back(a);
  }
  return bench::run(cfg);  // without a GPU: what runs on the CPU
}

}  // namespace bitonic::cli
