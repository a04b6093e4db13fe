// The records mode's library sorter, host peer, timing and check.
#include "bench/records.hpp"

#include <algorithm>
#include <utility>

#include "bench/driver_parts.hpp"
#include "bench/keys.hpp"
#include "bitonic/order.hpp"

namespace bitonic::bench {
namespace {

template <class Key, class Value>
class bitonic_record_sorter final : public gpu_record_sorter<Key, Value> {
 public:
  bitonic_record_sorter(bool argsort, bool workspace, bool stable)
      : argsort_(argsort), workspace_(workspace), stable_(stable) {}

  void reserve(std::size_t n) override {
    if (!workspace_) return;
    const bitonic::options opt{.stable = stable_};
    workspace_memory_.reserve(argsort_ ? bitonic::argsort_workspace_bytes<Key, Value>(n, opt)
                                       : bitonic::pairs_workspace_bytes<Key, Value>(n, opt));
  }

  bool reads_values() const override { return !argsort_; }

  sorted_records<Key, Value> sort(Key* d_keys, Value* d_values, std::size_t n,
                                  cudaStream_t stream) override {
    bitonic::options opt{.stream = stream, .stable = stable_};
    if (workspace_) {
      opt.workspace = workspace_memory_.get();
      opt.workspace_bytes = workspace_memory_.size();
    }
    if (argsort_) {
      bitonic::argsort(static_cast<const Key*>(d_keys), d_values, n, opt);
      return {nullptr, d_values};
    }
    bitonic::sort_pairs(d_keys, d_values, n, opt);
    return {d_keys, d_values};
  }

