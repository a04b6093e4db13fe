// topk_host against the first k of std::stable_sort of every array (test::stable_order) and against
// test::topk_reference (std::partial_sort): on the CPU where there is no GPU (CI), through the
// device where there is one, and on the CPU again when opt.max_device_bytes leaves the device too
// little. Results must match bit for bit: keys and indices. Argument errors leave the outputs
// untouched.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "bitonic/bitonic.hpp"
#include "common_test.hpp"

namespace bitonic {
namespace {

using tools::distribution;

template <class Key>
class TopKHost : public ::testing::Test {};
TYPED_TEST_SUITE(TopKHost, test::record_key_types, test::key_type_names);

TYPED_TEST(TopKHost, FirstKOfAStableSortOfEveryArray) {
  using Key = TypeParam;
  std::vector<std::size_t> sizes = {1, 2, 3, 31, 32, 33, 100, 1025, 4097};
  for (const std::size_t n : test::random_lengths(2, 3, 13, 4111 + test::key_type_index<Key>()))
    sizes.push_back(n);
  for (std::size_t s = 0; s < sizes.size(); ++s) {
    const std::size_t n = sizes[s], batch = 3;
    const distribution d = tools::all_distributions[s % std::size(tools::all_distributions)];
    const std::uint64_t seed = test::case_seed(n, d);
    const std::vector<Key> input = tools::generate<Key>(batch * n, d, seed);
    for (const order direction : test::all_orders) {
      std::vector<std::vector<std::uint64_t>> stable(batch);
      for (std::size_t r = 0; r < batch; ++r) {
        stable[r] =
            test::stable_order(std::vector<Key>(input.begin() + std::ptrdiff_t(r * n),
                                                input.begin() + std::ptrdiff_t((r + 1) * n)),
                               direction);
      }
      for (const std::size_t k : {std::size_t{1}, std::size_t{2}, std::size_t{33},
                                  std::size_t{1024}, std::size_t{2049}, n - 1, n}) {
        if (k > n) continue;
        for (const std::size_t max_device_bytes : {std::size_t{0}, std::size_t{1024}}) {
          SCOPED_TRACE(test::describe_case<Key>(n, d, seed, direction, algorithm::automatic) +
                       " batch=3 k=" + std::to_string(k) +
                       " max_device_bytes=" + std::to_string(max_device_bytes));
          const options opt{.direction = direction, .max_device_bytes = max_device_bytes};
          std::vector<Key> keys(batch * k);
          std::vector<std::uint32_t> indices(batch * k, 7);
          topk_host(input.data(), batch, n, k, keys.data(), indices.data(), opt);
          ASSERT_TRUE(test::matches_topk(keys, indices, input, batch, n, k, direction));
          for (std::size_t r = 0; r < batch; ++r) {
            for (std::size_t j = 0; j < k; ++j)
              ASSERT_EQ(indices[r * k + j], stable[r][j]) << "array " << r << " rank " << j;
          }
          std::vector<std::uint64_t> wide(batch * k);
          topk_host(input.data(), batch, n, k, static_cast<Key*>(nullptr), wide.data(), opt);
          ASSERT_TRUE(std::equal(wide.begin(), wide.end(), indices.begin()));
        }
      }
    }
  }
}

TEST(TopKHostErrors, RefusalsLeaveOutputsUntouched) {
  const std::vector<float> keys(100, 1.0f);
  std::vector<float> out(100, 5.0f);
  std::vector<std::uint32_t> indices(100, 9);
  EXPECT_TRUE(
      test::throws_error([&] { topk_host(keys.data(), 2, 50, 51, out.data(), indices.data()); },
                         {"k = 51", "n = 50"}));
  EXPECT_TRUE(test::throws_error(
      [&] {
        topk_host(keys.data(), 2, 50, 5, static_cast<float*>(nullptr),
                  static_cast<std::uint32_t*>(nullptr));
      },
      "both outputs"));
  EXPECT_TRUE(test::throws_error(
      [&] { topk_host(static_cast<const float*>(nullptr), 2, 50, 5, out.data(), indices.data()); },
      "h_keys is null"));
  EXPECT_TRUE(test::throws_error(
      [&] {
        topk_host(keys.data(), 2, 50, 5, const_cast<float*>(keys.data()) + 10, indices.data());
      },
      "h_keys and h_out_keys"));
  EXPECT_TRUE(test::throws_error(
      [&] {
        topk_host(keys.data(), 2, 50, 5, out.data(), reinterpret_cast<std::uint32_t*>(out.data()));
      },
      "h_out_keys and h_out_indices"));
  EXPECT_TRUE(test::throws_error(
      [&] {
        topk_host(keys.data(), 2, 50, 5, out.data(), indices.data(),
                  {.algo = algorithm::fused_steps});
      },
      "only the optimized kernels"));
  EXPECT_EQ(out, std::vector<float>(100, 5.0f));
  EXPECT_EQ(indices, std::vector<std::uint32_t>(100, 9));
  // Nothing to do: no error, nothing written.
  topk_host(keys.data(), 2, 50, 0, out.data(), indices.data());
  topk_host(static_cast<const float*>(nullptr), 0, 50, 5, out.data(), indices.data());
  EXPECT_EQ(out, std::vector<float>(100, 5.0f));
}

}  // namespace
}  // namespace bitonic
