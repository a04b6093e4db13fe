// The sample split (kernels/sample_split.cuh) against what a split must be, for 4- and 8-byte
// keys in both orders: its output a permutation of its input (compared as sorted bits), the input
// untouched, the table consistent with itself (key_begin from 0 to n, every bucket's tiles, every
// tile's bucket up to max_tiles), no key of a bucket after a key of a later bucket under the order
// on words, every bucket's merges those of its tiles unless all its keys are equal (an equality
// bucket: none), all keys in equality buckets where at most three distinct values fill a large
// input, and on uniform keys the largest bucket within 1.5x the mean. Sizes from one key to
// blocks of several tiles; uniform, sorted, reverse, equal, three and eight distinct values,
// NaNs of both signs, infinities and signed zeros (extremes for integers), and keys clustered in
// a narrow band among spread ones. Ascending splits are stable (each bucket holds its keys in
// their input order), descending ones not (the scatter's two rankings). Also replayed from a
// CUDA graph.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common_test.hpp"
#include "device_memory.hpp"
#include "kernels/buckets.hpp"
#include "kernels/sample_refine.cuh"
#include "kernels/sample_split.cuh"
#include "kernels/tuning.hpp"
#include "network/key_order.hpp"

namespace bitonic::test {
namespace {

using network::index_t;
namespace split = kernels::sample_split;

//! The inputs a split meets: tools' distributions (`special`: NaNs, infinities and zeros of
//! both signs), three distinct values (fewer than the buckets and the sample's runs: most
//! splitters equal), and `clustered`: 96 % of the keys in a narrow band, the rest spread as
//! uniform keys, so that nearly all splitters fall in the few cells of the band
//! (sample_split::shared_splitters: the cells span the splitters' whole range).
enum class input { uniform, sorted, reverse, equal, few, special, three, clustered };
constexpr input all_inputs[] = {input::uniform, input::sorted, input::reverse, input::equal,
                                input::three,   input::few,    input::special, input::clustered};
//! The distribution each input before `three` is.
constexpr distribution distribution_of[] = {distribution::uniform, distribution::sorted,
                                            distribution::reverse, distribution::equal,
                                            distribution::few,     distribution::nan};

const char* to_string(input i) {
  constexpr const char* names[] = {"uniform", "sorted",  "reverse", "equal",
                                   "few",     "special", "three",   "clustered"};
  return names[static_cast<int>(i)];
}

std::uint64_t input_seed(std::size_t n, input i) {
  return case_seed(n, distribution::uniform) + 1000 + static_cast<std::uint64_t>(i);
}

template <class Key>
std::vector<Key> make_input(std::size_t n, input i, std::uint64_t seed) {
  if (i == input::clustered) {
    const std::vector<Key> spread = tools::generate<Key>(n, distribution::uniform, seed);
    std::mt19937_64 rng(seed);
    std::vector<Key> keys(n);
    for (std::size_t k = 0; k < n; ++k)
      keys[k] = rng() % 100 < 4 ? spread[k] : static_cast<Key>(100 + rng() % 4096);
    return keys;
  }
  if (i != input::three) return tools::generate<Key>(n, distribution_of[int(i)], seed);
  const std::vector<Key> values = tools::generate<Key>(3, distribution::uniform, seed);
  std::mt19937_64 rng(seed);
  std::vector<Key> keys(n);
  for (Key& k : keys)
    k = values[rng() % 3];
  return keys;
}

//! The keys' bits as unsigned integers, sorted: equal exactly for permutations of each other.
template <class Key>
auto sorted_bits(const std::vector<Key>& keys) {
  using U = std::conditional_t<sizeof(Key) == 4, std::uint32_t, std::uint64_t>;
  std::vector<U> bits(keys.size());
  if (!keys.empty()) std::memcpy(bits.data(), keys.data(), keys.size() * sizeof(Key));
  std::sort(bits.begin(), bits.end());
  return bits;
}

//! What a split left on the device, copied back.
template <class Key>
struct split_result {
  std::vector<Key> out, in;
  std::vector<index_t> key_begin, tile_begin;
  std::vector<unsigned> tile_bucket, merges, most_merges;
};

template <class T>
std::vector<T> copy_back(const T* device, std::size_t count) {
  std::vector<T> host(count);
  BITONIC_CUDA_CHECK(cudaMemcpy(host.data(), device, count * sizeof(T), cudaMemcpyDeviceToHost));
  return host;
}

//! A split's device buffers for n keys of type Key; `refined`: the split's buckets cut again
//! (sample_refine.cuh) into `sub`, whose table the download returns.
template <class Key>
struct split_buffers {
  std::size_t n;
  bool refined;
  unsigned tile_log2 = tuning::optimized<sizeof(Key)>::tile_log2;
  device_array<Key> in, out, sub;
  device_array<std::uint64_t> memory;  // 8-byte aligned

