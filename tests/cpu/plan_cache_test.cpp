// api::plan_cache: sort() plans once per (device, algorithm, n) and reuses the plan, its kernels'
// loaded flags with it; a plan that failed to be made is not kept; the cache stays bounded.
#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <stdexcept>

#include "api/plan_cache.hpp"
#include "plan/plan.hpp"

namespace bitonic::test {
namespace {

plan::plan optimized_plan(std::size_t n) {
  return plan::make_plan(algorithm::optimized, n, 4);
}

TEST(PlanCache, MakesEachPlanOnce) {
  api::plan_cache cache;
  int made = 0;
  const auto make = [&](std::size_t n) {
    return [&made, n] {
      ++made;
      return optimized_plan(n);
    };
  };
  const auto first = cache.get(0, algorithm::automatic, 1000, make(1000));
  const auto again = cache.get(0, algorithm::automatic, 1000, make(1000));
  EXPECT_EQ(first, again);
  EXPECT_EQ(made, 1);
  EXPECT_EQ(first->plan.n, 1000u);
  // Another device, algorithm or size is another plan.
  EXPECT_NE(cache.get(1, algorithm::automatic, 1000, make(1000)), first);
  EXPECT_NE(cache.get(0, algorithm::optimized, 1000, make(1000)), first);
  const auto other = cache.get(0, algorithm::automatic, 1001, make(1001));
  EXPECT_NE(other, first);
  EXPECT_EQ(other->plan.n, 1001u);
  EXPECT_EQ(made, 4);
  EXPECT_EQ(cache.size(), 4u);
}

TEST(PlanCache, KeepsNoPlanThatThrew) {
  api::plan_cache cache;
  EXPECT_THROW(cache.get(0, algorithm::optimized, 5,
                         []() -> plan::plan { throw std::runtime_error("no shared memory"); }),
               std::runtime_error);
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_EQ(cache.get(0, algorithm::optimized, 5, [] { return optimized_plan(5); })->plan.n, 5u);
}

TEST(PlanCache, StaysBoundedAndCallersKeepTheirPlans) {
  api::plan_cache cache;
  const auto held = cache.get(0, algorithm::automatic, 2, [] { return optimized_plan(2); });
  held->loaded.fetch_or(api::load_walk(order::ascending, false));
  for (std::size_t n = 3; n < 3 + 2 * api::plan_cache::capacity; ++n) {
    cache.get(0, algorithm::automatic, n, [n] { return optimized_plan(n); });
    EXPECT_LE(cache.size(), api::plan_cache::capacity);
  }
  EXPECT_EQ(held->plan.n, 2u);  // dropped from the cache, still whole for its holder
  const auto remade = cache.get(0, algorithm::automatic, 2, [] { return optimized_plan(2); });
  EXPECT_NE(remade, held);
  EXPECT_EQ(remade->loaded.load(), 0u);  // a new plan has loaded nothing yet
}

TEST(PlanCache, EachRunOfAPlanHasItsOwnLoadedFlag) {
  std::set<unsigned> walks;
  for (const order direction : {order::ascending, order::descending}) {
    for (const bool from_source : {false, true}) {
      const unsigned walk = api::load_walk(direction, from_source);
      EXPECT_EQ(walk & (walk - 1), 0u) << "one bit";
      walks.insert(walk);
    }
  }
  EXPECT_EQ(walks.size(), 4u);
}

}  // namespace
}  // namespace bitonic::test
