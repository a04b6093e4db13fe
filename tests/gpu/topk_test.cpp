// bitonic::topk and topk_host on the device against std::partial_sort of every array's positions
// (test::topk_reference: equal keys in position order): every key type, both orders, k in {1, 2,
// 31, 32, 33, 100, 1024, 2048, 2049, n - 1, n} where it fits, arrays from 1 key to past a tile
// and one of 3 * 2^20 + 5 keys, every distribution of tools::generate (NaN, all-equal and few
// distinct keys), rows of -0.0, +0.0 and NaNs, both index types, keys-only and indices-only
// outputs; outputs past the k of each array untouched; the workspace; refusals with the outputs
// untouched. 4-byte keys with k <= 2048 take the select path (topk_select.cuh: arrays of more than
// 8192 keys in several parts, and passes over their candidates), the rest the argsort path: both
// are covered by the key types and the k of the list. 1- and 2-byte keys (their class words'
// topk, keys gathered by index) take the same tests but the long arrays, which only their words'
// path would see. Seeds: test::case_seed(n, distribution),
// printed with every failure.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
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

//! The k of the acceptance list that are at most n, and 0.
std::vector<std::size_t> ks_for(std::size_t n) {
  std::vector<std::size_t> ks;
  for (const std::size_t k : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{31},
                              std::size_t{32}, std::size_t{33}, std::size_t{100}, std::size_t{1024},
                              std::size_t{2048}, std::size_t{2049}, n - 1, n}) {
    if (k <= n && std::find(ks.begin(), ks.end(), k) == ks.end()) ks.push_back(k);
  }
  return ks;
}

std::string describe(std::string_view type, std::size_t batch, std::size_t n, std::size_t k,
                     distribution d, std::uint64_t seed, order direction) {
  std::ostringstream out;
  out << type << " topk k=" << k << " of " << batch << " arrays of " << n << " keys, distribution "
      << tools::to_string(d) << " seed=" << seed << " order=" << test::to_string(direction);
  return out.str();
}

//! Runs topk on `input` (batch arrays of n) with both outputs (or only one when `which` says so)
//! and checks them against the reference. Output buffers are one element longer than batch * k,
//! with a guard there that must survive.
template <class Key, class Index>
::testing::AssertionResult topk_matches(const std::vector<Key>& input, std::size_t batch,
                                        std::size_t n, std::size_t k, order direction,
                                        cudaStream_t stream, int which = 0) {
  device_array<Key> keys(input.size());
  keys.upload(input, stream);
  const std::size_t outputs = batch * k;
  device_array<Key> out_keys(outputs + 1);
  device_array<Index> out_indices(outputs + 1);
  const std::vector<Key> key_guard(outputs + 1, Key(7));
  const std::vector<Index> index_guard(outputs + 1, Index(12345));
  out_keys.upload(key_guard, stream);
  out_indices.upload(index_guard, stream);
  options opt;
  opt.direction = direction;
  opt.stream = stream;
  topk(keys.get(), batch, n, k, which == 2 ? nullptr : out_keys.get(),
       which == 1 ? nullptr : out_indices.get(), opt);
  std::vector<Key> got_keys = out_keys.download(stream);
  std::vector<Index> got_indices = out_indices.download(stream);
  if (std::memcmp(&got_keys[outputs], &key_guard[0], sizeof(Key)) != 0 ||
      got_indices[outputs] != index_guard[0]) {
    return ::testing::AssertionFailure() << "an output past batch * k changed";
  }
  got_keys.resize(outputs);
  got_indices.resize(outputs);
  if (which == 2) {
    if (outputs != 0 &&
        std::memcmp(got_keys.data(), key_guard.data(), outputs * sizeof(Key)) != 0) {
      return ::testing::AssertionFailure() << "keys written though d_out_keys was null";
    }
    got_keys.clear();
  }
  if (which == 1) {
    if (!std::equal(got_indices.begin(), got_indices.end(), index_guard.begin())) {
      return ::testing::AssertionFailure() << "indices written though d_out_indices was null";
    }
    got_indices.clear();
  }
  const std::vector<Key> after = keys.download(stream);
  if (!input.empty() && std::memcmp(after.data(), input.data(), input.size() * sizeof(Key)) != 0) {
    return ::testing::AssertionFailure() << "topk changed its input";
  }
  return test::matches_topk(got_keys, got_indices, input, batch, n, k, direction);
}

