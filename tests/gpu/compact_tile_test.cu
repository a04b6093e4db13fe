// The compact record tile (kernels/compact_record_tile.cuh) on one tile of 64-bit record words,
// against std::sort of the same words: with its ties ranked (ties_by_slot false, what a tile that
// merges follow takes in an unstable sort) the tile must come out exactly in the words' order,
// for runs of equal keys of every length up to tuning::compact_record_tile::max_run; a run one
// longer, or keys spanning too wide a range, must leave it unsorted and its output untouched; with
// ties left by slot (ties_by_slot true) equal keys must keep their slots' order, exactly
// std::stable_sort by key. Whole tiles and partial ones. Since the sorts above it leave most
// tiles' ties unranked (PERFORMANCE log 89), this is what checks the ranking every run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "common_test.hpp"
#include "device_memory.hpp"
#include "kernels/compact_record_tile.cuh"
#include "kernels/launch.cuh"
#include "kernels/optimized_sort_tile.cuh"
#include "kernels/tuning.hpp"

namespace bitonic::test {
namespace {

//! The first pass's tile of 64-bit words, whose sub-bucket tiles take the compact way.
using whole_pass = kernels::optimized_sort_tile::whole<std::uint64_t>;
using tile64 = whole_pass::tile_type;
constexpr unsigned tile_keys = tile64::keys;
constexpr unsigned max_run = tuning::compact_record_tile::max_run;
constexpr std::uint64_t untouched = ~std::uint64_t{0};

template <bool Full>
__global__ void __launch_bounds__(tile64::threads)
    compact_tile_kernel(const std::uint64_t* words, unsigned tile_n, bool ties_by_slot,
                        std::uint64_t* out, unsigned* sorted) {
  extern __shared__ __align__(16) unsigned char smem_bytes[];
  const bool done = kernels::compact_record_tile::sort<tile64, Full>(
      words, tile_n, ties_by_slot, smem_bytes,
      [](auto& t32) {
        kernels::optimized_sort_tile::sort_mid_tile<whole_pass::last>(t32, ascending_less{});
      },
      [=](unsigned i, std::uint64_t w) { out[i] = w; });
  if (threadIdx.x == 0) *sorted = done ? 1u : 0u;
}

//! The tile's output (tile_n words) and whether the compact way sorted it.
struct tile_result {
  std::vector<std::uint64_t> out;
  bool sorted = false;
};

template <bool Full>
void launch_compact(const std::uint64_t* in, unsigned tile_n, bool ties_by_slot, std::uint64_t* out,
                    unsigned* sorted) {
  kernels::allow_dynamic_shared_memory<compact_tile_kernel<Full>>(
      tile64::smem_bytes, "compact_tile_kernel shared memory");
  compact_tile_kernel<Full>
      <<<1, tile64::threads, tile64::smem_bytes>>>(in, tile_n, ties_by_slot, out, sorted);
}

tile_result sort_compact(const std::vector<std::uint64_t>& words, bool ties_by_slot) {
  const auto tile_n = unsigned(words.size());
  device_array<std::uint64_t> in(tile_n), out(tile_n);
  device_array<unsigned> sorted(1);
  in.upload(words);
  out.upload(std::vector<std::uint64_t>(tile_n, untouched));
  if (tile_n == tile_keys) {
    launch_compact<true>(in.get(), tile_n, ties_by_slot, out.get(), sorted.get());
  } else {
    launch_compact<false>(in.get(), tile_n, ties_by_slot, out.get(), sorted.get());
  }
  BITONIC_CUDA_CHECK(cudaGetLastError());
  BITONIC_CUDA_CHECK(cudaDeviceSynchronize());
  return {out.download(), sorted.download()[0] != 0};
}

//! tile_n words of keys lo + r, r in runs of run_length (the last one shorter) shuffled over the
//! tile, each word's value a random one; run_length 0: keys drawn from [lo, lo + span).
std::vector<std::uint64_t> tile_words(unsigned tile_n, unsigned run_length, std::uint32_t span,
                                      std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::uint32_t lo = 0x4000'0000u;
  std::vector<std::uint64_t> words(tile_n);
  for (unsigned i = 0; i < tile_n; ++i) {
    const std::uint32_t r = run_length == 0 ? std::uint32_t(rng() % span) : i / run_length;
    words[i] = std::uint64_t{lo + r} << 32 | std::uint32_t(rng());
  }
  std::shuffle(words.begin(), words.end(), rng);
  return words;
}

std::string describe(unsigned tile_n, unsigned run_length, std::uint64_t seed) {
  return "tile_n=" + std::to_string(tile_n) + " run_length=" + std::to_string(run_length) +
         " seed=" + std::to_string(seed);
}

TEST(CompactRecordTile, RankedTiesGiveTheWordsOrder) {
  for (const unsigned tile_n : {tile_keys, 5000u, 33u}) {
    for (const unsigned run_length : {0u, 1u, 2u, 7u, max_run - 1, max_run}) {
      const std::uint64_t seed = 2026'1207 + tile_n * 64 + run_length;
      SCOPED_TRACE(describe(tile_n, run_length, seed));
      const std::vector<std::uint64_t> words = tile_words(tile_n, run_length, 1u << 12, seed);
      std::vector<std::uint64_t> want = words;
      std::sort(want.begin(), want.end());
      if (run_length == 0) {  // random keys: runs of any length up to max_run by chance
        bool long_run = false;
        for (unsigned i = 0; i + max_run < tile_n; ++i)
          long_run = long_run || want[i] >> 32 == want[i + max_run] >> 32;
        ASSERT_FALSE(long_run) << "the random case should hold no run past max_run";
      }
      const tile_result got = sort_compact(words, false);
      ASSERT_TRUE(got.sorted);
      ASSERT_EQ(got.out, want);
    }
  }
}

TEST(CompactRecordTile, TooLongARunOrTooWideARangeIsLeftAlone) {
  for (const unsigned tile_n : {tile_keys, 5000u}) {
    const std::uint64_t seed = 2026'1207 + tile_n;
    SCOPED_TRACE(describe(tile_n, max_run + 1, seed));
    const tile_result got = sort_compact(tile_words(tile_n, max_run + 1, 0, seed), false);
    EXPECT_FALSE(got.sorted) << "a run of max_run + 1 equal keys";
    EXPECT_EQ(got.out, std::vector<std::uint64_t>(tile_n, untouched));
    // Keys spanning 2^(32 - tile_log2) words and more: no room for the slot.
    const std::uint32_t wide = std::uint32_t{1} << (32 - tile64::tile_log2);
    std::vector<std::uint64_t> words = tile_words(tile_n, 0, 1000, seed);
    words[tile_n / 3] = ((words[tile_n / 3] >> 32) + wide) << 32 | 17u;  // one key `wide` higher
    const tile_result spread = sort_compact(words, true);
    EXPECT_FALSE(spread.sorted) << "keys spanning more than " << wide << " words";
    EXPECT_EQ(spread.out, std::vector<std::uint64_t>(tile_n, untouched));
  }
}

TEST(CompactRecordTile, TiesBySlotKeepTheSlotsOrder) {
  for (const unsigned tile_n : {tile_keys, 5000u}) {
    for (const unsigned run_length : {1u, max_run + 1, 1000u}) {  // no bound on runs here
      const std::uint64_t seed = 2026'1208 + tile_n * 64 + run_length;
      SCOPED_TRACE(describe(tile_n, run_length, seed));
      const std::vector<std::uint64_t> words = tile_words(tile_n, run_length, 0, seed);
      std::vector<std::uint64_t> want = words;
      std::stable_sort(want.begin(), want.end(),
                       [](std::uint64_t a, std::uint64_t b) { return a >> 32 < b >> 32; });
      const tile_result got = sort_compact(words, true);
      ASSERT_TRUE(got.sorted);
      ASSERT_EQ(got.out, want);
    }
  }
}

}  // namespace
}  // namespace bitonic::test
