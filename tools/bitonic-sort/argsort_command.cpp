// bitonic-sort argsort: the positions of a key file's keys in sorted order, written as uint32 or
// uint64 indices (.npy or raw), by bitonic::argsort_host: on the GPU when the keys and indices fit
// it, else with std::stable_sort on the CPU, which gives the same indices (both are stable).
#include <cstdint>
#include <cstdio>
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
namespace {

//! The most keys whose positions fit in a uint32 index (bitonic::argsort's limit too).
constexpr std::uint64_t max_u32_index_keys = std::uint64_t{1} << 32;

}  // namespace

int argsort_command(std::span<const std::string_view> args) {
  std::string in_path, out_path;
  std::string_view key_type;
  std::string_view index_type = "u32";
  order direction = order::ascending;
  const option options[] = {
      {"--in", [&](std::string_view v) { in_path = v; }},
      {"--out", [&](std::string_view v) { out_path = v; }},
      {"--type", [&](std::string_view v) { key_type = parse_key_type(v); }},
      {"--index", [&](std::string_view v) { index_type = parse_index_type(v); }},
      {"--desc", [&](std::string_view) { direction = order::descending; }, false},
  };
  parse_options(args, options);
  require(in_path, "--in");
  require(out_path, "--out");

  const tools::array_file in = open_input(in_path, key_type);
  if (index_type == "u32" && in.count > max_u32_index_keys) {
    throw usage_error(in.path + " holds " + std::to_string(in.count) +
                      " keys, more than uint32 indices can number: use --index u64");
  }
  tools::output_file out(out_path);  // before the long part: a bad destination fails at once
  const bool gpu = bitonic::gpu_available();
  if (!gpu) std::fprintf(stderr, "no CUDA device: argsort on the CPU (std::stable_sort)\n");
  tools::with_any_key_type(in.key_type, [&](auto key) {
    using Key = decltype(key);
    const auto run = [&](auto index) {
      using Index = decltype(index);
      const tools::file_format out_format = tools::format_of(out_path);
      out.reserve(tools::array_file_size<Index>(out_format, in.count));
      const clock::time_point start = clock::now();
      const tools::key_array<Key> keys = tools::read_keys<Key>(in);
      const double read_s = seconds_since(start);
      const clock::time_point sort_start = clock::now();
      std::vector<Index> indices(keys.count);
      // Stable, as the file commands promise: one order for a file, whatever the size.
      bitonic::argsort_host(keys.keys.get(), indices.data(), keys.count,
                            {.direction = direction, .stable = true});
      const double sort_s = seconds_since(sort_start);
      const clock::time_point write_start = clock::now();
      tools::write_keys<Index>(out, out_format, indices);
      out.commit();
      std::printf(
          "%s -> %s: %zu %s keys argsorted %s into %s indices in %.3f s on the %s (read %.3f s, "
          "write %.3f s)\n",
          in.path.c_str(), out.path().c_str(), keys.count, tools::type_name<Key>().data(),
          to_string(direction).data(), tools::type_name<Index>().data(), sort_s,
          gpu ? "GPU" : "CPU", read_s, seconds_since(write_start));
    };
    with_index_type(index_type, run);
  });
  return 0;
}

}  // namespace bitonic::cli