template <class Key>
class TopKGpu : public ::testing::Test {};
TYPED_TEST_SUITE(TopKGpu, test::record_key_types, test::key_type_names);

// Array lengths from one key to past a tile (2^14 four-byte keys), each with every k of the list;
// lengths cycle through the distributions, both orders each.
TYPED_TEST(TopKGpu, EveryKMatchesPartialSort) {
  using Key = TypeParam;
  const cuda_stream stream;
  const std::size_t lengths[] = {1, 2, 3, 31, 33, 100, 1000, 2048, 2049, 4097, 20000, 70001};
  for (std::size_t i = 0; i < std::size(lengths); ++i) {
    const std::size_t n = lengths[i];
    const std::size_t batch = n > 10000 ? 2 : 5;
    const distribution d = tools::all_distributions[i % std::size(tools::all_distributions)];
    const std::uint64_t seed = test::case_seed(n, d);
    const std::vector<Key> input = tools::generate<Key>(batch * n, d, seed);
    for (const std::size_t k : ks_for(n)) {
      for (const order direction : test::all_orders) {
        EXPECT_TRUE((topk_matches<Key, std::uint32_t>(input, batch, n, k, direction, stream.get())))
            << describe(tools::type_name<Key>(), batch, n, k, d, seed, direction);
      }
    }
  }
}

// Every distribution at one length past a tile; 64-bit indices; keys-only and indices-only.
TYPED_TEST(TopKGpu, DistributionsIndexTypesAndSingleOutputs) {
  using Key = TypeParam;
  const cuda_stream stream;
  const std::size_t batch = 3, n = 40000;
  for (const distribution d : tools::all_distributions) {
    const std::uint64_t seed = test::case_seed(n, d);
    const std::vector<Key> input = tools::generate<Key>(batch * n, d, seed);
    for (const order direction : test::all_orders) {
      for (const std::size_t k : {std::size_t{1}, std::size_t{100}, std::size_t{2049}}) {
        const std::string what = describe(tools::type_name<Key>(), batch, n, k, d, seed, direction);
        EXPECT_TRUE((topk_matches<Key, std::uint64_t>(input, batch, n, k, direction, stream.get())))
            << what;
        EXPECT_TRUE(
            (topk_matches<Key, std::uint32_t>(input, batch, n, k, direction, stream.get(), 1)))
            << what << " keys only";
        EXPECT_TRUE(
            (topk_matches<Key, std::uint64_t>(input, batch, n, k, direction, stream.get(), 2)))
            << what << " indices only";
      }
    }
  }
}

// Long arrays: one of 3 * 2^20 + 5 keys fits the L2 bound of the radix selection (rounds over all
// of it, then the ranking kernel); two of 2^21 + 3 exceed it, so the select path cuts
// each into many parts and selects among their candidates over several passes (4-byte keys).
// Spread, sorted, tied (few distinct keys: the ties go down to the positions' digits) and
// all-equal words.
template <class Key>
class TopKGpuLong : public ::testing::Test {};
TYPED_TEST_SUITE(TopKGpuLong, test::key_types, test::key_type_names);

