// The top-k mode of the benchmark: for each key type and shape, bitonic::topk with default
// options but order::descending (torch.topk's largest=True), both outputs, uint64 indices as
// torch returns them. CUDA events around the call alone, a warm-up, the median of the runs (topk
// leaves its input as it was, so every run sees the same unsorted keys). Up to 16 rows, spread over
// the batch, are checked against std::partial_sort (keys and indices exactly).
#include "bench/topk.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <numeric>
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

//! Whether row `r` of the outputs is its k largest keys, greater index later among equals.
template <class Key>
bool row_matches(const std::vector<Key>& input, const topk_shape& s, std::size_t r,
                 const std::vector<Key>& keys, const std::vector<std::uint64_t>& indices) {
  const Key* row = input.data() + r * s.n;
  std::vector<std::uint64_t> order(s.n);
  std::iota(order.begin(), order.end(), std::uint64_t{0});
  std::partial_sort(order.begin(), order.begin() + std::ptrdiff_t(s.k), order.end(),
                    [&](std::uint64_t a, std::uint64_t b) {
                      if (descending_less{}(row[a], row[b])) return true;
                      return !descending_less{}(row[b], row[a]) && a < b;
                    });
  for (std::size_t j = 0; j < s.k; ++j) {
    if (indices[j] != order[j] || std::memcmp(&keys[j], &row[order[j]], sizeof(Key)) != 0) {
      return false;
    }
  }
  return true;
}

struct topk_result {
  double ms = 0;
  bool ok = false;
  std::string error;
};

template <class Key>
topk_result measure_shape(const topk_config& cfg, const topk_shape& s) {
  topk_result result;
  try {
    const std::size_t keys = s.batch * s.n, outputs = s.batch * s.k;
    const std::vector<Key> input =
        tools::generate<Key>(keys, tools::distribution::uniform, cfg.seed);
    device_buffer<Key> d_keys(keys), d_out(outputs);
    device_buffer<std::uint64_t> d_indices(outputs);
    BITONIC_CUDA_CHECK(
        cudaMemcpy(d_keys.get(), input.data(), keys * sizeof(Key), cudaMemcpyHostToDevice));
    const cuda_stream stream;
    event_timer timer;
    options opt;
    opt.direction = order::descending;
    opt.stream = stream.get();
    std::vector<double> samples;
    for (unsigned run = 0; run <= cfg.runs; ++run) {  // run 0 warms up
      timer.start(stream.get());
      topk(d_keys.get(), s.batch, s.n, s.k, d_out.get(), d_indices.get(), opt);
      const double ms = timer.stop(stream.get());
      if (run > 0) samples.push_back(ms);
    }
    result.ms = median(samples);
    const std::size_t checked = std::min<std::size_t>(s.batch, 16);
    result.ok = true;
    for (std::size_t c = 0; c < checked && result.ok; ++c) {
      const std::size_t r = c * s.batch / checked;
      std::vector<Key> got_keys(s.k);
      std::vector<std::uint64_t> got_indices(s.k);
      BITONIC_CUDA_CHECK(cudaMemcpy(got_keys.data(), d_out.get() + r * s.k, s.k * sizeof(Key),
                                    cudaMemcpyDeviceToHost));
      BITONIC_CUDA_CHECK(cudaMemcpy(got_indices.data(), d_indices.get() + r * s.k,
                                    s.k * sizeof(std::uint64_t), cudaMemcpyDeviceToHost));
      result.ok = row_matches(input, s, r, got_keys, got_indices);
    }
    if (!result.ok) result.error = "differs from std::partial_sort";
  } catch (const std::exception& e) {
    result.error = e.what();
  }
  return result;
}

}  // namespace

std::vector<topk_shape> default_topk_shapes() {
  return {{1, std::size_t{1} << 27, 1000},
          {1, std::size_t{1} << 24, 100},
          {1, std::size_t{1} << 20, 2048},
          {64, 131072, 50},
          {4096, 32768, 100},
          {16384, 4096, 64},
          {10000, 65536, 10},
          {256, std::size_t{1} << 20, 1024}};
}

topk_shape parse_topk_shape(std::string_view text) {
  const std::size_t x = text.find('x'), colon = text.find(':');
  const auto number = [&](std::string_view part) {
    std::size_t value = 0;
    if (part.empty()) throw std::invalid_argument("");
    for (const char c : part) {
      if (c < '0' || c > '9' || value > (std::size_t{1} << 40)) throw std::invalid_argument("");
      value = value * 10 + std::size_t(c - '0');
    }
    return value;
  };
  try {
    if (x == std::string_view::npos || colon == std::string_view::npos || colon < x) {
      throw std::invalid_argument("");
    }
    topk_shape s{number(text.substr(0, x)), number(text.substr(x + 1, colon - x - 1)),
                 number(text.substr(colon + 1))};
    if (s.batch == 0 || s.n == 0 || s.k == 0 || s.k > s.n) throw std::invalid_argument("");
    return s;
  } catch (const std::invalid_argument&) {
    throw std::invalid_argument("'" + std::string(text) +
                                "' is not BATCHxN:K with 1 <= K <= N (e.g. 64x131072:50)");
  }
}

int run_topk(const topk_config& cfg) {
  if (!gpu_available()) throw std::runtime_error("bench --topk: no CUDA device");
  const std::string device = current_device_name(), date = iso_date();
  std::ofstream csv;
  if (!cfg.csv_path.empty()) {
    csv.open(cfg.csv_path);
    if (!csv) throw std::runtime_error("cannot write " + cfg.csv_path);
    csv << "device,date,key_type,batch,n,k,algorithm,internal_ms,keys_per_s,ok\n";
  }
  std::printf("device: %s, %s; k largest of each row with uint64 indices, median of %u runs\n",
              device.c_str(), date.c_str(), cfg.runs);
  int status = 0;
  for (std::string_view type : cfg.key_types) {
    const bool known = tools::with_key_type(type, [&](auto key) {
      using Key = decltype(key);
      std::printf("\n%-5s %7s %11s %6s %14s %12s\n", "type", "batch", "n", "k", "bitonic_topk",
                  "Gkeys/s");
      for (const topk_shape& s : cfg.shapes) {
        const topk_result r = measure_shape<Key>(cfg, s);
        const double keys_per_s = r.ok ? double(s.batch * s.n) / (r.ms * 1e-3) : 0;
        std::printf("%-5.*s %7zu %11zu %6zu", int(type.size()), type.data(), s.batch, s.n, s.k);
        if (r.ok) {
          std::printf(" %14.4f %12.2f\n", r.ms, keys_per_s * 1e-9);
        } else {
          std::printf(" %14s\n", "FAILED");
          std::fprintf(stderr, "bench --topk %.*s %zux%zu:%zu: %s\n", int(type.size()), type.data(),
                       s.batch, s.n, s.k, r.error.c_str());
          status = 1;
        }
        std::fflush(stdout);
        if (csv.is_open()) {
          csv << '"' << device << "\"," << date << ',' << type << ',' << s.batch << ',' << s.n
              << ',' << s.k << ",bitonic_topk," << (r.ok ? r.ms : 0) << ',' << keys_per_s << ','
              << (r.ok ? "true" : "false") << '\n';
        }
      }
    });
    if (!known) throw std::invalid_argument("unknown key type " + std::string(type));
  }
  return status;
}

}  // namespace bitonic::bench