  static std::size_t memory_bytes(std::size_t n, bool refined, unsigned tile_log2) {
    return split::split_memory::bytes(n, sizeof(Key), tile_log2) +
           (refined ? kernels::refine_memory::bytes(n, sizeof(Key), tile_log2) : 0);
  }

  explicit split_buffers(std::size_t count, bool refine = false)
      : n(count),
        refined(refine),
        in(count),
        out(count),
        sub(refine ? count : 0),
        memory((memory_bytes(count, refine, tile_log2) + 7) / 8) {}

  //! The buckets of the table the download returns, and its tiles of positions.
  unsigned buckets() const {
    return tuning::sample_split<sizeof(Key)>::buckets *
           (refined ? tuning::sample_refine<sizeof(Key)>::buckets : 1);
  }
  index_t tiles() const {
    return refined ? kernels::refine_memory::max_tiles(n, sizeof(Key), tile_log2)
                   : kernels::bucket_table::max_tiles(n, buckets(), tile_log2);
  }

  //! Stable (scatter_tile's ranking by ballots) in ascending order, unstable (by atomics) in
  //! descending order, so that the matrix covers both.
  template <class Less>
  static constexpr bool stable = std::is_same_v<Less, ascending_less>;

  template <class Less>
  void launch(cudaStream_t stream) {
    split::launch_split<stable<Less>>(static_cast<const Key*>(in.get()), out.get(), index_t{n},
                                      memory.get(), tile_log2, Less{}, stream);
    if (refined) {
      kernels::sample_refine::launch_refine<stable<Less>>(static_cast<const Key*>(out.get()),
                                                          sub.get(), index_t{n}, memory.get(),
                                                          tile_log2, Less{}, stream);
    }
  }

