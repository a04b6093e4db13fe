// The plan: which passes over the keys sort n keys with a given algorithm. Host-only; the GPU
// executor (src/dispatch) and the CPU executor (src/cpu) both run it pass by pass.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "bitonic/bitonic.hpp"
#include "bitonic/network.hpp"

namespace bitonic::plan {

enum class pass_kind {
  global_step,    //!< one network step over all keys
  block_steps,    //!< consecutive steps local to blocks of 2^span_log2 keys, in global memory (V1)
  tile_steps,     //!< consecutive steps local to tiles of 2^span_log2 keys, in shared memory (V2)
  merge_runs,     //!< merge neighbouring sorted runs of 2^run_log2 keys into runs of twice that
  register_tile,  //!< optimized: steps local to tiles of 2^span_log2 keys, registers + shuffles
  gather_steps,   //!< optimized: several steps of one stage wider than a tile, in one pass
};

struct pass {
  pass_kind kind;
  network::step first{};  //!< network passes: the steps first..last in schedule order
  network::step last{};
  unsigned span_log2 = 0;  //!< block_steps / tile_steps: every step stays inside such blocks
  unsigned run_log2 = 0;   //!< merge_runs: length of the input runs

  //! Number of network steps the pass runs (0 for merge_runs).
  network::index_t steps() const;
  //! Its comparators stay inside aligned blocks of 2^reach_log2() keys (network passes only).
  unsigned reach_log2() const;
};

//! Passes [first, first + count) whose comparators all stay inside aligned blocks of
//! 2^block_log2 keys, to be run block by block: all of them on the first block, then all on the
//! next, so that a block's keys stay in the L2 cache between those passes instead of going to DRAM
//! and back. Any order of independent blocks gives the same result.
struct blocked_passes {
  std::size_t first = 0, count = 0;
  unsigned block_log2 = 0;
};

struct plan {
  std::size_t n = 0;
  unsigned log2_size = 0;  //!< ceil(log2 n): the network's stages
  algorithm algo = algorithm::global_step;
  std::vector<pass> passes;
  bool needs_scratch = false;           //!< merge passes ping-pong with a buffer of n keys
  std::vector<blocked_passes> blocked;  //!< ascending, disjoint; empty: none
};

//! Turns (algorithm, n, key size) into passes. `algo` must not be automatic (resolve it first).
//! block_log2 > 0 (see cache_block_log2) plans an optimized plan for blocks of 2^block_log2 keys:
//! each stage's wide steps split at the block width where that costs no extra pass, and every run
//! of two or more passes that stays inside blocks is marked blocked. Same number of passes; no
//! blocks when the keys fit one block, the block is not wider than a tile, or algo is another.
plan make_plan(algorithm algo, std::size_t n, std::size_t key_bytes, unsigned block_log2 = 0);

//! The block that blocked passes use with a cache of `cache_bytes`: the largest power of two keys
//! within three quarters of it (measured on the H100's 50 MB L2: blocks of 2^23 four-byte keys
//! beat 2^22 and 2^21; the rest of the cache holds what the other SMs' passes touch).
unsigned cache_block_log2(std::size_t cache_bytes, std::size_t key_bytes);

//! Calls run(pass, offset, count) for every pass in the order the executors run them: blocked
//! passes block by block on keys [offset, offset + count), the others on all n keys.
template <class RunPass>
void for_each_pass(const plan& p, RunPass run) {
  auto run_of = p.blocked.begin();
  for (std::size_t i = 0; i < p.passes.size();) {
    if (run_of == p.blocked.end() || i != run_of->first) {
      run(p.passes[i++], std::size_t{0}, p.n);
      continue;
    }
    const std::size_t block = std::size_t{1} << run_of->block_log2;
    for (std::size_t offset = 0; offset < p.n; offset += block) {
      for (std::size_t j = i; j < i + run_of->count; ++j) {
        run(p.passes[j], offset, std::min(block, p.n - offset));
      }
    }
    i += run_of->count;
    ++run_of;
  }
}

//! One line per pass, for debugging and tests.
std::string describe(const plan& p);

std::string_view to_string(pass_kind kind);

}  // namespace bitonic::plan
