#include "bench/measure.hpp"

#include <algorithm>

namespace bitonic::bench {

template <class Key>
void gpu_workspace<Key>::load(const std::vector<Key>& input) {
  pristine_.reserve(input.size());
  work_.reserve(input.size());
  BITONIC_CUDA_CHECK(cudaMemcpyAsync(pristine_.get(), input.data(), input.size() * sizeof(Key),
                                     cudaMemcpyHostToDevice, stream_));
  BITONIC_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

template <class Key>
measurement<Key> gpu_workspace<Key>::measure(gpu_sorter<Key>& sorter, const std::vector<Key>& input,
                                             unsigned runs) {
  const std::size_t n = input.size();
  const std::size_t bytes = n * sizeof(Key);
  Key* const work = work_.get();
  sorter.reserve(n);
  measurement<Key> m;

  std::vector<double> samples;
  for (unsigned run = 0; run <= runs; ++run) {  // run 0 is the warm-up
    BITONIC_CUDA_CHECK(
        cudaMemcpyAsync(work, pristine_.get(), bytes, cudaMemcpyDeviceToDevice, stream_));
    timer_.start(stream_);
    sorter.sort(work, n, stream_);
    const double ms = timer_.stop(stream_);
    if (run > 0) samples.push_back(ms);
  }
  m.internal_ms = median(samples);

  m.output.assign(n, Key{});  // touch the pages here, not inside the timing
  samples.clear();
  for (unsigned run = 0; run < runs; ++run) {
    const host_timer clock;
    BITONIC_CUDA_CHECK(cudaMemcpyAsync(work, input.data(), bytes, cudaMemcpyHostToDevice, stream_));
    const Key* sorted = sorter.sort(work, n, stream_);
    BITONIC_CUDA_CHECK(
        cudaMemcpyAsync(m.output.data(), sorted, bytes, cudaMemcpyDeviceToHost, stream_));
    BITONIC_CUDA_CHECK(cudaStreamSynchronize(stream_));
    samples.push_back(clock.elapsed_ms());
  }
  m.total_ms = median(samples);
  m.best_total_ms = samples.empty() ? 0 : *std::min_element(samples.begin(), samples.end());
  return m;
}

template <class Key>
measurement<Key> measure_cpu(const std::function<void(Key*, std::size_t)>& sort,
                             const std::vector<Key>& input, unsigned runs) {
  measurement<Key> m;
  std::vector<double> samples;
  for (unsigned run = 0; run < runs; ++run) {
    m.output = input;
    const host_timer clock;
    sort(m.output.data(), m.output.size());
    samples.push_back(clock.elapsed_ms());
  }
  m.internal_ms = m.total_ms = median(samples);
  m.best_total_ms = samples.empty() ? 0 : *std::min_element(samples.begin(), samples.end());
  return m;
}

#define INSTANTIATE(Key)                                                                    \
  template class gpu_workspace<Key>;                                                        \
  template measurement<Key> measure_cpu<Key>(const std::function<void(Key*, std::size_t)>&, \
                                             const std::vector<Key>&, unsigned);
BITONIC_FOR_EACH_KEY(INSTANTIATE)

}  // namespace bitonic::bench