  split_result<Key> download(cudaStream_t stream) const {
    BITONIC_CUDA_CHECK(cudaStreamSynchronize(stream));
    const split::split_memory m =
        split::split_memory::carve(memory.get(), n, sizeof(Key), tile_log2);
    if (refined) {
      const kernels::refine_memory r =
          kernels::refine_memory::carve_behind_split(memory.get(), n, sizeof(Key), tile_log2);
      return {sub.download(),
              in.download(),
              copy_back(r.key_begin, r.buckets + 1),
              copy_back(r.tile_begin, r.buckets + 1),
              copy_back(r.tile_bucket, r.tiles),
              copy_back(r.merges, r.buckets),
              copy_back(r.most_merges, 1)};
    }
    return {out.download(),
            in.download(),
            copy_back(m.key_begin, m.buckets + 1),
            copy_back(m.tile_begin, m.buckets + 1),
            copy_back(m.tile_bucket, m.tiles),
            copy_back(m.merges, m.buckets),
            copy_back(m.most_merges, 1)};
  }
};

template <class Key, class Less>
bool words_less(Key a, Key b) {
  return Less{}(ordered_word<Key>::encode(a), ordered_word<Key>::encode(b));
}

//! Checks everything a split into `buckets` buckets on `tiles` tiles of positions must satisfy;
//! returns the largest bucket over the mean.
template <class Key, class Less>
double expect_split_result(const std::vector<Key>& input, const split_result<Key>& r,
                           unsigned tile_log2, unsigned buckets, index_t tiles, bool stable,
                           const std::string& what) {
  const std::size_t n = input.size();
  EXPECT_EQ(std::memcmp(r.in.data(), input.data(), n * sizeof(Key)), 0)
      << what << ": input changed";
  EXPECT_TRUE(sorted_bits(r.out) == sorted_bits(input)) << what << ": output not a permutation";

  // The table: key_begin from 0 to n, nondecreasing; tile_begin its tiles; tile_bucket each
  // tile's bucket, no_bucket past the last.
  EXPECT_EQ(r.key_begin.front(), 0u) << what;
  EXPECT_EQ(r.key_begin.back(), n) << what;
  EXPECT_EQ(r.tile_begin.front(), 0u) << what;
  std::vector<unsigned> tile_bucket(tiles, kernels::bucket_table::no_bucket);
  EXPECT_EQ(r.tile_bucket.size(), tile_bucket.size()) << what;
  index_t largest = 0;
  for (unsigned b = 0; b < buckets; ++b) {
    if (r.key_begin[b + 1] < r.key_begin[b] || r.key_begin[b + 1] > n) {
      ADD_FAILURE() << what << ": key_begin[" << b + 1 << "] = " << r.key_begin[b + 1] << " after "
                    << r.key_begin[b];
      return 0;
    }
    const index_t length = r.key_begin[b + 1] - r.key_begin[b];
    largest = std::max(largest, length);
    const index_t tiles = (length + (index_t{1} << tile_log2) - 1) >> tile_log2;
    if (r.tile_begin[b + 1] != r.tile_begin[b] + tiles ||
        r.tile_begin[b + 1] > tile_bucket.size()) {
      ADD_FAILURE() << what << ": bucket " << b << " of " << length << " keys at tiles ["
                    << r.tile_begin[b] << ", " << r.tile_begin[b + 1] << ")";
      return 0;
    }
    std::fill(tile_bucket.begin() + std::ptrdiff_t(r.tile_begin[b]),
              tile_bucket.begin() + std::ptrdiff_t(r.tile_begin[b + 1]), b);
  }
  EXPECT_TRUE(r.tile_bucket == tile_bucket) << what << ": tile_bucket";

  // Merges: those of a bucket's tiles, or none for a bucket whose keys are all equal words (which
  // its tiles, each sorted, leave sorted); most_merges the most of them.
  const auto before = words_less<Key, Less>;
  unsigned most = 0;
  for (unsigned b = 0; b < buckets; ++b) {
    const index_t tiles = r.tile_begin[b + 1] - r.tile_begin[b];
    most = std::max(most, r.merges[b]);
    if (r.merges[b] == kernels::bucket_table::merge_stages(tiles)) continue;
    const auto first = r.out.begin() + std::ptrdiff_t(r.key_begin[b]),
               last = r.out.begin() + std::ptrdiff_t(r.key_begin[b + 1]);
    const bool all_equal = std::all_of(first, last, [&](Key k) {
      return !before(k, *first) && !before(*first, k) &&
             ordered_word<Key>::encode(k) == ordered_word<Key>::encode(*first);
    });
    if (r.merges[b] != 0 || !all_equal) {
      ADD_FAILURE() << what << ": bucket " << b << " of " << tiles << " tiles takes " << r.merges[b]
                    << " merges" << (all_equal ? "" : ", its keys not all equal");
      return 0;
    }
  }
  EXPECT_EQ(r.most_merges.front(), most) << what << ": most_merges";

  // Order between buckets: the greatest key of each non-empty bucket not after the least of the
  // next non-empty one, both under the order on words.
  bool have_previous = false;
  Key previous_greatest{};
  for (unsigned b = 0; b < buckets; ++b) {
    const auto first = r.out.begin() + std::ptrdiff_t(r.key_begin[b]),
               last = r.out.begin() + std::ptrdiff_t(r.key_begin[b + 1]);
    if (first == last) continue;
    const Key least = *std::min_element(first, last, before);
    if (have_previous && before(least, previous_greatest)) {
      ADD_FAILURE() << what << ": bucket " << b << " holds a key before one of an earlier bucket";
      return 0;
    }
    previous_greatest = *std::max_element(first, last, before);
    have_previous = true;
  }

  // Stability: each bucket holds its keys in their input order (compact_record_tile.cuh relies on
  // it for records' positions). A word's keys all go to one bucket, found here from the output.
  if (!stable) return double(largest) / (double(n) / buckets);
  using W = typename ordered_word<Key>::type;
  std::vector<std::pair<W, unsigned>> bucket_of_word;
  bucket_of_word.reserve(n);
  for (unsigned b = 0; b < buckets; ++b) {
    for (index_t at = r.key_begin[b]; at < r.key_begin[b + 1]; ++at)
      bucket_of_word.emplace_back(ordered_word<Key>::encode(r.out[at]), b);
  }
  std::sort(bucket_of_word.begin(), bucket_of_word.end());
  std::vector<index_t> next(r.key_begin.begin(), r.key_begin.end() - 1);
  for (std::size_t i = 0; i < n; ++i) {
    const W w = ordered_word<Key>::encode(input[i]);
    const auto found = std::lower_bound(bucket_of_word.begin(), bucket_of_word.end(),
                                        std::pair<W, unsigned>{w, 0});
    if (found == bucket_of_word.end() || found->first != w) {
      ADD_FAILURE() << what << ": input key " << i << " in no bucket";
      break;
    }
    const unsigned b = found->second;
    const index_t at = next[b]++;
    if (std::memcmp(&r.out[at], &input[i], sizeof(Key)) != 0) {
      ADD_FAILURE() << what << ": not stable: place " << at - r.key_begin[b] << " of bucket " << b
                    << " holds another key than input key " << i << ", the bucket's next";
      break;
    }
  }
  return double(largest) / (double(n) / buckets);
}

template <class Key, class Less>
std::string describe(std::size_t n, input i, std::uint64_t seed, bool refined) {
  std::ostringstream s;
  s << (refined ? "refined split " : "split ") << tools::type_name<Key>() << " n=" << n << " "
    << to_string(i) << " " << (std::is_same_v<Less, ascending_less> ? "ascending" : "descending")
    << " seed=" << seed;
  return s.str();
}

//! What a checked split found: its largest bucket over the mean, the most merges a bucket
//! takes, and the buckets that take any.
struct split_outcome {
  double largest_over_mean;
  unsigned most_merges;
  std::size_t merged_buckets;
};

//! Splits one input on the default stream (and refines the split where `refined`) and checks the
//! result.
template <class Key, class Less>
split_outcome split_and_check(std::size_t n, input i, bool refined = false) {
  const std::uint64_t seed = input_seed(n, i);
  const std::vector<Key> keys = make_input<Key>(n, i, seed);
  split_buffers<Key> buffers(n, refined);
  buffers.in.upload(keys);
  buffers.template launch<Less>(cudaStream_t{});
  BITONIC_CUDA_CHECK(cudaGetLastError());
  const split_result<Key> r = buffers.download(cudaStream_t{});
  const double ratio = expect_split_result<Key, Less>(
      keys, r, buffers.tile_log2, buffers.buckets(), buffers.tiles(),
      split_buffers<Key>::template stable<Less>, describe<Key, Less>(n, i, seed, refined));
  const auto merged = std::size_t(
      std::count_if(r.merges.begin(), r.merges.end(), [](unsigned m) { return m != 0; }));
  return {ratio, r.most_merges.front(), merged};
}

//! split_and_check's largest bucket over the mean.
template <class Key, class Less>
double expect_split(std::size_t n, input i, bool refined = false) {
  return split_and_check<Key, Less>(n, i, refined).largest_over_mean;
}

//! Every input in both orders at sizes around a tile (2048 or 4096 keys), below the sample (8192
//! keys: positions sampled more than once) and of one tile a block (2^20 + 3: the last of
//! three keys).
template <class Key>
void expect_splits_all_inputs() {
  constexpr std::size_t tile = tuning::sample_split<sizeof(Key)>::tile_keys;
  for (const std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{1000}, std::size_t{2047},
                              std::size_t{2049}, std::size_t{4095}, std::size_t{4096},
                              std::size_t{4097}, 3 * tile + 5, (std::size_t{1} << 20) + 3}) {
    for (const input i : all_inputs) {
      expect_split<Key, ascending_less>(n, i);
      expect_split<Key, descending_less>(n, i);
    }
  }
}

TEST(SampleSplit, FourByteKeys) {
  expect_splits_all_inputs<std::int32_t>();
  expect_splits_all_inputs<float>();
}

TEST(SampleSplit, EightByteKeys) {
  expect_splits_all_inputs<std::int64_t>();
  expect_splits_all_inputs<double>();
}

// Large inputs: 2^22 uniform keys (all split_blocks blocks, one tile each for 4-byte keys, two
// for 8-byte ones) in both orders, their largest bucket within 1.5x the mean; and 3 * 2^21 + 7
// uniform and equal keys (one to four tiles a block, the last partial), so that a block's
// running offsets move on between tiles. (Few inputs: the host's checks of 2^22 keys take ~1 s.)
template <class Key>
void expect_large_splits() {
  const std::size_t n = std::size_t{1} << 22;
  for (const double ratio : {expect_split<Key, ascending_less>(n, input::uniform),
                             expect_split<Key, descending_less>(n, input::uniform)}) {
    std::printf("split %s n=%zu uniform: largest bucket %.3f x the mean\n",
                std::string(tools::type_name<Key>()).c_str(), n, ratio);
    EXPECT_LE(ratio, 1.5) << tools::type_name<Key>() << " n=" << n;
  }
  const std::size_t odd = 3 * (std::size_t{1} << 21) + 7;
  expect_split<Key, descending_less>(odd, input::uniform);
  expect_split<Key, ascending_less>(odd, input::equal);
}

// Equal keys and three distinct values, far more keys than a tile: every key lands in an equality
// bucket (each value repeats among the splitters), so no bucket takes a merge; before equality
// buckets all-equal keys were one bucket of n that took every merge.
template <class Key>
void expect_equality_buckets() {
  const std::size_t n = (std::size_t{1} << 20) + 3;
  for (const input i : {input::equal, input::three}) {
    EXPECT_EQ((split_and_check<Key, ascending_less>(n, i).most_merges), 0u) << to_string(i);
    EXPECT_EQ((split_and_check<Key, descending_less>(n, i).most_merges), 0u) << to_string(i);
  }
}

TEST(SampleSplit, EqualityBuckets) {
  expect_equality_buckets<std::int32_t>();
  expect_equality_buckets<float>();
  expect_equality_buckets<std::int64_t>();
  expect_equality_buckets<double>();
}

TEST(SampleSplit, LargeInputs) {
  expect_large_splits<std::int32_t>();
  expect_large_splits<float>();
  expect_large_splits<std::int64_t>();
  expect_large_splits<double>();
}

// The refinement (sample_refine.cuh) of every input's split in both orders: the table of the
// sub-buckets checked as a split's (a permutation, in order across sub-buckets, tiles and merges
// consistent); sizes of one key, below the refinement's sample (4096 keys), of a few tiles and
// of 2^20 + 3 keys (buckets of several tiles: several sub-buckets each).
template <class Key>
void expect_refines_all_inputs() {
  constexpr std::size_t tile = tuning::optimized<sizeof(Key)>::tile_keys;
  for (const std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{1000}, std::size_t{4097},
                              3 * tile + 5, (std::size_t{1} << 20) + 3}) {
    for (const input i : all_inputs) {
      split_and_check<Key, ascending_less>(n, i, true);
      split_and_check<Key, descending_less>(n, i, true);
    }
  }
}

