// The batched mode of the benchmark: for each key type and array size, bitonic::sort_batched (the
// default call), bitonic::sort_segments (the arrays as segments), CUB's two segmented sorts on
// the same arrays, and the batched record forms (argsort_batched with the sorted keys and 64-bit
// indices, sort_batched_pairs with 4-byte values), timed as the keys-only mode
// times (CUDA events around the sort alone, a warm-up, the median of the runs, each run on a fresh
// copy of the unsorted keys), each result checked against std::sort of every array.
#include "bench/batched.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "bench/keys.hpp"
#include "bench/report.hpp"
#include "bench/timing.hpp"
#include "bitonic/bitonic.hpp"
#include "bitonic/cuda_helpers.hpp"

namespace bitonic::bench {
namespace {

//! The library's batched sort as a peer: the call a user makes, default options.
template <class Key>
class bitonic_batched final : public segmented_sorter<Key> {
 public:
  void reserve(std::size_t, std::size_t) override {}
  const Key* sort(Key* d_keys, std::size_t arrays, std::size_t size, cudaStream_t stream) override {
    options opt;
    opt.stream = stream;
    sort_batched(d_keys, arrays, size, opt);
    return d_keys;
  }
};

//! The library's batched record sorts as peers, default options, their outputs in buffers of
//! their own (reserved outside the timing): `indices` is argsort_batched with the sorted keys and
//! 64-bit indices (the output of torch.sort(dim=-1): values and int64 indices), otherwise
//! sort_batched_pairs with each key's column as a 4-byte value (the pairs form with indices).
template <class Key>
class bitonic_batched_records final : public segmented_sorter<Key> {
 public:
  explicit bitonic_batched_records(bool indices) : indices_(indices) {}
  void reserve(std::size_t arrays, std::size_t size) override {
    const std::size_t n = arrays * size;
    if (indices_) {
      sorted_ = device_buffer<Key>(n);
      wide_ = device_buffer<std::uint64_t>(n);
      return;
    }
    std::vector<std::uint32_t> columns(n);
    for (std::size_t i = 0; i < n; ++i)
      columns[i] = std::uint32_t(i % size);
    values_ = device_buffer<std::uint32_t>(n);
    BITONIC_CUDA_CHECK(cudaMemcpy(values_.get(), columns.data(), n * sizeof(std::uint32_t),
                                  cudaMemcpyHostToDevice));
  }
  const Key* sort(Key* d_keys, std::size_t arrays, std::size_t size, cudaStream_t stream) override {
    options opt;
    opt.stream = stream;
    if (indices_) {
      argsort_batched(static_cast<const Key*>(d_keys), sorted_.get(), wide_.get(), arrays, size,
                      opt);
      return sorted_.get();
    }
    sort_batched_pairs(d_keys, values_.get(), arrays, size, opt);
    return d_keys;
  }

 private:
  bool indices_;
  device_buffer<Key> sorted_;
  device_buffer<std::uint64_t> wide_;
  device_buffer<std::uint32_t> values_;
};

//! The library's segmented sort on the same arrays as segments (offsets i * size, 64-bit), the
//! call a user makes with default options: it synchronises the stream once or twice to read the
//! segments' bins, and that wait is in its time.
template <class Key>
class bitonic_segments final : public segmented_sorter<Key> {
 public:
  void reserve(std::size_t arrays, std::size_t size) override {
    std::vector<std::uint64_t> offsets(arrays + 1);
    for (std::size_t i = 0; i <= arrays; ++i)
      offsets[i] = i * size;
    offsets_ = device_buffer<std::uint64_t>(offsets.size());
    BITONIC_CUDA_CHECK(cudaMemcpy(offsets_.get(), offsets.data(),
                                  offsets.size() * sizeof(std::uint64_t), cudaMemcpyHostToDevice));
  }
  const Key* sort(Key* d_keys, std::size_t arrays, std::size_t, cudaStream_t stream) override {
    options opt;
    opt.stream = stream;
    sort_segments(d_keys, offsets_.get(), arrays, opt);
    return d_keys;
  }