 private:
  bool argsort_, workspace_, stable_;
  device_buffer<std::byte> workspace_memory_;  // grows to the largest workspace asked
};

}  // namespace

template <class Key, class Value>
std::unique_ptr<gpu_record_sorter<Key, Value>> make_bitonic_record_sorter(bool argsort,
                                                                          bool workspace,
                                                                          bool stable) {
  return std::make_unique<bitonic_record_sorter<Key, Value>>(argsort, workspace, stable);
}

template <class Key, class Value>
std::unique_ptr<gpu_record_sorter<Key, Value>> make_gpu_record_sorter(const algorithm_id& algo,
                                                                      value_mode mode) {
  if (algo.kind == algorithm_kind::variant) {
    return make_bitonic_record_sorter<Key, Value>(is_argsort(mode), algo.workspace, algo.stable);
  }
  if (algo.name == "cub_radix") return make_cub_radix_pairs_sorter<Key, Value>();
  if (algo.name == "cub_merge") return make_cub_merge_pairs_sorter<Key, Value>();
  if (algo.name == "thrust") return make_thrust_pairs_sorter<Key, Value>();
  return nullptr;
}

template <class Key, class Value>
void std_sort_records(Key* keys, Value* values, std::size_t n) {
  std::vector<std::pair<Key, Value>> records(n);
  for (std::size_t i = 0; i < n; ++i)
    records[i] = {keys[i], values[i]};
  std::stable_sort(records.begin(), records.end(), [](const auto& a, const auto& b) {
    return bitonic::ascending_less{}(a.first, b.first);
  });
  for (std::size_t i = 0; i < n; ++i)
    std::tie(keys[i], values[i]) = records[i];
}

template <class Key, class Value>
void gpu_record_workspace<Key, Value>::load(const std::vector<Key>& keys,
                                            const std::vector<Value>& values) {
  const std::size_t n = keys.size();
  pristine_keys_.reserve(n);
  keys_.reserve(n);
  pristine_values_.reserve(n);
  values_.reserve(n);
  BITONIC_CUDA_CHECK(cudaMemcpyAsync(pristine_keys_.get(), keys.data(), n * sizeof(Key),
                                     cudaMemcpyHostToDevice, stream_));
  BITONIC_CUDA_CHECK(cudaMemcpyAsync(pristine_values_.get(), values.data(), n * sizeof(Value),
                                     cudaMemcpyHostToDevice, stream_));
  BITONIC_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

template <class Key, class Value>
record_measurement<Key, Value> gpu_record_workspace<Key, Value>::measure(
    gpu_record_sorter<Key, Value>& sorter, const std::vector<Key>& keys,
    const std::vector<Value>& values, value_mode mode, unsigned runs) {
  const std::size_t n = keys.size();
  const std::size_t key_bytes = n * sizeof(Key), value_bytes = n * sizeof(Value);
  Key* const work_keys = keys_.get();
  Value* const work_values = values_.get();
  sorter.reserve(n);
  record_measurement<Key, Value> m;

  std::vector<double> samples;
  for (unsigned run = 0; run <= runs; ++run) {  // run 0 is the warm-up
    BITONIC_CUDA_CHECK(cudaMemcpyAsync(work_keys, pristine_keys_.get(), key_bytes,
                                       cudaMemcpyDeviceToDevice, stream_));
    BITONIC_CUDA_CHECK(cudaMemcpyAsync(work_values, pristine_values_.get(), value_bytes,
                                       cudaMemcpyDeviceToDevice, stream_));
    timer_.start(stream_);
    sorter.sort(work_keys, work_values, n, stream_);
    const double ms = timer_.stop(stream_);
    if (run > 0) samples.push_back(ms);
  }
  m.internal_ms = median(samples);

  // An argsort's user uploads keys and downloads indices; a peer's index sequence is set up on
  // the device (from the pristine copy), not uploaded.
  const bool argsort = is_argsort(mode);
  m.keys.assign(n, Key{});  // touch the pages here, not inside the timing
  m.values.assign(n, Value{});
  sorted_records<Key, Value> sorted;
  samples.clear();
  for (unsigned run = 0; run < runs; ++run) {
    const host_timer clock;
    BITONIC_CUDA_CHECK(
        cudaMemcpyAsync(work_keys, keys.data(), key_bytes, cudaMemcpyHostToDevice, stream_));
    if (!argsort) {
      BITONIC_CUDA_CHECK(cudaMemcpyAsync(work_values, values.data(), value_bytes,
                                         cudaMemcpyHostToDevice, stream_));
    } else if (sorter.reads_values()) {
      BITONIC_CUDA_CHECK(cudaMemcpyAsync(work_values, pristine_values_.get(), value_bytes,
                                         cudaMemcpyDeviceToDevice, stream_));
    }
    sorted = sorter.sort(work_keys, work_values, n, stream_);
    if (!argsort) {
      BITONIC_CUDA_CHECK(
          cudaMemcpyAsync(m.keys.data(), sorted.keys, key_bytes, cudaMemcpyDeviceToHost, stream_));
    }
    BITONIC_CUDA_CHECK(cudaMemcpyAsync(m.values.data(), sorted.values, value_bytes,
                                       cudaMemcpyDeviceToHost, stream_));
    BITONIC_CUDA_CHECK(cudaStreamSynchronize(stream_));
    samples.push_back(clock.elapsed_ms());
  }
  m.total_ms = median(samples);

  if (argsort) {  // the check needs the keys too: sorted by a peer, or as the argsort left them
    m.keys_in_place = sorted.keys == nullptr;
    BITONIC_CUDA_CHECK(cudaMemcpyAsync(m.keys.data(), m.keys_in_place ? work_keys : sorted.keys,
                                       key_bytes, cudaMemcpyDeviceToHost, stream_));
    BITONIC_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }
  return m;
}

template <class Key, class Value>
record_measurement<Key, Value> measure_cpu_records(const std::vector<Key>& keys,
                                                   const std::vector<Value>& values,
                                                   unsigned runs) {
  record_measurement<Key, Value> m;
  std::vector<double> samples;
  for (unsigned run = 0; run < runs; ++run) {
    m.keys = keys;
    m.values = values;
    const host_timer clock;
    std_sort_records(m.keys.data(), m.values.data(), keys.size());
    samples.push_back(clock.elapsed_ms());
  }
  m.internal_ms = m.total_ms = median(samples);
  return m;
}

template <class Key, class Value>
std::optional<record_mismatch> first_record_mismatch(record_measurement<Key, Value>& m,
                                                     const std::vector<Key>& input,
                                                     const std::vector<Key>& reference) {
  const std::size_t n = input.size();
  if (m.keys.size() != n || m.values.size() != n) {
    return record_mismatch{std::min({n, m.keys.size(), m.values.size()}),
                           "the result holds " + std::to_string(m.keys.size()) + " keys and " +
                               std::to_string(m.values.size()) + " values, not " +
                               std::to_string(n)};
  }
  if (m.keys_in_place) {
    for (std::size_t i = 0; i < n; ++i) {
      if (tools::key_bits(m.keys[i]) != tools::key_bits(input[i])) {
        return record_mismatch{i, "the argsort changed its input key there from " +
                                      key_text(input[i]) + " to " + key_text(m.keys[i])};
      }
    }
  }
  // n values, each an index below n and none twice: a permutation of the indices.
  std::vector<std::uint8_t> seen(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t v = m.values[i];
    if (v >= n) {
      return record_mismatch{i, "value " + std::to_string(v) + " is no index of the input"};
    }
    if (seen[v]) {
      return record_mismatch{i, "value " + std::to_string(v) + " appears a second time"};
    }
    seen[v] = 1;
    if (m.keys_in_place) {
      m.keys[i] = input[v];
    } else if (tools::key_bits(m.keys[i]) != tools::key_bits(input[v])) {
      return record_mismatch{i, "key " + key_text(m.keys[i]) + " is paired with value " +
                                    std::to_string(v) + ", which came with key " +
                                    key_text(input[v])};
    }
  }
  const std::optional<std::size_t> at = tools::first_mismatch(m.keys, reference);
  if (!at) return std::nullopt;
  const bitonic::ascending_less less;
  if (*at < n && (less(m.keys[*at], reference[*at]) || less(reference[*at], m.keys[*at]))) {
    return record_mismatch{*at, "keys out of order: got " + key_text(m.keys[*at]) +
                                    ", std::sort has " + key_text(reference[*at])};
  }
  return record_mismatch{*at, "the result holds other keys than the input (lost or altered keys)"};
}

#define INSTANTIATE_RECORDS(Key, Value)                                                           \
  template std::unique_ptr<gpu_record_sorter<Key, Value>> make_bitonic_record_sorter<Key, Value>( \
      bool, bool, bool);                                                                          \
  template std::unique_ptr<gpu_record_sorter<Key, Value>> make_gpu_record_sorter<Key, Value>(     \
      const algorithm_id&, value_mode);                                                           \
  template void std_sort_records<Key, Value>(Key*, Value*, std::size_t);                          \
  template class gpu_record_workspace<Key, Value>;                                                \
  template record_measurement<Key, Value> measure_cpu_records<Key, Value>(                        \
      const std::vector<Key>&, const std::vector<Value>&, unsigned);                              \
  template std::optional<record_mismatch> first_record_mismatch<Key, Value>(                      \
      record_measurement<Key, Value>&, const std::vector<Key>&, const std::vector<Key>&);
#define INSTANTIATE(Key)                  \
  INSTANTIATE_RECORDS(Key, std::uint32_t) \
  INSTANTIATE_RECORDS(Key, std::uint64_t)
BITONIC_FOR_EACH_KEY(INSTANTIATE)

}  // namespace bitonic::bench
