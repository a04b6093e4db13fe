// sort_host where there is no GPU: the CPU reference executor sorts the keys in place. (Where a
// GPU exists, tests/gpu/host_sort_test.cpp covers the device path; this test then checks the
// same contract through it.)
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "bitonic/bitonic.hpp"
#include "common_test.hpp"

namespace bitonic {
namespace {

template <class Key>
class HostFallback : public ::testing::Test {};
TYPED_TEST_SUITE(HostFallback, test::key_types, test::key_type_names);

TYPED_TEST(HostFallback, SortsHostKeysLikeStdSort) {
  using Key = TypeParam;
  for (const std::size_t n :
       {std::size_t{0}, std::size_t{1}, std::size_t{777}, std::size_t{20000}}) {
    for (const order direction : test::all_orders) {
      const tools::distribution d = tools::distribution::nan;
      const std::uint64_t seed = test::case_seed(n, d);
      std::vector<Key> keys = tools::generate<Key>(n, d, seed);
      const std::vector<Key> expected = tools::reference_sort(keys, direction);
      sort_host(keys.data(), n, {direction});
      EXPECT_TRUE(test::matches_reference(keys, expected))
          << test::describe_case<Key>(n, d, seed, direction, algorithm::automatic);
    }
  }
}

TEST(HostFallbackErrors, NullPointerAndBadOptionsAreRejected) {
  EXPECT_THROW(sort_host<double>(nullptr, 3), error);
  std::vector<std::int32_t> keys = {3, 1, 2};
  const std::vector<std::int32_t> before = keys;
  EXPECT_THROW(sort_host(keys.data(), keys.size(), {static_cast<order>(9)}), error);
  EXPECT_EQ(keys, before);
}

}  // namespace
}  // namespace bitonic
