// comparator_bench.cu: device-resident sorts under a caller's comparator, bitonic::sort from
// bitonic.cuh against CUB's merge sort and thrust::sort, all in one process and one run.
//
// Why: a comparator the caller writes (here a two-field struct ordered by major, then minor) keeps
// every library off its radix fast path, so the comparison sorts are the ones a user of such keys
// chooses between. Every peer gets the same functor, the same stream and the same input. The
// order is timed in two spellings: with || and && (key_type pair32), which nvcc compiles into a
// branch per comparison, and with | and & (pair32_bitwise), which it does not.
//
// What: for each size of --log2, each peer sorts a fresh copy of the same uniform random keys
// (std::mt19937_64 from a fixed seed, printed); one warm-up run, then the median of --reps runs
// timed by CUDA events around the sort alone (the copy of the input is enqueued before the first
// event). The peers:
//   bitonic            bitonic::sort(d_keys, n, less): no workspace, what a user gets (scratch
//                      from the library's pool);
//   bitonic_workspace  bitonic::sort with a workspace of workspace_bytes(n, less) allocated once;
//   cub_merge          cub::DeviceMergeSort::SortKeys, temporary storage allocated once outside
//                      the timing (CUB's convention);
//   thrust             thrust::sort(thrust::cuda::par.on(stream), ...), which allocates its own
//                      temporary storage inside the call.
// For the first size, when it is at most 2^24 keys, each peer's output is compared with std::sort
// on the host under the same comparator; a mismatch prints FAIL and the exit status is 1.
//
// Output: a comment line (device, date and time UTC, command line), the seed, then CSV
//   device,date,key_type,log2n,n,algorithm,internal_ms,keys_per_s
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/sort.h>
#include <cub/device/device_merge_sort.cuh>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "bench/report.hpp"  // csv_field
#include "bench/timing.hpp"  // median
#include "bitonic/bitonic.cuh"
#include "bitonic/cuda_helpers.hpp"

namespace {

using bitonic::bench::csv_field;
using bitonic::bench::median;

//! The key: two 32-bit fields, 8 bytes, ordered by major, then minor.
struct pair32 {
  std::int32_t major, minor;
};

//! The comparator every peer gets: a strict (total) order on pair32, callable on host and device.
struct by_major_then_minor {
  __host__ __device__ bool operator()(const pair32& a, const pair32& b) const {
    return a.major < b.major || (a.major == b.major && a.minor < b.minor);
  }
};

//! The same order without short-circuits (| and & on the comparisons): nvcc compiles the `||`
//! above into a branch per comparison, which keeps the comparisons of a network step from
//! overlapping; this form compiles to predicates and selects.
struct by_major_then_minor_bitwise {
  __host__ __device__ bool operator()(const pair32& a, const pair32& b) const {
    return (a.major < b.major) | ((a.major == b.major) & (a.minor < b.minor));
  }
};
constexpr std::uint64_t input_seed = 0x5eed'c0de'2026'0001;
constexpr std::array<unsigned, 4> default_log2_sizes = {16, 20, 24, 26};
constexpr unsigned default_reps = 7;
constexpr unsigned warmup_runs = 1;
//! The first size is checked against std::sort on the host only up to this many keys.
constexpr unsigned max_checked_log2 = 24;
//! Largest --log2: CUB's item count is an int.
constexpr unsigned max_log2 = 30;

enum class peer_id { bitonic, bitonic_workspace, cub_merge, thrust };
constexpr std::array<peer_id, 4> all_peers = {peer_id::bitonic, peer_id::bitonic_workspace,
                                              peer_id::cub_merge, peer_id::thrust};

constexpr const char* peer_name(peer_id peer) {
  switch (peer) {
    case peer_id::bitonic:
      return "bitonic";
    case peer_id::bitonic_workspace:
      return "bitonic_workspace";
    case peer_id::cub_merge:
      return "cub_merge";
    case peer_id::thrust:
      return "thrust";
  }
  return "?";
}

//! n as CUB's item count (an int), or std::length_error.
int cub_item_count(std::size_t n) {
  if (n > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    throw std::length_error("cub_merge: " + std::to_string(n) + " keys exceed int");
  }
  return static_cast<int>(n);
}

//! The peers' sorts, each with the scratch it keeps across runs (allocated in reserve(), outside
//! any timing). All enqueue on the stream they are given.
template <class Key, class Less>
class comparator_sorts {
 public:
  explicit comparator_sorts(Less less) : less_(less) {}

  //! Sizes the scratch of the peers that take it from the caller for n keys.
  void reserve(std::size_t n, cudaStream_t stream) {
    workspace_bytes_ = bitonic::workspace_bytes<Key>(n, less_, bitonic::options{.stream = stream});
    bitonic_workspace_.reserve(workspace_bytes_);
    std::size_t cub_bytes = 0;
    BITONIC_CUDA_CHECK(cub::DeviceMergeSort::SortKeys(
        nullptr, cub_bytes, static_cast<Key*>(nullptr), cub_item_count(n), less_, stream));
    cub_temp_.reserve(cub_bytes);
    cub_temp_bytes_ = cub_bytes;
  }

