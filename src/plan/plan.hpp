// The plan: which passes over the keys sort n keys with a given algorithm. Host-only; the GPU
// executor (src/dispatch) and the CPU executor (src/cpu) both run it pass by pass.
#pragma once

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
};

struct plan {
  std::size_t n = 0;
  unsigned log2_size = 0;  //!< ceil(log2 n): the network's stages
  algorithm algo = algorithm::global_step;
  std::vector<pass> passes;
  bool needs_scratch = false;  //!< merge passes ping-pong with a buffer of n keys
};

//! Turns (algorithm, n, key size) into passes. `algo` must not be automatic (resolve it first).
plan make_plan(algorithm algo, std::size_t n, std::size_t key_bytes);

//! One line per pass, for debugging and tests.
std::string describe(const plan& p);

std::string_view to_string(pass_kind kind);

}  // namespace bitonic::plan
