// How one algorithm is timed at one size. Device-resident ("internal") time: CUDA events around
// the sort alone, a warm-up first, the median of the runs, every run on a fresh copy of the
// unsorted input (sorting sorted data is another workload). Total time: from pageable host
// memory, H2D + sort + D2H under the host clock. CPU sorts: host clock, internal = total.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "bench/sorters.hpp"
#include "bench/timing.hpp"
#include "bitonic/cuda_helpers.hpp"

namespace bitonic::bench {

template <class Key>
struct measurement {
  double internal_ms = 0;
  double total_ms = 0;
  double best_total_ms = 0;  //!< the fastest of the total runs (the host sort's "best of")
  std::vector<Key> output;   //!< the sorted keys of the last run, on the host
};

//! The stream, timer and device buffers every GPU measurement of a run shares. The buffers grow
//! to the largest size measured and are reused for smaller ones.
template <class Key>
class gpu_workspace {
 public:
  //! Keeps `input` on the device as the pristine copy each internal run starts from.
  void load(const std::vector<Key>& input);

  //! Times `sorter` on the loaded input (`input` must be the same keys): `runs` internal runs
  //! after one warm-up, then `runs` total runs.
  measurement<Key> measure(gpu_sorter<Key>& sorter, const std::vector<Key>& input, unsigned runs);

 private:
  cuda_stream stream_;
  event_timer timer_;
  device_buffer<Key> pristine_, work_;
};

//! Times a host sort: `runs` runs, each on a fresh copy of `input` (the copy is not timed).
template <class Key>
measurement<Key> measure_cpu(const std::function<void(Key*, std::size_t)>& sort,
                             const std::vector<Key>& input, unsigned runs);

}  // namespace bitonic::bench
