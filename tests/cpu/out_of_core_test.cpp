// The out-of-core driver of sort_host (runs, then streamed pairwise merges cut by merge path),
// run with a CPU backend whose runs and pieces are tiny, so that every boundary case of the
// partitioning happens many times: odd run counts, pieces ending inside a run, empty parts.
#include "host/out_of_core.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <utility>
#include <vector>

#include "common_test.hpp"
#include "network/key_order.hpp"

namespace bitonic {
namespace {

// The device's part played on the host: sort_run by std::sort, merge_piece by std::merge (the
// first run's keys before equal keys of the second, as on the device). Counts calls so the test
// can see the streaming.
template <class Key, class Less>
struct cpu_backend {
  std::size_t run, piece;
  Less less;
  std::size_t runs_sorted = 0, pieces_merged = 0;

  std::size_t run_keys() const { return run; }
  std::size_t piece_keys() const { return piece; }
  void sort_run(Key* keys, std::size_t n) {
    EXPECT_LE(n, run);
    std::sort(keys, keys + n, less);
    ++runs_sorted;
  }
  void merge_piece(const Key* a, std::size_t a_count, const Key* b, std::size_t b_count, Key* out) {
    EXPECT_LE(a_count + b_count, piece);
    std::merge(a, a + a_count, b, b + b_count, out, less);
    ++pieces_merged;
  }
  void copy(Key* dst, const Key* src, std::size_t n) { std::copy(src, src + n, dst); }
};

template <class Key, class Less>
void expect_out_of_core_sort(std::size_t n, std::size_t run, std::size_t piece,
                             tools::distribution d, order direction, Less less) {
  const std::uint64_t seed = test::case_seed(n, d);
  std::vector<Key> keys = tools::generate<Key>(n, d, seed);
  const std::vector<Key> expected = tools::reference_sort(keys, direction);
  std::vector<Key> scratch(n);
  cpu_backend<Key, Less> backend{run, piece, less};
  host::sort_out_of_core(keys.data(), n, scratch.data(), less, backend);
  EXPECT_TRUE(test::matches_reference(keys, expected))
      << "n=" << n << " run=" << run << " piece=" << piece << " dist=" << tools::to_string(d)
      << " seed=" << seed << ' ' << test::to_string(direction);
  EXPECT_EQ(backend.runs_sorted, (n + run - 1) / run);
}

TEST(OutOfCore, RunsAndStreamedMergesMatchStdSort) {
  for (const std::size_t n : {1u, 2u, 7u, 64u, 100u, 1000u, 4097u}) {
    for (const std::size_t run : {1u, 3u, 16u, 1000u}) {
      for (const std::size_t piece : {1u, 5u, 64u}) {
        for (const tools::distribution d : tools::all_distributions) {
          expect_out_of_core_sort<float>(n, run, piece, d, order::ascending, ascending_less{});
          expect_out_of_core_sort<std::int64_t>(n, run, piece, d, order::descending,
                                                descending_less{});
        }
      }
    }
  }
}

TEST(OutOfCore, PathSplitMatchesStdMerge) {
  // Keys of `a` before equal keys of `b`: std::merge's rule, so its output is the reference.
  std::mt19937_64 rng(2026);
  for (int round = 0; round < 200; ++round) {
    std::vector<int> a(rng() % 40), b(rng() % 40);
    for (int& x : a)
      x = int(rng() % 10);
    for (int& x : b)
      x = int(rng() % 10);
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    // Tag each key with its run; std::merge keeps a's keys first among equals, so counting the
    // tags in a prefix of its output gives the split that path_split must find.
    std::vector<std::pair<int, bool>> merged;
    const auto by_key = [](const auto& x, const auto& y) { return x.first < y.first; };
    std::vector<std::pair<int, bool>> tagged_a, tagged_b;
    for (int x : a)
      tagged_a.emplace_back(x, true);
    for (int x : b)
      tagged_b.emplace_back(x, false);
    std::merge(tagged_a.begin(), tagged_a.end(), tagged_b.begin(), tagged_b.end(),
               std::back_inserter(merged), by_key);
    std::size_t from_a = 0;
    for (std::size_t diagonal = 0; diagonal <= merged.size(); ++diagonal) {
      ASSERT_EQ(
          merge::path_split(a.data(), a.size(), b.data(), b.size(), diagonal, ascending_less{}),
          from_a)
          << "round " << round << " diagonal " << diagonal;
      // 32-bit counts (the row tails' merge in a tile) find the same split.
      ASSERT_EQ((merge::path_split<1, std::uint32_t>(a.data(), std::uint32_t(a.size()), b.data(),
                                                     std::uint32_t(b.size()),
                                                     std::uint32_t(diagonal), ascending_less{})),
                from_a)
          << "32-bit counts, round " << round << " diagonal " << diagonal;
      if (diagonal < merged.size() && merged[diagonal].second) ++from_a;
    }
  }
}

}  // namespace
}  // namespace bitonic