  //! Enqueues peer's sort of d_keys[0, n) in place on stream.
  void sort(peer_id peer, Key* d_keys, std::size_t n, cudaStream_t stream) {
    switch (peer) {
      case peer_id::bitonic:
        bitonic::sort(d_keys, n, less_, bitonic::options{.stream = stream});
        return;
      case peer_id::bitonic_workspace:
        bitonic::sort(d_keys, n, less_,
                      bitonic::options{.stream = stream,
                                       .workspace = bitonic_workspace_.get(),
                                       .workspace_bytes = workspace_bytes_});
        return;
      case peer_id::cub_merge: {
        std::size_t bytes = cub_temp_bytes_;
        BITONIC_CUDA_CHECK(cub::DeviceMergeSort::SortKeys(cub_temp_.get(), bytes, d_keys,
                                                          cub_item_count(n), less_, stream));
        return;
      }
      case peer_id::thrust: {
        // Throws thrust::system_error (a std::runtime_error) on failure.
        const thrust::device_ptr<Key> first(d_keys);
        thrust::sort(thrust::cuda::par.on(stream), first, first + n, less_);
        return;
      }
    }
  }

 private:
  Less less_;
  bitonic::device_buffer<std::byte> bitonic_workspace_;
  std::size_t workspace_bytes_ = 0;
  bitonic::device_buffer<std::byte> cub_temp_;
  std::size_t cub_temp_bytes_ = 0;
};

//! n uniform random pair32 keys, both fields over the whole int32 range: each key is the two
//! halves of one 64-bit draw. Seeded afresh for every size, so that an input does not depend on
//! the sizes run before it.
std::vector<pair32> random_keys(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<pair32> keys(n);
  for (pair32& key : keys) {
    const std::uint64_t bits = rng();
    key.major = static_cast<std::int32_t>(static_cast<std::uint32_t>(bits));
    key.minor = static_cast<std::int32_t>(static_cast<std::uint32_t>(bits >> 32));
  }
  return keys;
}

//! The first index where `got` and `expected` differ in a field, or n when they agree.
std::size_t first_mismatch(const std::vector<pair32>& got, const std::vector<pair32>& expected) {
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (got[i].major != expected[i].major || got[i].minor != expected[i].minor) return i;
  }
  return expected.size();
}

struct run_settings {
  std::vector<unsigned> log2_sizes{default_log2_sizes.begin(), default_log2_sizes.end()};
  unsigned reps = default_reps;
};

unsigned parse_unsigned(std::string_view text, const char* option) {
  unsigned value = 0;
  const auto [end, status] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (status != std::errc{} || end != text.data() + text.size()) {
    throw std::invalid_argument(std::string(option) + ": not a number: '" + std::string(text) +
                                "'");
  }
  return value;
}

const char* const usage = "usage: bitonic_comparator_bench [--log2 a,b,c] [--reps R]\n";

run_settings parse_arguments(int argc, char** argv) {
  run_settings settings;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(usage, stdout);
      std::exit(0);
    }
    if (arg != "--log2" && arg != "--reps") {
      throw std::invalid_argument("unknown option " + std::string(arg) + "\n" + usage);
    }
    if (i + 1 >= argc) throw std::invalid_argument(std::string(arg) + ": missing value");
    const std::string_view value = argv[++i];
    if (arg == "--log2") {
      settings.log2_sizes.clear();
      for (std::size_t start = 0; start <= value.size();) {
        const std::size_t comma = std::min(value.find(',', start), value.size());
        const unsigned log2n = parse_unsigned(value.substr(start, comma - start), "--log2");
        if (log2n < 1 || log2n > max_log2) {
          throw std::invalid_argument("--log2: " + std::to_string(log2n) + " is outside 1.." +
                                      std::to_string(max_log2));
        }
        settings.log2_sizes.push_back(log2n);
        start = comma + 1;
      }
    } else if (arg == "--reps") {
      settings.reps = parse_unsigned(value, "--reps");
      if (settings.reps < 1) throw std::invalid_argument("--reps: at least 1");
    }
  }
  return settings;
}

std::string utc_time(const char* format) {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, format, &utc);
  return text;
}

std::string command_line(int argc, char** argv) {
  std::string text;
  for (int i = 0; i < argc; ++i) {
    if (i > 0) text += ' ';
    text += argv[i];
  }
  return text;
}

