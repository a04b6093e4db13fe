// Pieces the keys-only driver (driver.cpp) and the records driver (records_driver.cpp) share:
// progress lines, key text for mismatch messages, host memory for the checks, the no-GPU filter.
#pragma once

#include <cstddef>
#include <cstdio>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <unistd.h>  // sysconf

#include "bench/algorithms.hpp"
#include "bench/driver.hpp"
#include "bench/report.hpp"

namespace bitonic::bench {

//! A key as a mismatch message shows it (floating point: all the digits that tell keys apart).
template <class Key>
std::string key_text(Key k) {
  if constexpr (std::is_floating_point_v<Key>) {
    char text[64];
    std::snprintf(text, sizeof text, "%.17g", double(k));
    return text;
  } else {
    return std::to_string(k);
  }
}

//! Host memory free now (not counting the page cache), in bytes.
inline std::size_t free_host_memory() {
  return std::size_t(sysconf(_SC_AVPHYS_PAGES)) * std::size_t(sysconf(_SC_PAGE_SIZE));
}

//! "bench i32 n=1024: ..." on stderr, at once.
template <class... Args>
void progress(std::string_view where, const char* fmt, Args... args) {
  std::fprintf(stderr, "bench %.*s: ", int(where.size()), where.data());
  std::fprintf(stderr, fmt, args...);
  std::fflush(stderr);
}

//! Without a GPU: keeps the algorithms that run on the CPU (std_sort, qsort, and sort_host on the
//! CPU reference executor) and says in one line what was skipped; throws if none is left.
void keep_cpu_algorithms(std::vector<algorithm_id>& algorithms);

//! The records mode (cfg.values is not none) for one key type at every size; returns how many
//! sizes had an algorithm that failed or a result that did not check.
template <class Key>
std::size_t run_records(const config& cfg, std::span<const std::size_t> sizes,
                        std::string_view device, std::string_view date, csv_writer* csv);

}  // namespace bitonic::bench