TEST(SampleRefine, FourByteKeys) {
  expect_refines_all_inputs<std::int32_t>();
  expect_refines_all_inputs<float>();
}

TEST(SampleRefine, EightByteKeys) {
  expect_refines_all_inputs<std::int64_t>();
  expect_refines_all_inputs<double>();
}

// 2^22 uniform keys: sub-buckets of about 85 % of a tile, so that no sub-bucket takes
// more than one merge and few take one; equal keys and three values: every key in an equality
// sub-bucket, no merge.
template <class Key>
void expect_refined_sub_buckets() {
  const std::size_t n = std::size_t{1} << 22;
  for (const split_outcome o : {split_and_check<Key, ascending_less>(n, input::uniform, true),
                                split_and_check<Key, descending_less>(n, input::uniform, true)}) {
    std::printf("refined split %s n=%zu uniform: %zu sub-buckets take a merge, at most %u\n",
                std::string(tools::type_name<Key>()).c_str(), n, o.merged_buckets, o.most_merges);
    EXPECT_LE(o.most_merges, 1u) << tools::type_name<Key>();
    EXPECT_LE(o.merged_buckets * 20, n >> tuning::optimized<sizeof(Key)>::tile_log2)
        << tools::type_name<Key>() << ": more than 5 % of the tiles' sub-buckets take a merge";
  }
  const std::size_t odd = (std::size_t{1} << 20) + 3;
  for (const input i : {input::equal, input::three}) {
    EXPECT_EQ((split_and_check<Key, ascending_less>(odd, i, true).most_merges), 0u) << to_string(i);
  }
}