TYPED_TEST(TopKGpuLong, LongArrayOverSeveralPasses) {
  using Key = TypeParam;
  const cuda_stream stream;
  for (const auto [batch, n] : {std::array<std::size_t, 2>{1, (std::size_t{3} << 20) + 5},
                                std::array<std::size_t, 2>{2, (std::size_t{1} << 21) + 3}}) {
    for (const distribution d :
         {distribution::uniform, distribution::sorted, distribution::few, distribution::equal}) {
      const std::uint64_t seed = test::case_seed(n, d);
      const std::vector<Key> input = tools::generate<Key>(batch * n, d, seed);
      for (const std::size_t k :
           {std::size_t{1}, std::size_t{100}, std::size_t{1000}, std::size_t{2048}}) {
        for (const order direction : test::all_orders) {
          EXPECT_TRUE(
              (topk_matches<Key, std::uint32_t>(input, batch, n, k, direction, stream.get())))
              << describe(tools::type_name<Key>(), batch, n, k, d, seed, direction);
        }
      }
    }
  }
}

// Rows of -0.0, +0.0 and NaNs of both signs: NaNs are the largest keys, the zeros equal (so
// they come in position order), and the keys come back bit for bit.
TEST(TopKGpu, SignedZerosAndNaNs) {
  const cuda_stream stream;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> input;
  for (int i = 0; i < 3000; ++i) {
    const float pattern[] = {-0.0f, 0.0f, nan, -nan, 1.0f, -1.0f, 0.0f, -0.0f};
    input.push_back(pattern[(i * 7 + i / 8) % 8]);
  }
  for (const order direction : test::all_orders) {
    for (const std::size_t k :
         {std::size_t{1}, std::size_t{5}, std::size_t{600}, std::size_t{1000}}) {
      EXPECT_TRUE((topk_matches<float, std::uint32_t>(input, 3, 1000, k, direction, stream.get())))
          << "k=" << k << " order=" << test::to_string(direction);
    }
  }
  std::vector<double> doubles(input.begin(), input.end());
  for (const order direction : test::all_orders) {
    EXPECT_TRUE(
        (topk_matches<double, std::uint64_t>(doubles, 2, 1500, 700, direction, stream.get())))
        << "double order=" << test::to_string(direction);
  }
}

// Exactly topk_workspace_bytes of workspace, at an odd address, works; one byte less is refused
// naming the bytes, outputs untouched. Both paths: the argsort's words (8-byte keys), the select
// path's candidates (4-byte keys in arrays long enough to be cut into parts); none for one part.
template <class Key>
void expect_exact_workspace(std::size_t batch, std::size_t n, std::size_t k) {
  SCOPED_TRACE(std::string(tools::type_name<Key>()) + " " + std::to_string(batch) + " arrays of " +
               std::to_string(n) + " k=" + std::to_string(k));
  const cuda_stream stream;
  const std::vector<Key> input = tools::generate<Key>(batch * n, distribution::uniform, 17);
  device_array<Key> keys(batch * n);
  keys.upload(input, stream.get());
  device_array<Key> out_keys(batch * k);
  device_array<std::uint32_t> out_indices(batch * k);
  const std::size_t bytes = topk_workspace_bytes<Key, std::uint32_t>(batch, n, k);
  ASSERT_GT(bytes, 0u);
  device_array<std::byte> workspace(bytes + 1);
  options opt;
  opt.stream = stream.get();
  opt.workspace = workspace.get() + 1;
  opt.workspace_bytes = bytes - 1;
  out_indices.upload(std::vector<std::uint32_t>(batch * k, 99), stream.get());
  EXPECT_TRUE(test::throws_error(
      [&] { topk(keys.get(), batch, n, k, out_keys.get(), out_indices.get(), opt); },
      {"bitonic::topk", std::to_string(bytes), "topk_workspace_bytes"}));
  EXPECT_EQ(out_indices.download(stream.get()), std::vector<std::uint32_t>(batch * k, 99));
  opt.workspace_bytes = bytes;
  topk(keys.get(), batch, n, k, out_keys.get(), out_indices.get(), opt);
  EXPECT_TRUE(test::matches_topk(out_keys.download(stream.get()),
                                 out_indices.download(stream.get()), input, batch, n, k,
                                 order::ascending));
}

