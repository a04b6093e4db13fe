// bitonic::sort on the device against std::sort: every variant, key type, order, distribution and
// a spread of lengths around warp, block, tile and power-of-two boundaries; managed memory; two
// sorts in flight on two streams; blocked passes from two host threads and in a CUDA graph.
#include <gtest/gtest.h>

#include <cstdint>
#include <future>
#include <initializer_list>
#include <iostream>
#include <string>
#include <vector>

#include "bitonic/bitonic.hpp"
#include "common_test.hpp"
#include "device_memory.hpp"

namespace bitonic {
namespace {

using test::describe_case;
using test::device_array;
using test::matches_reference;
using tools::distribution;

// Lengths at the edges that matter: tiny, around 2^10 and 2^16, one past a shared-memory tile of
// 8-byte (2^12) and 4-byte (2^13) keys, a full 2^20 network, a length far from any power of two,
// and random ones drawn from a fixed seed.
std::vector<std::size_t> gpu_lengths() {
  constexpr std::uint64_t random_lengths_seed = 77001;
  std::vector<std::size_t> lengths = {0, 1, 2, 3, 1023, 1024, 1025, 4097, 8193, 65535, 65537};
  lengths.insert(lengths.end(), {std::size_t{1} << 20, 3 * (std::size_t{1} << 20) + 7});
  for (const std::size_t n : test::random_lengths(3, 10, 21, random_lengths_seed)) {
    lengths.push_back(n);
  }
  return lengths;
}

template <class Key>
class GpuSort : public ::testing::Test {};
TYPED_TEST_SUITE(GpuSort, test::key_types, test::key_type_names);

// The device runs the sorts one after another while the host builds the references and checks
// the results on all its cores (the checks sort the bit patterns, which costs more than the GPU).
TYPED_TEST(GpuSort, EveryVariantMatchesStdSort) {
  using Key = TypeParam;
  const cuda_stream stream;
  for (const std::size_t n : gpu_lengths()) {
    std::vector<test::reference_case<Key>> cases(std::size(tools::all_distributions));
    test::parallel_for(cases.size(), [&](std::size_t i) {
      cases[i] = test::make_reference_case<Key>(n, tools::all_distributions[i]);
    });

    struct pending_check {
      std::string label;
      std::future<::testing::AssertionResult> verdict;
    };
    std::vector<pending_check> checks;
    device_array<Key> keys(n);
    for (const test::reference_case<Key>& c : cases) {
      for (const order direction : test::all_orders) {
        for (const algorithm algo : test::all_algorithms) {
          std::vector<Key> result =
              test::sort_on_device(keys, c.input, {direction, algo, stream.get()});
          const std::vector<Key>& expected = c.expected_for(direction);
          checks.push_back({describe_case<Key>(n, c.d, c.seed, direction, algo),
                            std::async(std::launch::async, [&expected, r = std::move(result)] {
                              return matches_reference(r, expected);
                            })});
        }
      }
    }
    for (pending_check& check : checks)
      EXPECT_TRUE(check.verdict.get()) << check.label;
  }
}

template <class Key>
void expect_sorts_in_managed_memory(std::size_t n, algorithm algo, order direction,
                                    cudaStream_t stream) {
  const std::uint64_t seed = test::case_seed(n, distribution::uniform);
  const std::vector<Key> input = tools::generate<Key>(n, distribution::uniform, seed);
  Key* managed = nullptr;
  BITONIC_CUDA_CHECK(cudaMallocManaged(reinterpret_cast<void**>(&managed), n * sizeof(Key)));
  std::copy(input.begin(), input.end(), managed);
  sort(managed, n, {direction, algo, stream});
  BITONIC_CUDA_CHECK(cudaStreamSynchronize(stream));
  const std::vector<Key> result(managed, managed + n);
  BITONIC_CUDA_CHECK(cudaFree(managed));
  EXPECT_TRUE(matches_reference(result, tools::reference_sort(input, direction)))
      << describe_case<Key>(n, distribution::uniform, seed, direction, algo) << " managed memory";
}

// Past one L2 block (2^22 four-byte keys on the H100) the optimized path merges every stage past
// the tile out of place, through a scratch buffer; the lengths of the main test stop short of
// that. (Its in-place plan there, with several gathers a stage: kernel tests,
// InPlacePlanPastTheCache.)
TEST(GpuSortLarge, OptimizedMergesOutOfPlacePastTheCache) {
  for (const std::size_t n : {(std::size_t{1} << 23) + 12345, std::size_t{1} << 24}) {
    // Few and equal keys: from 2^24 the split gives them equality buckets.
    for (const distribution d : {distribution::uniform, distribution::few, distribution::equal}) {
      const std::uint64_t seed = test::case_seed(n, d);
      const std::vector<float> input = tools::generate<float>(n, d, seed);
      test::device_array<float> keys(n);
      for (const order direction : test::all_orders) {
        EXPECT_TRUE(test::matches_reference(
            test::sort_on_device(keys, input, {direction, algorithm::optimized}),
            tools::reference_sort(input, direction)))
            << test::describe_case<float>(n, d, seed, direction, algorithm::optimized);
      }
    }
  }
}

// From 2^24 eight-byte and 2^26 four-byte keys the split's buckets are cut again into
// sub-buckets of about a tile (kernels/sample_refine.cuh), which the first pass reads from the
// keys: the default call on adversarial inputs, both orders.
TEST(GpuSortLarge, RefinedSplitPlans) {
  const auto expect_sorts = [](auto key, std::size_t n, std::initializer_list<distribution> ds) {
    using Key = decltype(key);
    for (const distribution d : ds) {
      const std::uint64_t seed = test::case_seed(n, d);
      const std::vector<Key> input = tools::generate<Key>(n, d, seed);
      test::device_array<Key> keys(n);
      for (const order direction : test::all_orders) {
        EXPECT_TRUE(test::matches_reference(test::sort_on_device(keys, input, {direction}),
                                            tools::reference_sort(input, direction)))
            << test::describe_case<Key>(n, d, seed, direction, algorithm::automatic);
      }
    }
  };
  expect_sorts(double{}, (std::size_t{1} << 24) + 777,
               {distribution::uniform, distribution::organ, distribution::few, distribution::nan});
  expect_sorts(std::int64_t{}, (std::size_t{1} << 25) - 3,
               {distribution::sorted, distribution::equal});
  expect_sorts(float{}, (std::size_t{1} << 26) + 3, {distribution::uniform, distribution::nan});
}

// Past 2^22 four-byte keys (on the H100's L2), the optimized path allocates its scratch
// stream-ordered and runs its first merges in blocked passes of two blocks at once, the second on
// a side stream of the calling thread joined back by events. Below, from 2^21 keys, it merges
// stages on every tile at once (a cooperative launch).
constexpr std::size_t blocked_n = (std::size_t{1} << 23) + 5;
constexpr std::size_t merged_n = 3 * (std::size_t{1} << 20) + 7;

TEST(GpuSortLarge, BlockedPassesAndMergedStagesFromTwoHostThreadsAtOnce) {
  for (const std::size_t n : {blocked_n, merged_n}) {
    const auto sort_in_thread = [n](distribution d) {
      const std::uint64_t seed = test::case_seed(n, d);
      const auto input = tools::generate<std::int32_t>(n, d, seed);
      const cuda_stream stream;
      device_array<std::int32_t> keys(n);
      const auto result = test::sort_on_device(
          keys, input, {order::descending, algorithm::optimized, stream.get()});
      return matches_reference(result, tools::reference_sort(input, order::descending))
                 ? std::string()
                 : describe_case<std::int32_t>(n, d, seed, order::descending, algorithm::optimized);
    };
    auto first = std::async(std::launch::async, sort_in_thread, distribution::uniform);
    auto second = std::async(std::launch::async, sort_in_thread, distribution::few);
    EXPECT_EQ(first.get(), "");
    EXPECT_EQ(second.get(), "");
  }
}

TEST(GpuSortLarge, BlockedPassesAndMergedStagesCapturedIntoAGraph) {
  for (const std::size_t n : {blocked_n, merged_n}) {
    const std::uint64_t seed = test::case_seed(n, distribution::uniform);
    const auto input = tools::generate<std::int32_t>(n, distribution::uniform, seed);
    const cuda_stream stream;
    device_array<std::int32_t> keys(n);
    cudaGraph_t graph = nullptr;
    BITONIC_CUDA_CHECK(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeGlobal));
    sort(keys.get(), n, {order::ascending, algorithm::optimized, stream.get()});
    BITONIC_CUDA_CHECK(cudaStreamEndCapture(stream.get(), &graph));
    cudaGraphExec_t exec = nullptr;
    BITONIC_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    keys.upload(input, stream.get());
    BITONIC_CUDA_CHECK(cudaGraphLaunch(exec, stream.get()));
    EXPECT_TRUE(matches_reference(keys.download(stream.get()),
                                  tools::reference_sort(input, order::ascending)))
        << describe_case<std::int32_t>(n, distribution::uniform, seed, order::ascending,
                                       algorithm::optimized)
        << " replayed from a CUDA graph";
    BITONIC_CUDA_CHECK(cudaGraphExecDestroy(exec));
    BITONIC_CUDA_CHECK(cudaGraphDestroy(graph));
  }
}

TEST(GpuSortManaged, EveryVariantOnANonDefaultStream) {
  const cuda_stream stream;
  for (const algorithm algo : test::all_algorithms) {
    for (const std::size_t n : {1000u, 70001u, (1u << 20) + 5}) {
      expect_sorts_in_managed_memory<std::int32_t>(n, algo, order::ascending, stream.get());
      expect_sorts_in_managed_memory<double>(n, algo, order::descending, stream.get());
    }
  }
}

// Both sorts are enqueued before either stream is waited for, so they may overlap on the device;
// each must still see only its own keys (and block_merge its own scratch).
TEST(GpuSortStreams, TwoSortsOnTwoStreamsAtOnce) {
  constexpr std::size_t n_first = (1u << 20) + 3, n_second = (1u << 19) + 5;
  const std::uint64_t seed_first = test::case_seed(n_first, distribution::uniform);
  const std::uint64_t seed_second = test::case_seed(n_second, distribution::few);
  const auto first = tools::generate<std::int32_t>(n_first, distribution::uniform, seed_first);
  const auto second = tools::generate<double>(n_second, distribution::few, seed_second);
  const auto expected_first = tools::reference_sort(first, order::ascending);
  const auto expected_second = tools::reference_sort(second, order::descending);
  const cuda_stream stream_first, stream_second;
  device_array<std::int32_t> keys_first(n_first);
  device_array<double> keys_second(n_second);
  for (const algorithm algo : test::all_algorithms) {
    keys_first.upload(first, stream_first.get());
    keys_second.upload(second, stream_second.get());
    sort(keys_first.get(), n_first, {order::ascending, algo, stream_first.get()});
    sort(keys_second.get(), n_second, {order::descending, algo, stream_second.get()});
    EXPECT_TRUE(matches_reference(keys_first.download(stream_first.get()), expected_first))
        << describe_case<std::int32_t>(n_first, distribution::uniform, seed_first, order::ascending,
                                       algo);
    EXPECT_TRUE(matches_reference(keys_second.download(stream_second.get()), expected_second))
        << describe_case<double>(n_second, distribution::few, seed_second, order::descending, algo);
  }
}

}  // namespace
}  // namespace bitonic
