// bitonic-sort demo: every variant on the same random int32 keys, each checked against std::sort.
// Without a GPU the CPU reference executor runs the same plans, so the demo works anywhere.
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "args.hpp"
#include "bench/algorithms.hpp"
#include "bench/driver.hpp"
#include "bench/keys.hpp"
#include "bench/measure.hpp"
#include "bench/report.hpp"
#include "bench/sorters.hpp"
#include "bitonic/cuda_helpers.hpp"
#include "commands.hpp"

namespace bitonic::cli {

int demo_command(std::span<const std::string_view> args) {
  unsigned log2n = 24;
  std::uint64_t seed = bench::default_seed;
  const option options[] = {
      {"--log2n",
       [&](std::string_view v) { log2n = unsigned(parse_uint("--log2n", v, 0, max_log2n)); }},
      {"--seed", [&](std::string_view v) { seed = parse_uint("--seed", v, 0, UINT64_MAX); }},
  };
  parse_options(args, options);

  using Key = std::int32_t;
  const std::size_t n = std::size_t{1} << log2n;
  const bool gpu = bitonic::gpu_available();
  std::printf("bitonic-sort demo: %zu random int32 keys (2^%u, seed %llu) on %s\n", n, log2n,
              static_cast<unsigned long long>(seed),
              gpu ? bitonic::current_device_name().c_str() : "the CPU");
  if (!gpu) std::printf("no CUDA device: running the CPU reference executor of the same plans\n");
  std::fflush(stdout);

  const std::vector<Key> input = tools::generate<Key>(n, tools::distribution::uniform, seed);
  const std::vector<Key> expected = tools::reference_sort(input, order::ascending);
  std::optional<bench::gpu_workspace<Key>> workspace;
  if (gpu) workspace.emplace().load(input);

  struct row {
    std::string label;
    double ms;
    std::optional<std::size_t> mismatch;
  };
  std::vector<row> rows;
  for (const bench::algorithm_id& v : bench::variants()) {
    std::string label(v.name);
    if (v.variant == algorithm::automatic) {
      label += " (" + std::string(to_string(resolve_automatic(n, sizeof(Key)))) + ")";
    }
    std::fprintf(stderr, "demo: %s ...\n", label.c_str());
    const bench::measurement<Key> m =
        gpu ? workspace->measure(*bench::make_bitonic_sorter<Key>(v.variant), input, 1)
            : bench::measure_cpu<Key>(
                  [&](Key* keys, std::size_t count) {
                    sort_on_cpu(keys, count, {order::ascending, v.variant});
                  },
                  input, 1);
    rows.push_back({label, m.internal_ms, tools::first_mismatch(m.output, expected)});
  }

  std::printf("\n%-26s %10s %10s  %s\n", "variant", "time ms", "keys/s", "check");
  bool all_ok = true;
  for (const row& r : rows) {
    const std::string check =
        r.mismatch ? "FAILED at index " + std::to_string(*r.mismatch) : std::string("ok");
    all_ok = all_ok && !r.mismatch;
    std::printf("%-26s %10.3f %10s  %s\n", r.label.c_str(), r.ms,
                r.ms > 0 ? bench::format_rate(double(n) / (r.ms / 1e3)).c_str() : "-",
                check.c_str());
  }
  std::printf("\ntime: %s\n", gpu ? "the sort alone on the device (CUDA events, after a warm-up)"
                                  : "the CPU executor (host clock, all host threads)");
  if (!all_ok) std::fprintf(stderr, "demo FAILED: a variant's result differs from std::sort\n");
  return all_ok ? 0 : 1;
}

}  // namespace bitonic::cli
