// The subcommands of bitonic-sort: each takes the arguments after its name and returns the exit
// code; usage errors are thrown as cli::usage_error, failures as exceptions (main maps them).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace bitonic::cli {

//! The largest --log2n: 2^30 keys, the most CUB's int item count takes with room to spare.
inline constexpr unsigned max_log2n = 30;

//! The largest gen --n: 2^40 keys, far beyond host memory, so that memory is what limits it.
inline constexpr std::uint64_t max_file_keys = std::uint64_t{1} << 40;

int demo_command(std::span<const std::string_view> args);
int bench_command(std::span<const std::string_view> args);
int sort_command(std::span<const std::string_view> args);
int gen_command(std::span<const std::string_view> args);
int verify_command(std::span<const std::string_view> args);
int argsort_command(std::span<const std::string_view> args);
int topk_command(std::span<const std::string_view> args);

}  // namespace bitonic::cli