 private:
  device_buffer<std::uint64_t> offsets_;
};

//! Whether `got` holds every array of `input` sorted (the order of std::sort; equal keys may
//! differ in bits only where they are equivalent, as tools::first_mismatch allows).
template <class Key>
bool arrays_sorted(const std::vector<Key>& input, const std::vector<Key>& got, std::size_t arrays,
                   std::size_t size) {
  for (std::size_t a = 0; a < arrays; ++a) {
    std::vector<Key> want(input.begin() + std::ptrdiff_t(a * size),
                          input.begin() + std::ptrdiff_t((a + 1) * size));
    std::sort(want.begin(), want.end(), ascending_less{});
    const std::vector<Key> row(got.begin() + std::ptrdiff_t(a * size),
                               got.begin() + std::ptrdiff_t((a + 1) * size));
    if (tools::first_mismatch(row, want)) return false;
  }
  return true;
}

struct row_result {
  std::string name;
  double ms = 0;
  bool ok = false;
  std::string error;
  bool skipped = false;  //!< not among the rows asked for
};

template <class Key>
std::vector<row_result> measure_size(const batched_config& cfg, std::size_t size) {
  const std::size_t arrays = std::max<std::size_t>(1, cfg.total_keys / size), n = arrays * size;
  const std::vector<Key> input = tools::generate<Key>(n, tools::distribution::uniform, cfg.seed);
  device_buffer<Key> pristine(n), work(n);
  BITONIC_CUDA_CHECK(
      cudaMemcpy(pristine.get(), input.data(), n * sizeof(Key), cudaMemcpyHostToDevice));
  const cuda_stream stream;
  event_timer timer;
  // In the order of batched_algorithms(), which names them.
  std::unique_ptr<segmented_sorter<Key>> peers[] = {
      std::make_unique<bitonic_batched<Key>>(),
      make_cub_segmented_sorter<Key>(),
      std::make_unique<bitonic_segments<Key>>(),
      make_cub_segmented_radix_sorter<Key>(),
      std::make_unique<bitonic_batched_records<Key>>(true),
      std::make_unique<bitonic_batched_records<Key>>(false)};
  static_assert(std::size(peers) == 6, "a sorter a name of batched_algorithms");
  std::vector<row_result> rows;
  for (std::size_t p = 0; p < std::size(peers); ++p) {
    segmented_sorter<Key>& peer = *peers[p];
    const std::string_view name = batched_algorithms()[p];
    row_result row{std::string(name), 0, false, {}};
    if (!cfg.algorithms.empty() &&
        std::find(cfg.algorithms.begin(), cfg.algorithms.end(), name) == cfg.algorithms.end()) {
      row.skipped = true;
      rows.push_back(row);
      continue;
    }
    try {
      peer.reserve(arrays, size);
      std::vector<double> samples;
      const Key* result = nullptr;
      for (unsigned run = 0; run <= cfg.runs; ++run) {  // run 0 warms up
        BITONIC_CUDA_CHECK(cudaMemcpyAsync(work.get(), pristine.get(), n * sizeof(Key),
                                           cudaMemcpyDeviceToDevice, stream.get()));
        timer.start(stream.get());
        result = peer.sort(work.get(), arrays, size, stream.get());
        const double ms = timer.stop(stream.get());
        if (run > 0) samples.push_back(ms);
      }
      row.ms = median(samples);
      std::vector<Key> got(n);
      BITONIC_CUDA_CHECK(cudaMemcpy(got.data(), result, n * sizeof(Key), cudaMemcpyDeviceToHost));
      row.ok = arrays_sorted(input, got, arrays, size);
      if (!row.ok) row.error = "differs from std::sort";
    } catch (const std::exception& e) {
      row.error = e.what();
    }
    rows.push_back(row);
  }
  return rows;
}

}  // namespace

const std::vector<std::string_view>& batched_algorithms() {
  static const std::vector<std::string_view> names = {
      "bitonic_batched",     "cub_segmented",           "bitonic_segments",
      "cub_segmented_radix", "bitonic_batched_indices", "bitonic_batched_pairs"};
  return names;
}

int run_batched(const batched_config& cfg) {
  if (!gpu_available()) throw std::runtime_error("bench --batched: no CUDA device");
  const std::string device = current_device_name(), date = iso_date();
  std::ofstream csv;
  if (!cfg.csv_path.empty()) {
    csv.open(cfg.csv_path);
    if (!csv) throw std::runtime_error("cannot write " + cfg.csv_path);
    // The columns scripts/plot_bench.py reads (n: the array size; value_type: batched).
    csv << "device,date,key_type,value_type,n,arrays,total_keys,algorithm,internal_ms,"
           "keys_per_s,ok\n";
  }
  std::printf("device: %s, %s; %zu keys in all, median of %u runs\n", device.c_str(), date.c_str(),
              cfg.total_keys, cfg.runs);
  int status = 0;
  for (std::string_view type : cfg.key_types) {
    const bool known = tools::with_key_type(type, [&](auto key) {
      using Key = decltype(key);
      // A column a row of batched_algorithms(), each as wide as its name and a space.
      std::printf("\n%-5s %10s %9s", "type", "array", "arrays");
      for (std::string_view name : batched_algorithms())
        std::printf(" %*.*s", int(name.size()) + 1, int(name.size()), name.data());
      std::printf(" %12s\n", "vs cub_seg");
      for (const std::size_t size : cfg.array_sizes) {
        const std::vector<row_result> rows = measure_size<Key>(cfg, size);
        const std::size_t arrays = std::max<std::size_t>(1, cfg.total_keys / size);
        std::printf("%-5.*s %10zu %9zu", int(type.size()), type.data(), size, arrays);
        for (std::size_t i = 0; i < rows.size(); ++i) {
          const int width = int(batched_algorithms()[i].size()) + 1;
          if (rows[i].skipped) {
            std::printf(" %*s", width, "-");
          } else if (rows[i].ok) {
            std::printf(" %*.4f", width, rows[i].ms);
          } else {
            std::printf(" %*s", width, "FAILED");
            std::fprintf(stderr, "bench --batched %.*s %zu: %s: %s\n", int(type.size()),
                         type.data(), size, rows[i].name.c_str(), rows[i].error.c_str());
            status = 1;
          }
        }
        if (rows[0].ok && rows[1].ok) std::printf(" %11.2fx", rows[1].ms / rows[0].ms);
        std::printf("\n");
        std::fflush(stdout);
        for (const row_result& r : rows) {
          if (!csv.is_open()) break;
          if (r.skipped) continue;
          const double keys_per_s = r.ok ? double(arrays * size) / (r.ms * 1e-3) : 0;
          csv << '"' << device << "\"," << date << ',' << type << ",batched," << size << ','
              << arrays << ',' << arrays * size << ',' << r.name << ',' << (r.ok ? r.ms : 0) << ','
              << keys_per_s << ',' << (r.ok ? "true" : "false") << '\n';
        }
      }
    });
    if (!known) throw std::invalid_argument("unknown key type " + std::string(type));
  }
  return status;
}

}  // namespace bitonic::bench
