// The records mode of the benchmark (bench --values): sorts of (key, value) pairs and argsorts,
// their timing and their check. Every record's value is its input index (as the Value type), so
// that a result can be checked as a permutation: the value at position i names the input record
// whose key must sit at i. Each GPU peer lives in its own .cu file (peer_*_pairs.cu); all are
// instantiated for the six key types with uint32 and uint64 values only, to bound their compile
// time.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bench/algorithms.hpp"
#include "bench/timing.hpp"
#include "bitonic/bitonic.hpp"
#include "bitonic/cuda_helpers.hpp"

namespace bitonic::bench {

//! Where a record sort leaves its result on the device.
template <class Key, class Value>
struct sorted_records {
  //! The sorted keys; null when the sort left the keys as they were (the library's argsort): the
  //! sorted keys are then the input's keys in the order of the values.
  const Key* keys = nullptr;
  const Value* values = nullptr;
};

//! An ascending sort of device-resident records: d_keys[i] and d_values[i] are one record.
template <class Key, class Value>
class gpu_record_sorter {
 public:
  virtual ~gpu_record_sorter() = default;
  //! Allocates what sort() needs for up to `n` records (temporary storage): never inside a timing.
  virtual void reserve(std::size_t n) { (void)n; }
  //! False for an argsort that writes indices into d_values without reading them, so that its
  //! total time uploads no values.
  virtual bool reads_values() const { return true; }
  //! Enqueues the sort of the n records on `stream` and returns where the result will be: the
  //! given buffers, or buffers of the sorter's own for sorts that ping-pong between two.
  virtual sorted_records<Key, Value> sort(Key* d_keys, Value* d_values, std::size_t n,
                                          cudaStream_t stream) = 0;
};

//! bitonic::sort_pairs, or with `argsort` bitonic::argsort writing Value indices (Value must then
//! be uint32_t or uint64_t); with `workspace`, on a workspace that reserve() allocates; with
//! `stable`, options.stable.
template <class Key, class Value>
std::unique_ptr<gpu_record_sorter<Key, Value>> make_bitonic_record_sorter(bool argsort,
                                                                          bool workspace,
                                                                          bool stable);
template <class Key, class Value>
std::unique_ptr<gpu_record_sorter<Key, Value>> make_cub_radix_pairs_sorter();
template <class Key, class Value>
std::unique_ptr<gpu_record_sorter<Key, Value>> make_cub_merge_pairs_sorter();
template <class Key, class Value>
std::unique_ptr<gpu_record_sorter<Key, Value>> make_thrust_pairs_sorter();

//! The GPU sorter of a records-mode row (null for std_sort, which runs on the host). The peers
//! sort (key, index) pairs in argsort mode too: the index sequence is their input, prepared
//! outside the timing like the keys.
template <class Key, class Value>
std::unique_ptr<gpu_record_sorter<Key, Value>> make_gpu_record_sorter(const algorithm_id& algo,
                                                                      value_mode mode);

//! std::stable_sort of the records on the host by key, ascending in the library's order.
template <class Key, class Value>
void std_sort_records(Key* keys, Value* values, std::size_t n);

template <class Key, class Value>
struct record_measurement {
  double internal_ms = 0;
  double total_ms = 0;
  //! The keys of the last run: sorted, or for keys_in_place the key buffer as the sort left it.
  std::vector<Key> keys;
  std::vector<Value> values;   //!< the values (argsort: indices) of the last run
  bool keys_in_place = false;  //!< an argsort that must leave the keys untouched
};

//! The stream, timer and device buffers every GPU measurement of a records run shares (see
//! gpu_workspace in measure.hpp: the same rules, for two arrays).
template <class Key, class Value>
class gpu_record_workspace {
 public:
  //! Keeps the records on the device as the pristine copy each internal run starts from.
  void load(const std::vector<Key>& keys, const std::vector<Value>& values);

  //! Times `sorter` on the loaded records (`keys` and `values` must be the same): `runs` internal
  //! runs after one warm-up, then `runs` total runs. Total time: keys from pageable host memory,
  //! sorted, and back; values too, except in argsort mode, where what comes back is the indices
  //! alone and a peer's index sequence is copied from the device's pristine one.
  record_measurement<Key, Value> measure(gpu_record_sorter<Key, Value>& sorter,
                                         const std::vector<Key>& keys,
                                         const std::vector<Value>& values, value_mode mode,
                                         unsigned runs);

 private:
  cuda_stream stream_;
  event_timer timer_;
  device_buffer<Key> pristine_keys_, keys_;
  device_buffer<Value> pristine_values_, values_;
};

//! Times std_sort_records: `runs` runs, each on fresh copies of the records (not timed).
template <class Key, class Value>
record_measurement<Key, Value> measure_cpu_records(const std::vector<Key>& keys,
                                                   const std::vector<Value>& values, unsigned runs);

//! Why a record sort's result is wrong: the position and what is wrong there.
struct record_mismatch {
  std::size_t at = 0;
  std::string detail;
};

//! Checks the result `m` of sorting the records (input[i], i): the values are a permutation of the
//! indices, the value v at position i came with the key at i (bit for bit), an argsort left the
//! keys untouched, and the keys are in the order of `reference` (std::sort of the input; the
//! checker of the keys-only benchmark). Returns nullopt when all holds. For keys_in_place, fills
//! m.keys with the sorted keys (the input in the order of the indices).
template <class Key, class Value>
std::optional<record_mismatch> first_record_mismatch(record_measurement<Key, Value>& m,
                                                     const std::vector<Key>& input,
                                                     const std::vector<Key>& reference);

}  // namespace bitonic::bench
