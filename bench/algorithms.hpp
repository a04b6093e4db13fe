// The algorithms the benchmark knows by name: the library's variants and the peers it is measured
// against. Names are those of the CSV and of --algo.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "bitonic/bitonic.hpp"

namespace bitonic::bench {

enum class algorithm_kind {
  variant,    //!< bitonic::sort with one bitonic::algorithm
  gpu_peer,   //!< CUB radix, CUB merge, thrust::sort
  cpu_peer,   //!< std::sort, qsort on the host
  host_sort,  //!< bitonic::sort_host: pageable host keys in and out, timed on the host clock
};

struct algorithm_id {
  std::string_view name;
  algorithm_kind kind;
  bitonic::algorithm variant = bitonic::algorithm::automatic;  //!< for kind == variant
  //! For kind == variant: the sort gets a workspace allocated once before the timings, as CUB's
  //! sorts get their temporary storage; otherwise it is the default call (scratch, where needed,
  //! from the library's own pool).
  bool workspace = false;

  friend bool operator==(const algorithm_id&, const algorithm_id&) = default;
};

//! The library's variants, automatic with a workspace, then the peers, in the order tables list
//! them.
std::span<const algorithm_id> all_algorithms();

//! The library's variants alone (what the demo runs).
std::span<const algorithm_id> variants();

//! The algorithm called `name`, if any.
std::optional<algorithm_id> find_algorithm(std::string_view name);

}  // namespace bitonic::bench
