// bitonic::sort_on_cpu (the plan of each algorithm run by the CPU executor) against std::sort:
// every length up to 2^12, random lengths up to 2^20, NaNs and signed zeros.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "bitonic/bitonic.hpp"
#include "common_test.hpp"

namespace bitonic {
namespace {

using test::describe_case;
using test::matches_reference;
using tools::distribution;

// The references of length n_i with distribution d_i, built on all cores.
template <class Key>
std::vector<test::reference_case<Key>> make_reference_cases(
    const std::vector<std::pair<std::size_t, distribution>>& inputs) {
  std::vector<test::reference_case<Key>> cases(inputs.size());
  test::parallel_for(inputs.size(), [&](std::size_t i) {
    cases[i] = test::make_reference_case<Key>(inputs[i].first, inputs[i].second);
  });
  return cases;
}

// Sorts every case with every algorithm in both orders on all cores, then reports each result
// against its std::sort reference from the test's thread.
template <class Key>
void expect_every_algorithm_sorts(const std::vector<test::reference_case<Key>>& cases) {
  struct sort_job {
    const test::reference_case<Key>* c;
    order direction;
    algorithm algo;
  };
  std::vector<sort_job> jobs;
  for (const test::reference_case<Key>& c : cases) {
    for (const order direction : test::all_orders) {
      for (const algorithm algo : test::all_algorithms)
        jobs.push_back({&c, direction, algo});
    }
  }
  std::vector<::testing::AssertionResult> verdicts(jobs.size(), ::testing::AssertionSuccess());
  test::parallel_for(jobs.size(), [&](std::size_t i) {
    const sort_job& job = jobs[i];
    std::vector<Key> result = job.c->input;
    sort_on_cpu(result.data(), result.size(), {job.direction, job.algo});
    verdicts[i] = matches_reference(result, job.c->expected_for(job.direction));
  });
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const sort_job& job = jobs[i];
    EXPECT_TRUE(verdicts[i]) << describe_case<Key>(job.c->n, job.c->d, job.c->seed, job.direction,
                                                   job.algo);
  }
}

template <class Key>
class CpuSort : public ::testing::Test {};
TYPED_TEST_SUITE(CpuSort, test::key_types, test::key_type_names);

// Every length, so that every way a length can fall short of a power of two, a tile or a block
// is met; the distribution rotates with the length to keep the run time modest.
TYPED_TEST(CpuSort, EveryLengthUpTo4096) {
  using Key = TypeParam;
  constexpr std::size_t max_n = 4096, batch = 128;
  constexpr std::size_t distribution_count = std::size(tools::all_distributions);
  for (std::size_t first = 0; first <= max_n; first += batch) {
    std::vector<std::pair<std::size_t, distribution>> inputs;
    for (std::size_t n = first; n < first + batch && n <= max_n; ++n) {
      inputs.emplace_back(n, tools::all_distributions[n % distribution_count]);
    }
    expect_every_algorithm_sorts(make_reference_cases<Key>(inputs));
    if (this->HasFailure()) return;  // the first failing batch says enough
  }
}

// Lengths past one tile, where the global and merge passes run: 40 random lengths from 2^12 to
// 2^20, dealt out to the key types, each with every distribution.
TYPED_TEST(CpuSort, RandomLengthsUpTo2Pow20) {
  using Key = TypeParam;
  constexpr std::uint64_t lengths_seed = 20240601;
  const std::vector<std::size_t> lengths = test::random_lengths(40, 12, 20, lengths_seed);
  for (std::size_t i = test::key_type_index<Key>(); i < lengths.size(); i += 6) {
    std::vector<std::pair<std::size_t, distribution>> inputs;
    for (const distribution d : tools::all_distributions)
      inputs.emplace_back(lengths[i], d);
    expect_every_algorithm_sorts(make_reference_cases<Key>(inputs));
    if (this->HasFailure()) return;
  }
}

template <class Key>
class CpuSortFloat : public ::testing::Test {};
using float_types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CpuSortFloat, float_types, test::key_type_names);

TYPED_TEST(CpuSortFloat, NaNsInfinitiesAndSignedZeros) {
  using Key = TypeParam;
  std::vector<std::pair<std::size_t, distribution>> inputs;
  for (const std::size_t n : {2u, 3u, 5u, 17u, 100u, 1000u, 4095u, 4097u, 8193u, 70001u})
    inputs.emplace_back(n, distribution::nan);
  expect_every_algorithm_sorts(make_reference_cases<Key>(inputs));
}

// The order itself, checked without std::sort: NaNs last (first when descending), -0.0 and +0.0
// equivalent, and every key kept bit for bit.
TYPED_TEST(CpuSortFloat, TotalOrderPutsNaNsLast) {
  using Key = TypeParam;
  using limits = std::numeric_limits<Key>;
  const std::vector<Key> input = {
      limits::quiet_NaN(), Key(1),  Key(-0.0), limits::infinity(), -limits::quiet_NaN(), Key(0.0),
      -limits::infinity(), Key(-1), Key(-0.0)};
  for (const algorithm algo : test::all_algorithms) {
    SCOPED_TRACE(std::string(to_string(algo)));
    std::vector<Key> keys = input;
    sort_on_cpu(keys.data(), keys.size(), {order::ascending, algo});
    EXPECT_EQ(keys[0], -limits::infinity());
    EXPECT_EQ(keys[1], Key(-1));
    EXPECT_EQ(std::count_if(keys.begin() + 2, keys.begin() + 5,
                            [](Key k) { return k == 0 && std::signbit(k); }),
              2)
        << "both -0.0 keep their sign";
    EXPECT_EQ(keys[5], Key(1));
    EXPECT_EQ(keys[6], limits::infinity());
    EXPECT_TRUE(std::isnan(keys[7]) && std::isnan(keys[8]));
    EXPECT_NE(std::signbit(keys[7]), std::signbit(keys[8])) << "both NaNs kept";

    keys = input;
    sort_on_cpu(keys.data(), keys.size(), {order::descending, algo});
    EXPECT_TRUE(std::isnan(keys[0]) && std::isnan(keys[1]));
    EXPECT_EQ(keys[2], limits::infinity());
    EXPECT_EQ(keys[3], Key(1));
    EXPECT_EQ(keys[7], Key(-1));
    EXPECT_EQ(keys[8], -limits::infinity());
  }
}

}  // namespace
}  // namespace bitonic
