// The passes of top-k by selection (kernels/topk_select.cuh): how many parts each array is cut
// into, pass by pass. Host-only, like the sort's plan: the api runs the passes, the CPU tests
// check their shape.
#pragma once

#include <cstddef>
#include <vector>

namespace bitonic::plan {

//! Each pass cuts every array into parts[i] parts; each part leaves its K = 2^k_log2 best words
//! as candidates for the next pass, whose arrays are those candidates (parts[i] * K words). The
//! last pass has one part an array and writes the k results.
struct select_plan {
  unsigned k_log2 = 0;
  std::vector<std::size_t> parts;

  //! Candidate words that pass i writes for `batch` arrays (0 for the last pass).
  std::size_t candidates(std::size_t batch, std::size_t i) const;
  //! Words of scratch: pass i writes buffer i % 2, the next pass reads it; buffer 0 first.
  std::size_t scratch_words(std::size_t batch) const;
};

//! The plan for `batch` arrays of n >= 2 keys and 1 <= k <= 2^tuning::topk_select::max_k_log2, on
//! a device of sm_count multiprocessors (at least 1 assumed): m inputs an array are cut into
//! ceil(m / max(part_keys_per_kept * K, min_part_keys)) parts (so each holds at least half that
//! minimum), or fewer where that gives the device more than blocks_per_sm blocks an SM over all
//! arrays. The parts shrink each pass (16 K or more inputs a part, K candidates out), so the plan
//! ends.
select_plan make_select_plan(std::size_t batch, std::size_t n, std::size_t k, unsigned sm_count);

//! Whether top-k of `batch` arrays of n keys, whose select plan is p, selects by one radix
//! selection over each whole array instead (kernels/topk_radix.cuh): p has more than one pass and
//! the call's keys fit tuning::topk_radix::max_keys, so that they stay in the L2 between rounds
//! (the api also asks that the device hold all its blocks at once: topk_radix::fits).
bool selects_by_radix(const select_plan& p, std::size_t batch, std::size_t n);

//! Words of scratch of the radix selection: an array's state and its k candidates.
std::size_t radix_scratch_words(std::size_t batch, std::size_t k);

}  // namespace bitonic::plan
