// bitonic-sort topk: the k largest (or, with --smallest, smallest) keys of a key file, or of each
// row of a 2-D .npy file, sorted, and their indices within the row, by bitonic::topk_host: on the
// GPU when the keys and outputs fit it, else with std::partial_sort on the CPU (the same result:
// among equal keys the lower index first). Outputs keep the input's shape with k in place of the
// row length; each is written in full or not at all.
#include <cstdint>
#include <cstdio>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "args.hpp"
#include "bench/keys.hpp"
#include "bitonic/bitonic.hpp"
#include "commands.hpp"
#include "file_options.hpp"
#include "tools/common/array_file.hpp"

namespace bitonic::cli {

int topk_command(std::span<const std::string_view> args) {
  std::string in_path, out_path, indices_path;
  std::string_view key_type;
  std::string_view index_type = "u64";
  std::optional<std::uint64_t> k;
  order direction = order::descending;
  const option options[] = {
      {"--in", [&](std::string_view v) { in_path = v; }},
      {"--out", [&](std::string_view v) { out_path = v; }},
      {"--indices", [&](std::string_view v) { indices_path = v; }},
      {"--k", [&](std::string_view v) { k = parse_uint("--k", v, 0, max_file_keys); }},
      {"--type", [&](std::string_view v) { key_type = parse_key_type(v); }},
      {"--index", [&](std::string_view v) { index_type = parse_index_type(v); }},
      {"--smallest", [&](std::string_view) { direction = order::ascending; }, false},
  };
  parse_options(args, options);
  require(in_path, "--in");
  if (!k) throw usage_error("--k K is required");
  if (out_path.empty() && indices_path.empty()) {
    throw usage_error("--out FILE or --indices FILE (or both) is required");
  }
  if (!out_path.empty() && out_path == indices_path) {
    throw usage_error("--indices: " + indices_path + " is --out's file too");
  }

  const tools::array_file in = open_input(in_path, key_type, true);
  const std::uint64_t n = in.row_length ? *in.row_length : in.count;
  const std::uint64_t batch = in.row_length ? (n == 0 ? 0 : in.count / n) : 1;
  if (*k > n) {
    throw usage_error("--k " + std::to_string(*k) + ": " + in.path + " has rows of " +
                      std::to_string(n) + " keys");
  }
  if (index_type == "u32" && n > (std::uint64_t{1} << 32)) {
    throw usage_error(in.path + " has rows of " + std::to_string(n) +
                      " keys, more than uint32 indices can number: use --index u64");
  }
  // Before the long part: a bad destination fails at once.
  std::optional<tools::output_file> out, indices_out;
  if (!out_path.empty()) out.emplace(out_path);
  if (!indices_path.empty()) indices_out.emplace(indices_path);
  const std::optional<std::uint64_t> out_row_length =
      in.row_length ? std::optional<std::uint64_t>(*k) : std::nullopt;
  const bool gpu = bitonic::gpu_available();
  if (!gpu) std::fprintf(stderr, "no CUDA device: topk on the CPU (std::partial_sort)\n");
  tools::with_any_key_type(in.key_type, [&](auto key) {
    using Key = decltype(key);
    const auto run = [&](auto index) {
      using Index = decltype(index);
      const clock::time_point start = clock::now();
      const tools::key_array<Key> keys = tools::read_keys<Key>(in);
      const double read_s = seconds_since(start);
      const clock::time_point select_start = clock::now();
      std::vector<Key> top(out ? batch * *k : 0);
      std::vector<Index> positions(indices_out ? batch * *k : 0);
      bitonic::topk_host(keys.keys.get(), batch, n, *k, out ? top.data() : nullptr,
                         indices_out ? positions.data() : nullptr, {.direction = direction});
      const double select_s = seconds_since(select_start);
      const clock::time_point write_start = clock::now();
      if (out) {
        tools::write_keys<Key>(*out, tools::format_of(out_path), top, out_row_length);
        out->commit();
      }
      if (indices_out) {
        tools::write_keys<Index>(*indices_out, tools::format_of(indices_path), positions,
                                 out_row_length);
        indices_out->commit();
      }
      std::printf(
          "%s: the %llu %s of each of %llu rows of %llu %s keys in %.3f s on the %s (read %.3f s, "
          "write %.3f s)\n",
          in.path.c_str(), static_cast<unsigned long long>(*k),
          direction == order::descending ? "largest" : "smallest",
          static_cast<unsigned long long>(batch), static_cast<unsigned long long>(n),
          tools::type_name<Key>().data(), select_s, gpu ? "GPU" : "CPU", read_s,
          seconds_since(write_start));
    };
    with_index_type(index_type, run);
  });
  return 0;
}

}  // namespace bitonic::cli
