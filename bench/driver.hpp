// The benchmark: every selected algorithm at every size, side by side in one process, checked
// against std::sort, printed as a table per size and written as CSV rows.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bench/algorithms.hpp"
#include "bench/keys.hpp"

namespace bitonic::bench {

//! The seed of the inputs unless told otherwise (the CLI's demo uses it too).
inline constexpr std::uint64_t default_seed = 20261121;

struct config {
  std::vector<std::string_view> key_types = {"i32"};  //!< as --type spells them
  unsigned log2_first = 20, log2_last = 27;
  std::vector<std::size_t> sizes;        //!< when not empty: these sizes instead of 2^first..last
  std::vector<algorithm_id> algorithms;  //!< in table order; empty means all
  unsigned runs = 5;                     //!< GPU runs per measurement (after a warm-up)
  unsigned cpu_runs = 1;                 //!< std::sort and qsort runs (slow at large sizes)
  std::uint64_t seed = default_seed;
  //! The keys' distribution (keys-only and records modes).
  tools::distribution dist = tools::distribution::uniform;
  std::string csv_path;  //!< empty: no CSV
  //! none: the keys-only benchmark; otherwise the records mode, whose rows are those of
  //! record_algorithms() (`algorithms` must be among them).
  value_mode values = value_mode::none;
};

//! Runs the benchmark on the current CUDA device; returns the exit code: 0, or 1 when an
//! algorithm failed or its result differed from std::sort (records: or was no permutation of the
//! records). Without a device it runs what runs on the CPU (std_sort, qsort, sort_host on the CPU
//! reference executor) and says on stderr what it skipped. Throws on failures outside a single
//! algorithm (nothing to run without a device, CSV not writable, an unknown key type).
int run(const config& cfg);

}  // namespace bitonic::bench
