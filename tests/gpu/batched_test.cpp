// bitonic::sort_batched on the device against std::sort of every array on its own: every key
// type and order, every array size 0..300, powers of two and their neighbours up to 2^17 (one
// tile and past it: the sort_rows pass, the optimized passes of one array, on rows of missing keys
// past the size), rows around the longest tail a head-and-tail row takes, every distribution of
// tools::generate (NaN and -0.0 included); keys behind the batch untouched; rows of 2 to 32 keys
// (short rows) and head-and-tail rows at every alignment; the workspace (none up to a tile; past
// it exactly batched_workspace_bytes sorts, one byte less throws); rows past a tile beyond the L2
// block; argsort_batched, sort_batched_pairs and stable sort_batched against std::stable_sort of
// every array, for every key type (1- and 2-byte keys too); calls queued back to back on a
// stream; refusals with the keys untouched.
// Seeds: test::case_seed(size, distribution), printed with every failure.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <future>
#include <sstream>
#include <string>
#include <vector>

#include "bitonic/bitonic.hpp"
#include "bitonic/cuda_helpers.hpp"
#include "common_test.hpp"
#include "device_memory.hpp"

namespace bitonic {
namespace {

using test::device_array;
using tools::distribution;

//! Each of `arrays` arrays of `size` keys of `input` sorted by std::sort in `direction`.
template <class Key>
std::vector<Key> sorted_arrays(std::vector<Key> input, std::size_t arrays, std::size_t size,
                               order direction) {
  for (std::size_t a = 0; a < arrays; ++a) {
    const auto first = input.begin() + std::ptrdiff_t(a * size);
    if (direction == order::ascending) {
      std::sort(first, first + std::ptrdiff_t(size), ascending_less{});
    } else {
      std::sort(first, first + std::ptrdiff_t(size), descending_less{});
    }
  }
  return input;
}

//! Array sizes: every one up to 300, then 2^k - 1, 2^k, 2^k + 1 up to 2^17, sizes around the
//! largest tail that rows sort as a head and a tail, and a few sizes past a tile that are far from
//! powers of two.
std::vector<std::size_t> array_sizes() {
  std::vector<std::size_t> sizes;
  for (std::size_t m = 0; m <= 300; ++m)
    sizes.push_back(m);
  for (unsigned k = 9; k <= 17; ++k) {
    const std::size_t p = std::size_t{1} << k;
    sizes.insert(sizes.end(), {p - 1, p, p + 1});
  }
  // Heads and tails (sort_row_tails.cuh) up to the longest tail (half the head) and past it.
  sizes.insert(sizes.end(), {320,  321,  384,  385,  700,  1300,  1536,  1537,  2500,  2561,  3000,
                             3072, 3073, 5000, 6144, 6145, 10000, 12288, 12289, 24577, 100003});
  // Tails of 257, 652, 604 and 1308 keys (just past a power of two, and not).
  sizes.insert(sizes.end(), {2305, 2700, 4700, 9500});
  return sizes;
}

//! Arrays in a batch of arrays of `size` keys: an odd count (never a power of two past 1), about
//! 2^17 keys in all, at least 3 while that stays small.
std::size_t arrays_for(std::size_t size) {
  if (size == 0) return 5;
  const std::size_t arrays = std::max<std::size_t>(3, (std::size_t{1} << 17) / size) | 1;
  return size > (std::size_t{1} << 16) ? 3 : arrays;
}

//! Whether a and b hold the same bits (NaNs compare as their bits, unlike ==).
template <class Key>
bool identical(const std::vector<Key>& a, const std::vector<Key>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(Key)) == 0;
}

std::string describe(std::string_view type, std::size_t arrays, std::size_t size, distribution d,
                     std::uint64_t seed, order direction) {
  std::ostringstream out;
  out << type << ' ' << arrays << " arrays of " << size << " keys, distribution "
      << tools::to_string(d) << " seed=" << seed << " order=" << test::to_string(direction);
  return out.str();
}

template <class Key>
class BatchedGpu : public ::testing::Test {};
TYPED_TEST_SUITE(BatchedGpu, test::key_types, test::key_type_names);

// Sizes up to 300 cycle through the distributions (every one of them every 7 sizes); the larger
// sizes get all of them. Past the batch lie guard keys that must come back unchanged.
TYPED_TEST(BatchedGpu, EveryArrayMatchesStdSort) {
  using Key = TypeParam;
  constexpr std::size_t guard = 257;
  const cuda_stream stream;
  for (const std::size_t size : array_sizes()) {
    const std::size_t arrays = arrays_for(size), n = arrays * size;
    std::vector<distribution> distributions(std::begin(tools::all_distributions),
                                            std::end(tools::all_distributions));
    if (size <= 300) {
      distributions = {distribution::uniform,
                       tools::all_distributions[size % std::size(tools::all_distributions)]};
    }
    const std::vector<Key> guard_keys = tools::generate<Key>(
        guard, distribution::uniform, test::case_seed(guard, distribution::uniform));
    device_array<Key> keys(n + guard);
    std::vector<std::future<::testing::AssertionResult>> verdicts;
    std::vector<std::string> labels;
    for (const distribution d : distributions) {
      const std::uint64_t seed = test::case_seed(size, d);
      std::vector<Key> input = tools::generate<Key>(n, d, seed);
      for (const order direction : test::all_orders) {
        std::vector<Key> with_guard = input;
        with_guard.insert(with_guard.end(), guard_keys.begin(), guard_keys.end());
        keys.upload(with_guard, stream.get());
        options opt;
        opt.direction = direction;
        opt.stream = stream.get();
        sort_batched(keys.get(), arrays, size, opt);
        std::vector<Key> result = keys.download(stream.get());
        labels.push_back(describe(tools::type_name<Key>(), arrays, size, d, seed, direction));
        verdicts.push_back(std::async(std::launch::async, [=, r = std::move(result)] {
          std::vector<Key> got(r.begin(), r.begin() + std::ptrdiff_t(n));
          const std::vector<Key> tail(r.begin() + std::ptrdiff_t(n), r.end());
          if (!identical(tail, guard_keys)) {
            return ::testing::AssertionFailure() << "keys behind the batch changed";
          }
          return test::matches_reference(got, sorted_arrays(input, arrays, size, direction));
        }));
      }
    }
    for (std::size_t i = 0; i < verdicts.size(); ++i)
      EXPECT_TRUE(verdicts[i].get()) << labels[i];
  }
}

// Calls queued one after another on a stream, the host not waiting between them: each call's
// first kernel is chained to the previous call's last (programmatic dependent launch), and the
// head kernel of rows with a tail sorts its heads before it waits for the tails' pass (PERFORMANCE
// log 83). A descending sort, an ascending one, then argsort_batched of the sorted rows with their
// keys (stable: the identity), for every road a row takes (short, staged, tile, head and tail,
// tail of one, padded, past a tile); a kernel that read its rows before the previous call had
// written them would mix two calls' keys.
TYPED_TEST(BatchedGpu, CallsBackToBackOnAStream) {
  using Key = TypeParam;
  const cuda_stream stream;
  for (const std::size_t size :
       {3u, 32u, 100u, 300u, 1300u, 2049u, 2561u, 3000u, 3073u, 4097u, 5000u, 20000u}) {
    const std::size_t arrays = arrays_for(size), n = arrays * size;
    const std::uint64_t seed = test::case_seed(size, distribution::uniform);
    const std::vector<Key> input = tools::generate<Key>(n, distribution::uniform, seed);
    const std::string what = describe(tools::type_name<Key>(), arrays, size, distribution::uniform,
                                      seed, order::ascending) +
                             " (descending, ascending, argsort, queued)";
    device_array<Key> keys(n), sorted_keys(n);
    device_array<std::uint32_t> indices(n);
    keys.upload(input, stream.get());
    options opt;
    opt.stream = stream.get();
    opt.direction = order::descending;
    sort_batched(keys.get(), arrays, size, opt);
    opt.direction = order::ascending;
    sort_batched(keys.get(), arrays, size, opt);
    argsort_batched(keys.get(), sorted_keys.get(), indices.get(), arrays, size, opt);
    const std::vector<Key> got = keys.download(stream.get());
    EXPECT_TRUE(test::matches_reference(got, sorted_arrays(input, arrays, size, order::ascending)))
        << what;
    EXPECT_TRUE(identical(sorted_keys.download(stream.get()), got)) << what << ", argsort's keys";
    const std::vector<std::uint32_t> got_indices = indices.download(stream.get());
    std::size_t first_wrong = n;
    for (std::size_t i = 0; i < n && first_wrong == n; ++i)
      if (got_indices[i] != i % size) first_wrong = i;
    EXPECT_EQ(first_wrong, n) << what << ", argsort of sorted rows is not the identity";
  }
}

// Short rows (16 to 128 bytes, a power of two of keys, at a 16-byte aligned start) sort one, two
// or four lanes a row (sort_short_rows.cuh), others in the register tile: the keys at every offset
// from an aligned start take both ways. Heads and tails (sort_row_tails.cuh) store aligned 32-byte
// blocks, the tile's first and last words apart: every offset. The keys around the batch stay
// untouched.
TYPED_TEST(BatchedGpu, RowsAtEveryAlignment) {
  using Key = TypeParam;
  constexpr std::size_t before = 3, after = 5;
  for (const std::size_t size :
       {2u, 3u, 4u, 7u, 8u, 16u, 31u, 32u, 300u, 700u, 1300u, 2561u, 3000u}) {
    const std::size_t arrays = size <= 32 ? 1001 : 41, n = arrays * size;
    const std::uint64_t seed = test::case_seed(size, distribution::few);
    const std::vector<Key> all = tools::generate<Key>(before + n + after, distribution::few, seed);
    device_array<Key> keys(all.size());
    for (std::size_t offset = 0; offset <= before; ++offset) {
      for (const order direction : test::all_orders) {
        keys.upload(all);
        options opt;
        opt.direction = direction;
        sort_batched(keys.get() + offset, arrays, size, opt);
        std::vector<Key> expected = all;
        const std::vector<Key> batch(all.begin() + std::ptrdiff_t(offset),
                                     all.begin() + std::ptrdiff_t(offset + n));
        const std::vector<Key> sorted = sorted_arrays(batch, arrays, size, direction);
        std::copy(sorted.begin(), sorted.end(), expected.begin() + std::ptrdiff_t(offset));
        EXPECT_TRUE(test::matches_reference(keys.download(), expected))
            << describe(tools::type_name<Key>(), arrays, size, distribution::few, seed, direction)
            << " at an offset of " << offset << " keys";
      }
    }
  }
}

// Arrays longer than a tile whose size is not a power of two sort in place as rows of the next
// power of two positions (plan::plan::row_log2), no padding in memory: no workspace for any size.
// Arrays of up to a tile sort in place; longer ones merge out of place through a scratch of as
// many keys: exactly batched_workspace_bytes of the caller's sorts (at any alignment), one byte
// less is refused with the size it needs and the keys untouched.
TYPED_TEST(BatchedGpu, WorkspacePastATile) {
  using Key = TypeParam;
  const std::size_t tile = sizeof(Key) == 4 ? std::size_t{1} << 14 : std::size_t{1} << 13;
  for (const std::size_t size : {std::size_t{300}, tile}) {
    EXPECT_EQ(batched_workspace_bytes<Key>(3, size), 0u) << "arrays of " << size;
  }
  for (const std::size_t size : {tile + 3, std::size_t{1} << 15, std::size_t{100003}}) {
    const std::size_t arrays = 3, n = arrays * size;
    const std::size_t bytes = batched_workspace_bytes<Key>(arrays, size);
    EXPECT_GE(bytes, n * sizeof(Key)) << "arrays of " << size;
    const std::uint64_t seed = test::case_seed(size, distribution::uniform);
    const std::vector<Key> input = tools::generate<Key>(n, distribution::uniform, seed);
    device_array<Key> keys(n);
    device_buffer<std::byte> workspace(bytes + 1);
    for (const std::size_t offset : {0u, 1u}) {
      keys.upload(input);
      sort_batched(keys.get(), arrays, size,
                   {.workspace = workspace.get() + offset, .workspace_bytes = bytes});
      EXPECT_TRUE(test::matches_reference(keys.download(),
                                          sorted_arrays(input, arrays, size, order::ascending)))
          << describe(tools::type_name<Key>(), arrays, size, distribution::uniform, seed,
                      order::ascending)
          << " workspace offset " << offset;
    }
    keys.upload(input);
    EXPECT_TRUE(test::throws_error(
        [&] {
          sort_batched(keys.get(), arrays, size,
                       {.workspace = workspace.get(), .workspace_bytes = bytes - 1});
        },
        {"workspace_bytes is " + std::to_string(bytes - 1),
         "needs " + std::to_string(bytes) + " bytes", "batched_workspace_bytes"}));
    EXPECT_EQ(keys.download(), input) << "arrays of " << size;
  }
}

// Rows past a tile whose positions exceed the L2 block (plan::device_shape::block_log2, 2^22
// four-byte or 2^21 eight-byte keys on an H100) run their passes block by block, each block's
// keys starting where its first row's are in memory (plan::plan::stored_index).
TYPED_TEST(BatchedGpu, RowsPastACacheBlock) {
  using Key = TypeParam;
  for (const std::size_t size :
       {(std::size_t{1} << 14) + 1, std::size_t{40000}, std::size_t{1} << 16}) {
    const std::size_t arrays = ((std::size_t{1} << 23) >> std::bit_width(size - 1)) | 1;
    for (const distribution d : {distribution::uniform, distribution::few}) {
      const std::uint64_t seed = test::case_seed(size, d);
      const std::vector<Key> input = tools::generate<Key>(arrays * size, d, seed);
      device_array<Key> keys(input.size());
      for (const order direction : test::all_orders) {
        keys.upload(input);
        sort_batched(keys.get(), arrays, size, {.direction = direction});
        EXPECT_TRUE(
            test::matches_reference(keys.download(), sorted_arrays(input, arrays, size, direction)))
            << describe(tools::type_name<Key>(), arrays, size, d, seed, direction);
      }
    }
  }
}

//! Array a of `all` (arrays of `size` elements).
template <class T>
std::vector<T> array_of(const std::vector<T>& all, std::size_t a, std::size_t size) {
  return std::vector<T>(all.begin() + std::ptrdiff_t(a * size),
                        all.begin() + std::ptrdiff_t((a + 1) * size));
}

// argsort_batched against std::stable_sort of every array's positions, exactly; sort_batched_pairs
// with each record's index in its array as the value (uint32: for 4-byte keys the packed path
// when not stable; uint64: positions and a gather), stable ones exactly in std::stable_sort's
// order, unstable ones as a permutation of the records; sort_batched with options::stable bit for
// bit against std::stable_sort (-0.0/+0.0 and NaN payloads keep their order).
template <class Key, class Value>
void expect_batched_pairs(const std::vector<Key>& input, std::size_t arrays, std::size_t size,
                          order direction, bool stable, const std::string& what) {
  std::vector<Value> columns(arrays * size);
  for (std::size_t i = 0; i < columns.size(); ++i)
    columns[i] = Value(size == 0 ? 0 : i % size);
  device_array<Key> keys(input.size());
  device_array<Value> values(input.size());
  keys.upload(input);
  values.upload(columns);
  options opt;
  opt.direction = direction;
  opt.stable = stable;
  sort_batched_pairs(keys.get(), values.get(), arrays, size, opt);
  const std::vector<Key> sorted = keys.download();
  const std::vector<Value> moved = values.download();
  for (std::size_t a = 0; a < arrays; ++a) {
    const std::vector<Key> row = array_of(input, a, size);
    const std::vector<std::uint64_t> exact = test::stable_order(row, direction);
    EXPECT_TRUE(test::sorted_records(array_of(sorted, a, size), array_of(moved, a, size), row,
                                     direction, stable ? &exact : nullptr))
        << what << " sort_batched_pairs, " << sizeof(Value) << "-byte values, stable " << stable
        << ", array " << a;
  }
}

//! argsort_batched into Index indices (with the sorted keys too when with_keys) against
//! std::stable_sort of every array's positions, exactly; the keys untouched.
template <class Key, class Index>
void expect_batched_argsort(const std::vector<Key>& input, std::size_t arrays, std::size_t size,
                            order direction, bool with_keys, const std::string& what) {
  const std::size_t n = input.size();
  device_array<Key> keys(n), sorted(n);
  device_array<Index> indices(n);
  keys.upload(input);
  if (with_keys) {
    argsort_batched(keys.get(), sorted.get(), indices.get(), arrays, size,
                    {.direction = direction});
  } else {
    argsort_batched(keys.get(), indices.get(), arrays, size, {.direction = direction});
  }
  const std::vector<Index> got = indices.download();
  const std::vector<Key> got_keys = with_keys ? sorted.download() : std::vector<Key>{};
  EXPECT_TRUE(identical(keys.download(), input)) << what << " argsort_batched moved keys";
  const std::string form = what + " argsort_batched, " + std::to_string(sizeof(Index)) +
                           "-byte indices" + (with_keys ? " and sorted keys" : "");
  for (std::size_t a = 0; a < arrays; ++a) {
    const std::vector<Key> row = array_of(input, a, size);
    const std::vector<std::uint64_t> exact = test::stable_order(row, direction);
    const std::vector<Index> got_row = array_of(got, a, size);
    EXPECT_TRUE(std::equal(got_row.begin(), got_row.end(), exact.begin(), exact.end()))
        << form << ", array " << a;
    if (!with_keys) continue;
    std::vector<Key> want(size);
    for (std::size_t j = 0; j < size; ++j)
      want[j] = row[exact[j]];
    EXPECT_TRUE(identical(array_of(got_keys, a, size), want)) << form << ", keys of array " << a;
  }
}

template <class Key>
class BatchedRecordsGpu : public ::testing::Test {};
TYPED_TEST_SUITE(BatchedRecordsGpu, test::record_key_types, test::key_type_names);

TYPED_TEST(BatchedRecordsGpu, MatchStableSortOfEveryArray) {
  using Key = TypeParam;
  // Heads and tails of records (sort_row_tails.cuh, takes_records): 129 to 6145, a tail of one
  // element up to the longest (an eighth of a short head, half a long one) and past it.
  for (const std::size_t size :
       {0u,    1u,    2u,    3u,    5u,    17u,   32u,    33u,   100u,  129u,
        144u,  145u,  300u,  385u,  1024u, 1152u, 1153u,  2049u, 3072u, 3073u,
        4097u, 6144u, 6145u, 8191u, 8192u, 8193u, 16387u, 32768u}) {
    const std::size_t arrays = std::min<std::size_t>(arrays_for(size), 65) | 1;
    const std::size_t n = arrays * size;
    for (const distribution d : {distribution::uniform, distribution::few, distribution::nan}) {
      const std::uint64_t seed = test::case_seed(size, d);
      const std::vector<Key> input = tools::generate<Key>(n, d, seed);
      for (const order direction : test::all_orders) {
        const std::string what =
            describe(tools::type_name<Key>(), arrays, size, d, seed, direction);
        expect_batched_argsort<Key, std::uint32_t>(input, arrays, size, direction, false, what);
        expect_batched_argsort<Key, std::uint64_t>(input, arrays, size, direction, false, what);
        expect_batched_argsort<Key, std::uint32_t>(input, arrays, size, direction, true, what);
        expect_batched_argsort<Key, std::uint64_t>(input, arrays, size, direction, true, what);
        for (const bool stable : {false, true}) {
          expect_batched_pairs<Key, std::uint32_t>(input, arrays, size, direction, stable, what);
        }
        expect_batched_pairs<Key, std::uint64_t>(input, arrays, size, direction, true, what);

        device_array<Key> keys(n);
        keys.upload(input);
        sort_batched(keys.get(), arrays, size, {.direction = direction, .stable = true});
        std::vector<Key> want = input;
        for (std::size_t a = 0; a < arrays; ++a) {
          const auto first = want.begin() + std::ptrdiff_t(a * size);
          if (direction == order::ascending) {
            std::stable_sort(first, first + std::ptrdiff_t(size), ascending_less{});
          } else {
            std::stable_sort(first, first + std::ptrdiff_t(size), descending_less{});
          }
        }
        EXPECT_TRUE(identical(keys.download(), want)) << what << " sort_batched, stable";
      }
    }
  }
}

TEST(BatchedGpuErrors, RefusedWithTheReasonAndKeysUntouched) {
  const std::vector<float> input = {3.0f, -1.0f, 2.0f, 0.5f};
  device_array<float> keys(input.size());
  keys.upload(input);
  options stable;
  stable.stable = true;
  options merge;
  merge.algo = algorithm::block_merge;
  EXPECT_TRUE(test::throws_error([&] { sort_batched(keys.get(), 2, 2, merge); },
                                 {"sort_batched", "block_merge"}));
  device_array<std::uint32_t> indices(input.size());
  EXPECT_TRUE(test::throws_error([&] { argsort_batched(keys.get(), indices.get(), 2, 2, merge); },
                                 {"argsort_batched", "block_merge"}));
  EXPECT_TRUE(test::throws_error(
      [&] { sort_batched_pairs(keys.get(), reinterpret_cast<float*>(keys.get()) + 1, 1, 3); },
      {"sort_batched_pairs", "overlap"}));
  EXPECT_TRUE(test::throws_error(
      [&] { argsort_batched(keys.get(), indices.get(), std::size_t{1} << 31, 4); }, "2^32"));
  EXPECT_TRUE(test::throws_error(
      [&] { sort_batched(keys.get(), std::size_t{1} << 40, std::size_t{1} << 40); }, "overflow"));
  EXPECT_TRUE(test::throws_error([&] { sort_batched<float>(nullptr, 2, 2); }, "sort_batched"));
  std::vector<float> host = input;
  EXPECT_TRUE(test::throws_error([&] { sort_batched(host.data(), 2, 2); }, "sort_batched"));
  EXPECT_TRUE(identical(keys.download(), input)) << "keys changed by a refused call";
  sort_batched<float>(nullptr, 0, 5);  // nothing to sort: no error
  sort_batched<float>(nullptr, 7, 0);
  sort_batched(keys.get(), 4, 1);  // arrays of one key are sorted already
  EXPECT_TRUE(identical(keys.download(), input));
  // Integer keys are the same stable or not, so stable is accepted for them.
  device_array<std::int32_t> ints(4);
  ints.upload({4, 3, 2, 1});
  sort_batched(ints.get(), 2, 2, stable);
  EXPECT_EQ(ints.download(), (std::vector<std::int32_t>{3, 4, 1, 2}));
}

}  // namespace
}  // namespace bitonic