//! Times every peer under `less` at every size of `settings` and prints the rows (key_type
//! `key_type_name`); returns false if a checked output differs from std::sort.
template <class Less>
bool bench_comparator(const run_settings& settings, const std::string& device,
                      const std::string& date, const char* key_type_name, Less less) {
  const bitonic::cuda_stream stream;
  const bitonic::cuda_event start, stop;
  comparator_sorts<pair32, Less> sorts(less);
  bitonic::device_buffer<pair32> pristine, work;
  bool all_match = true;

  for (std::size_t size_index = 0; size_index < settings.log2_sizes.size(); ++size_index) {
    const unsigned log2n = settings.log2_sizes[size_index];
    const std::size_t n = std::size_t{1} << log2n;
    const std::size_t bytes = n * sizeof(pair32);
    const bool check = size_index == 0 && log2n <= max_checked_log2;

    std::vector<pair32> host_keys = random_keys(n, input_seed);
    pristine.reserve(n);
    work.reserve(n);
    BITONIC_CUDA_CHECK(
        cudaMemcpyAsync(pristine.get(), host_keys.data(), bytes, cudaMemcpyHostToDevice, stream));
    sorts.reserve(n, stream);
    std::vector<pair32> expected;
    if (check) {
      expected = host_keys;
      std::sort(expected.begin(), expected.end(), less);
    }
    BITONIC_CUDA_CHECK(cudaStreamSynchronize(stream));

    for (const peer_id peer : all_peers) {
      std::vector<double> samples;
      for (unsigned run = 0; run < warmup_runs + settings.reps; ++run) {
        BITONIC_CUDA_CHECK(
            cudaMemcpyAsync(work.get(), pristine.get(), bytes, cudaMemcpyDeviceToDevice, stream));
        BITONIC_CUDA_CHECK(cudaEventRecord(start, stream));
        sorts.sort(peer, work.get(), n, stream);
        BITONIC_CUDA_CHECK(cudaEventRecord(stop, stream));
        BITONIC_CUDA_CHECK(cudaEventSynchronize(stop));
        BITONIC_CUDA_CHECK(cudaGetLastError());
        float elapsed_ms = 0;
        BITONIC_CUDA_CHECK(cudaEventElapsedTime(&elapsed_ms, start, stop));
        if (run >= warmup_runs) samples.push_back(elapsed_ms);
      }
      const double internal_ms = median(samples);
      const double keys_per_s = internal_ms > 0 ? static_cast<double>(n) / (internal_ms / 1e3) : 0;
      std::printf("%s,%s,%s,%u,%zu,%s,%.6g,%.0f\n", csv_field(device).c_str(), date.c_str(),
                  key_type_name, log2n, n, peer_name(peer), internal_ms, keys_per_s);
      std::fflush(stdout);

      if (check) {  // the last timed run's output
        std::vector<pair32> got(n);
        BITONIC_CUDA_CHECK(
            cudaMemcpyAsync(got.data(), work.get(), bytes, cudaMemcpyDeviceToHost, stream));
        BITONIC_CUDA_CHECK(cudaStreamSynchronize(stream));
        if (const std::size_t at = first_mismatch(got, expected); at != n) {
          all_match = false;
          std::fprintf(stderr,
                       "FAIL: %s, %s, n = 2^%u: key %zu is (%d, %d), std::sort has (%d, %d)\n",
                       peer_name(peer), key_type_name, log2n, at, got[at].major, got[at].minor,
                       expected[at].major, expected[at].minor);
          std::printf("# FAIL: %s differs from std::sort at key %zu\n", peer_name(peer), at);
        } else {
          std::printf("# check: %s matches std::sort at n = 2^%u\n", peer_name(peer), log2n);
        }
      }
    }
  }
  return all_match;
}

int run(const run_settings& settings, const std::string& command) {
  const std::string device = bitonic::current_device_name();
  const std::string date = utc_time("%Y-%m-%d");
  std::printf("# %s, %s, %s\n", device.c_str(), utc_time("%Y-%m-%d %H:%M:%S UTC").c_str(),
              command.c_str());
  std::printf("# seed %#llx (std::mt19937_64), one warm-up run, median of %u runs\n",
              static_cast<unsigned long long>(input_seed), settings.reps);
  std::printf("device,date,key_type,log2n,n,algorithm,internal_ms,keys_per_s\n");
  std::fflush(stdout);
  // Both forms of one order: key_type pair32 (||, as most comparators are written) and
  // pair32_bitwise.
  const bool short_circuit_match =
      bench_comparator(settings, device, date, "pair32", by_major_then_minor{});
  const bool bitwise_match =
      bench_comparator(settings, device, date, "pair32_bitwise", by_major_then_minor_bitwise{});
  if (!short_circuit_match || !bitwise_match) {
    std::fprintf(stderr, "FAIL: at least one peer's output differs from std::sort\n");
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(parse_arguments(argc, argv), command_line(argc, argv));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bitonic_comparator_bench: %s\n", e.what());
    return 2;
  }
}
