// bitonic::sort(d_in, d_out, n) on the device: d_out against std::sort and d_in unchanged bit for
// bit, for every key type, order and distribution, at lengths whose plans start with a pass over
// tiles (which reads d_in itself) and at lengths whose plans copy first (one launch on a cluster,
// a few tiles, other algorithms); the same array twice (in place), overlapping arrays refused,
// the workspace (exact size, one byte less, overlapping d_in), stable float keys against
// std::stable_sort, the 1- and 2-byte keys against sort_on_cpu. Seeds: test::case_seed(n, d).
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "bitonic/bitonic.hpp"
#include "common_test.hpp"
#include "device_memory.hpp"

namespace bitonic {
namespace {

using test::device_array;
using test::matches_reference;
using test::same_bits;
using tools::distribution;

//! Sorts `input` from one device array into another with opt; checks the output against
//! `expected` (equivalent order, same multiset) and the input array against `input` bit for bit.
template <class Key>
void expect_sorts_out_of_place(const std::vector<Key>& input, const std::vector<Key>& expected,
                               const options& opt, const std::string& label) {
  const std::size_t n = input.size();
  device_array<Key> in(n), out(n);
  in.upload(input, opt.stream);
  sort(static_cast<const Key*>(in.get()), out.get(), n, opt);
  EXPECT_TRUE(matches_reference(out.download(opt.stream), expected)) << label;
  EXPECT_TRUE(same_bits(in.download(opt.stream), input)) << label << ": d_in changed";
}

template <class Key>
class OutOfPlace : public ::testing::Test {};
TYPED_TEST_SUITE(OutOfPlace, test::key_types, test::key_type_names);

// Lengths: tiny, around a warp's and a tile's keys, the cluster sizes (2^14..2^16: copied first),
// the few-tiles plans (2^17..2^20: the first pass reads d_in), past the L2 block (merges out of
// place through the scratch, whose first pass writes to the scratch or to d_out by the parity of
// the merges: 2^23 + 12345 and 2^24 + 1 have one more merge than the other).
TYPED_TEST(OutOfPlace, MatchesStdSortAndLeavesTheInputAlone) {
  using Key = TypeParam;
  const std::vector<std::size_t> lengths = {0,
                                            1,
                                            2,
                                            3,
                                            1023,
                                            1025,
                                            4097,
                                            16383,
                                            65537,
                                            (1u << 17) + 3,
                                            1u << 20,
                                            (1u << 23) + 12345,
                                            (1u << 24) + 1};
  for (const std::size_t n : lengths) {
    const bool large = n > (1u << 20);
    for (const distribution d : tools::all_distributions) {
      if (large && d != distribution::uniform && d != distribution::few) continue;
      const test::reference_case<Key> c = test::make_reference_case<Key>(n, d);
      for (const order direction : test::all_orders) {
        expect_sorts_out_of_place(
            c.input, c.expected_for(direction), {direction},
            test::describe_case<Key>(n, d, c.seed, direction, algorithm::automatic));
      }
    }
  }
}

// Every algorithm, on lengths where each has a plan of several passes; all but optimized copy
// d_in into d_out first.
TYPED_TEST(OutOfPlace, EveryAlgorithm) {
  using Key = TypeParam;
  for (const std::size_t n : {std::size_t{4097}, std::size_t{300001}}) {
    const test::reference_case<Key> c = test::make_reference_case<Key>(n, distribution::uniform);
    for (const algorithm algo : test::all_algorithms) {
      for (const order direction : test::all_orders) {
        expect_sorts_out_of_place(
            c.input, c.expected_for(direction), {direction, algo},
            test::describe_case<Key>(n, distribution::uniform, c.seed, direction, algo));
      }
    }
  }
}

TEST(OutOfPlaceArrays, TheSameArrayTwiceSortsInPlace) {
  const std::size_t n = 70001;
  const std::vector<float> input =
      tools::generate<float>(n, distribution::uniform, test::case_seed(n, distribution::uniform));
  device_array<float> keys(n);
  keys.upload(input);
  sort(static_cast<const float*>(keys.get()), keys.get(), n);
  EXPECT_TRUE(matches_reference(keys.download(), tools::reference_sort(input, order::ascending)));
}

TEST(OutOfPlaceArrays, OverlappingArraysAreRefusedAndLeftAlone) {
  const std::size_t n = 1000;
  const std::vector<std::int32_t> input =
      tools::generate<std::int32_t>(n + 1, distribution::uniform, 4242);
  device_array<std::int32_t> keys(n + 1);
  keys.upload(input);
  EXPECT_TRUE(test::throws_error(
      [&] { sort(static_cast<const std::int32_t*>(keys.get()), keys.get() + 1, n); },
      "d_in and d_out overlap"));
  EXPECT_TRUE(same_bits(keys.download(), input));
  std::vector<std::int32_t> host(n);
  EXPECT_TRUE(test::throws_error(
      [&] { sort(static_cast<const std::int32_t*>(keys.get()), host.data(), n); }, "d_out"));
  EXPECT_TRUE(test::throws_error(
      [&] { sort(static_cast<const std::int32_t*>(nullptr), keys.get(), n); }, "d_in"));
  EXPECT_TRUE(same_bits(keys.download(), input));
}

// Past the L2 block the plan needs a scratch: the exact workspace_bytes works, one byte less
// throws naming the size and leaves both arrays alone, a workspace over d_in is refused.
TEST(OutOfPlaceArrays, Workspace) {
  const std::size_t n = (std::size_t{1} << 23) + 3;
  const std::vector<std::uint32_t> input = tools::generate<std::uint32_t>(
      n, distribution::uniform, test::case_seed(n, distribution::uniform));
  device_array<std::uint32_t> in(n), out(n);
  in.upload(input);
  const std::vector<std::uint32_t> untouched(n, 7u);
  out.upload(untouched);
  const std::size_t bytes = workspace_bytes<std::uint32_t>(n);
  ASSERT_GT(bytes, 0u) << "2^23 keys should need scratch on this device";
  device_array<unsigned char> workspace(bytes);
  options opt;
  opt.workspace = workspace.get();
  opt.workspace_bytes = bytes - 1;
  const auto* source = static_cast<const std::uint32_t*>(in.get());
  EXPECT_TRUE(test::throws_error([&] { sort(source, out.get(), n, opt); },
                                 {"workspace", std::to_string(bytes)}));
  EXPECT_TRUE(same_bits(out.download(), untouched));
  // d_in at the front of an allocation that also holds a whole workspace over it.
  device_array<std::uint32_t> shared(n + bytes / sizeof(std::uint32_t) + 1);
  shared.upload(input);
  options over_input;
  over_input.workspace = shared.get();
  over_input.workspace_bytes = bytes;
  EXPECT_TRUE(test::throws_error(
      [&] { sort(static_cast<const std::uint32_t*>(shared.get()), out.get(), n, over_input); },
      "options.workspace overlaps d_in"));
  EXPECT_TRUE(same_bits(out.download(), untouched));
  opt.workspace_bytes = bytes;
  sort(source, out.get(), n, opt);
  EXPECT_TRUE(matches_reference(out.download(), tools::reference_sort(input, order::ascending)));
  EXPECT_TRUE(same_bits(in.download(), input));
}

// Stable float keys (equivalent keys that differ in bits keep their order): bit for bit
// std::stable_sort, through a copy and the stable sort in place.
TEST(OutOfPlaceArrays, StableFloatsMatchStdStableSort) {
  for (const distribution d : {distribution::nan, distribution::few}) {
    const std::size_t n = 100003;
    const std::uint64_t seed = test::case_seed(n, d);
    const std::vector<double> input = tools::generate<double>(n, d, seed);
    for (const order direction : test::all_orders) {
      std::vector<double> expected = input;
      if (direction == order::ascending) {
        std::stable_sort(expected.begin(), expected.end(), ascending_less{});
      } else {
        std::stable_sort(expected.begin(), expected.end(), descending_less{});
      }
      device_array<double> in(n), out(n);
      in.upload(input);
      options opt{direction};
      opt.stable = true;
      sort(static_cast<const double*>(in.get()), out.get(), n, opt);
      EXPECT_TRUE(same_bits(out.download(), expected))
          << test::describe_case<double>(n, d, seed, direction, algorithm::automatic);
      EXPECT_TRUE(same_bits(in.download(), input));
    }
  }
}

template <class Key>
class OutOfPlaceSmallKeys : public ::testing::Test {};
TYPED_TEST_SUITE(OutOfPlaceSmallKeys, test::small_key_types, test::key_type_names);

// 1- and 2-byte keys widen from d_in and narrow into d_out: sort_on_cpu's bits.
TYPED_TEST(OutOfPlaceSmallKeys, MatchSortOnCpuBitForBit) {
  using Key = TypeParam;
  for (const std::size_t n :
       {std::size_t{1}, std::size_t{2}, std::size_t{5000}, std::size_t{1} << 20}) {
    for (const distribution d : tools::all_distributions) {
      const std::uint64_t seed = test::case_seed(n, d);
      const std::vector<Key> input = tools::generate<Key>(n, d, seed);
      for (const order direction : test::all_orders) {
        std::vector<Key> expected = input;
        sort_on_cpu(expected.data(), n, {direction});
        device_array<Key> in(n), out(n);
        in.upload(input);
        sort(static_cast<const Key*>(in.get()), out.get(), n, {direction});
        EXPECT_TRUE(same_bits(out.download(), expected))
            << test::describe_case<Key>(n, d, seed, direction, algorithm::automatic);
        EXPECT_TRUE(same_bits(in.download(), input));
      }
    }
  }
}

}  // namespace
}  // namespace bitonic