TEST(SampleRefine, SubBucketsOfAboutATile) {
  expect_refined_sub_buckets<std::int32_t>();
  expect_refined_sub_buckets<double>();
}

// Small refined splits for compute-sanitizer (scripts/gpu-check runs Sanitize* under memcheck,
// racecheck, synccheck and initcheck): buckets cut into three sub-buckets, equality buckets.
TEST(SanitizeRefine, SplitAndRefine) {
  split_and_check<std::int32_t, ascending_less>((std::size_t{1} << 22) + 5, input::uniform, true);
  split_and_check<double, descending_less>((std::size_t{1} << 21) + 5, input::few, true);
  split_and_check<float, ascending_less>(3 * tuning::optimized<4>::tile_keys + 5, input::equal,
                                         true);
}

// The split and its refinement captured in a CUDA graph on a stream of its own and replayed twice
// (the input uploaded again before each): neither synchronises with anything on the host.
TEST(SampleSplit, CapturedInGraph) {
  using Key = float;
  const std::size_t n = (std::size_t{1} << 18) + 5;
  const std::uint64_t seed = input_seed(n, input::special);
  const std::vector<Key> keys = make_input<Key>(n, input::special, seed);
  split_buffers<Key> buffers(n, true);
  cuda_stream stream;
  buffers.launch<descending_less>(stream.get());  // kernels loaded before the capture
  BITONIC_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  cudaGraph_t graph = nullptr;
  BITONIC_CUDA_CHECK(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeThreadLocal));
  buffers.launch<descending_less>(stream.get());
  BITONIC_CUDA_CHECK(cudaStreamEndCapture(stream.get(), &graph));
  cudaGraphExec_t exec = nullptr;
  BITONIC_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 2; ++replay) {
    buffers.in.upload(keys, stream.get());
    BITONIC_CUDA_CHECK(cudaMemsetAsync(buffers.out.get(), 0, n * sizeof(Key), stream.get()));
    BITONIC_CUDA_CHECK(cudaMemsetAsync(buffers.sub.get(), 0, n * sizeof(Key), stream.get()));
    BITONIC_CUDA_CHECK(cudaGraphLaunch(exec, stream.get()));
    expect_split_result<Key, descending_less>(
        keys, buffers.download(stream.get()), buffers.tile_log2, buffers.buckets(), buffers.tiles(),
        false,
        describe<Key, descending_less>(n, input::special, seed, true) + " replay " +
            std::to_string(replay));
  }
  BITONIC_CUDA_CHECK(cudaGraphExecDestroy(exec));
  BITONIC_CUDA_CHECK(cudaGraphDestroy(graph));
}

}  // namespace
}  // namespace bitonic::test