TEST(TopKGpu, Workspace) {
  expect_exact_workspace<double>(4, 5000, 64);
  EXPECT_GE((topk_workspace_bytes<double, std::uint32_t>(4, 5000, 64)), 4 * 5000 * sizeof(double));
  expect_exact_workspace<float>(1, std::size_t{1} << 20, 100);
  expect_exact_workspace<std::int32_t>(2, 300000, 2048);
  EXPECT_EQ((topk_workspace_bytes<std::int32_t, std::uint32_t>(4096, 5000, 64)), 0u);
  EXPECT_EQ((topk_workspace_bytes<std::int32_t, std::uint32_t>(4, 5000, 0)), 0u);
  EXPECT_EQ((topk_workspace_bytes<std::int32_t, std::uint32_t>(4, 1, 1)), 0u);
}

TEST(TopKGpu, Refusals) {
  device_array<std::int32_t> keys(100);
  device_array<std::int32_t> out_keys(100);
  device_array<std::uint32_t> out_indices(100);
  std::vector<std::int32_t> host(100);
  const auto call = [&](const std::int32_t* in, std::size_t batch, std::size_t n, std::size_t k,
                        std::int32_t* ok, std::uint32_t* oi,
                        options opt = {}) { return [=] { topk(in, batch, n, k, ok, oi, opt); }; };
  EXPECT_TRUE(test::throws_error(call(keys.get(), 1, 10, 11, out_keys.get(), out_indices.get()),
                                 {"k = 11", "n = 10"}));
  EXPECT_TRUE(test::throws_error(call(keys.get(), 1, 10, 5, nullptr, nullptr), "both outputs"));
  EXPECT_TRUE(test::throws_error(call(host.data(), 1, 10, 5, out_keys.get(), nullptr), "d_keys"));
  EXPECT_TRUE(test::throws_error(call(keys.get(), 2, 50, 20, keys.get() + 60, nullptr),
                                 "d_keys and d_out_keys"));
  EXPECT_TRUE(test::throws_error(call(keys.get(), 2, 10, 5, out_keys.get(),
                                      reinterpret_cast<std::uint32_t*>(out_keys.get() + 5)),
                                 "d_out_keys and d_out_indices"));
  EXPECT_TRUE(test::throws_error(
      call(keys.get(), 1, 100, 5, out_keys.get(), nullptr, {.algo = algorithm::block_merge}),
      "only the optimized kernels"));
  EXPECT_TRUE(test::throws_error(
      call(keys.get(), std::numeric_limits<std::size_t>::max(), 3, 1, out_keys.get(), nullptr),
      "overflow"));
  EXPECT_TRUE(test::throws_error(
      call(keys.get(), 1, (std::size_t{1} << 32) + 1, 1, out_keys.get(), nullptr), "2^32"));
}

// topk_host through the device, and on the CPU when the device budget is too small: the same
// result, exactly.
TYPED_TEST(TopKGpu, HostFormsOnDeviceAndOnCpu) {
  using Key = TypeParam;
  const std::size_t batch = 3, n = 30001;
  for (const distribution d : {distribution::uniform, distribution::few, distribution::nan}) {
    const std::uint64_t seed = test::case_seed(n, d);
    const std::vector<Key> input = tools::generate<Key>(batch * n, d, seed);
    for (const order direction : test::all_orders) {
      for (const std::size_t budget : {std::size_t{0}, std::size_t{1}}) {
        const std::size_t k = 257;
        std::vector<Key> out_keys(batch * k);
        std::vector<std::uint64_t> out_indices(batch * k);
        options opt;
        opt.direction = direction;
        opt.max_device_bytes = budget;
        topk_host(input.data(), batch, n, k, out_keys.data(), out_indices.data(), opt);
        EXPECT_TRUE(test::matches_topk(out_keys, out_indices, input, batch, n, k, direction))
            << describe(tools::type_name<Key>(), batch, n, k, d, seed, direction)
            << (budget == 0 ? " on the device" : " on the CPU");
      }
    }
  }
}

}  // namespace
}  // namespace bitonic
