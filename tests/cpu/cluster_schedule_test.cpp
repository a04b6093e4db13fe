// The cluster sort's schedule (src/kernels/cluster_schedule.hpp): its segments run exactly the
// classic network's steps past the block, in order, each on bits a block holds, and sorting
// with them (on the CPU, the index bits as the schedule says) gives std::sort's result.
#include "kernels/cluster_schedule.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace bitonic::kernels::cluster_schedule {
namespace {

struct step_on_bit {
  unsigned stage, bit;
  bool operator==(const step_on_bit&) const = default;
};

// The classic network's steps past the block, written out: stage s steps bits s - 1 .. 0.
std::vector<step_on_bit> steps_past_the_block(unsigned B, unsigned C) {
  std::vector<step_on_bit> steps;
  for (unsigned s = B + 1; s <= B + C; ++s)
    for (unsigned j = s; j-- > 0;)
      steps.push_back({s, j});
  return steps;
}

// The steps the schedule's segments 1.. run, read from their tables.
std::vector<step_on_bit> scheduled_steps(const plan& p, unsigned B, unsigned C) {
  std::vector<step_on_bit> steps;
  for (unsigned i = 1; i < p.count; ++i) {
    const segment& s = p.segments[i];
    unsigned stage = s.stage;
    for (int t = int(s.top); t >= 0; --t) {
      steps.push_back({stage, s.bit_at(unsigned(t), B + C)});
      if (t == s.boundary) ++stage;
    }
  }
  return steps;
}

bool is_own_index(const segment& s, unsigned bits) {
  for (unsigned b = 0; b < bits; ++b)
    if (s.location[b] != b) return false;
  return true;
}

TEST(ClusterSchedule, SegmentsRunTheStepsPastTheBlockInOrder) {
  for (unsigned B = 3; B <= 14; ++B) {
    for (unsigned C = 1; C <= 5 && B + C <= max_bits; ++C) {
      SCOPED_TRACE("B = " + std::to_string(B) + ", C = " + std::to_string(C));
      const plan p = make(B, C);
      ASSERT_GE(p.count, 2u);
      ASSERT_LE(p.count, max_segments);
      EXPECT_TRUE(is_own_index(p.segments[0], B + C));
      EXPECT_TRUE(is_own_index(p.segments[p.count - 1], B + C)) << "stored as loaded";
      EXPECT_EQ(scheduled_steps(p, B, C), steps_past_the_block(B, C));
      for (unsigned i = 0; i < p.count; ++i) {
        const segment& s = p.segments[i];
        std::vector<int> seen(B + C, 0);
        for (unsigned b = 0; b < B + C; ++b) {
          ASSERT_LT(s.location[b], B + C) << "segment " << i << ", bit " << b;
          ++seen[s.location[b]];
        }
        EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), int(B + C))
            << "segment " << i << " places two bits at one position";
        EXPECT_LT(s.top, B) << "segment " << i << " steps only tile bits";
        if (i > 0 && i + 1 < p.count) {
          EXPECT_EQ(s.top, B - 1) << "greedy: full segments";
        }
      }
    }
  }
}

TEST(ClusterSchedule, FewerTransposesThanTwoAStage) {
  // 2^12-key blocks (tuning::cluster_sort): clusters of 2, 4, 8, 16 blocks.
  const unsigned expected[] = {0, 2, 3, 4, 5};
  for (unsigned C = 1; C <= 4; ++C) {
    EXPECT_EQ(make(12, C).count - 1, expected[C]) << "C = " << C;
  }
}

// Sorts keys[0, 2^(B+C)) as the cluster sort does: the classic network's stages 1..B, then the
// schedule's segments, every step on the index bit its segment's tile bit holds.
void sort_as_scheduled(std::vector<std::uint32_t>& keys, unsigned B, unsigned C) {
  const unsigned bits = B + C;
  const auto step = [&](unsigned stage, unsigned bit) {
    for (std::size_t i = 0; i < keys.size(); ++i) {
      const std::size_t j = i ^ (std::size_t{1} << bit);
      if (j < i) continue;
      const bool descending = stage < bits && ((i >> stage) & 1u);
      if ((keys[j] < keys[i]) != descending) std::swap(keys[i], keys[j]);
    }
  };
  for (unsigned s = 1; s <= B; ++s)
    for (unsigned j = s; j-- > 0;)
      step(s, j);
  const plan p = make(B, C);
  for (const step_on_bit& st : scheduled_steps(p, B, C))
    step(st.stage, st.bit);
}

TEST(ClusterSchedule, SortsLikeStdSort) {
  constexpr unsigned seed = 20261124;
  std::mt19937 gen(seed);
  for (auto [B, C] : {std::pair{12u, 4u}, {12u, 3u}, {12u, 2u}, {12u, 1u}, {5u, 4u}, {4u, 3u}}) {
    SCOPED_TRACE("B = " + std::to_string(B) + ", C = " + std::to_string(C) +
                 ", seed = " + std::to_string(seed));
    std::vector<std::uint32_t> keys(std::size_t{1} << (B + C));
    for (auto& k : keys)
      k = gen() % 1000;  // repeated keys too
    std::vector<std::uint32_t> expected = keys;
    std::sort(expected.begin(), expected.end());
    sort_as_scheduled(keys, B, C);
    EXPECT_EQ(keys, expected);
  }
}

}  // namespace
}  // namespace bitonic::kernels::cluster_schedule
