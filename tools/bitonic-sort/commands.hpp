// The subcommands of bitonic-sort: each takes the arguments after its name and returns the exit
// code; usage errors are thrown as cli::usage_error, failures as exceptions (main maps them).
#pragma once

#include <span>
#include <string_view>

namespace bitonic::cli {

//! The largest --log2n: 2^30 keys, the most CUB's int item count takes with room to spare.
inline constexpr unsigned max_log2n = 30;

int demo_command(std::span<const std::string_view> args);
int bench_command(std::span<const std::string_view> args);

}  // namespace bitonic::cli
