// CPU executor of a plan: runs exactly the comparators (and merges) the GPU runs, pass by pass,
// so that tests can check the plan and the network math against std::sort without a GPU, and the
// CLI has a fallback on machines without one.
#pragma once

#include <algorithm>
#include <vector>

#include "bitonic/network.hpp"
#include "plan/plan.hpp"

namespace bitonic::cpu {

//! Runs steps first..last of the network on keys[0, n), block by block (blocks of 2^span_log2
//! keys; one block of all keys for a global step), as a local kernel would.
template <class Key, class Less>
void run_steps(Key* keys, network::index_t n, network::step first, network::step last,
               unsigned span_log2, Less less) {
  using network::index_t;
  const index_t block = span_log2 == 0 ? n : index_t{1} << span_log2;
  for (index_t base = 0; base < n; base += block) {
    const index_t end = std::min(n, base + block);
    for (network::step st = first;; st = st.next()) {
      const index_t c_end = st.comparators_below(end);
      for (index_t c = st.comparators_below(base); c < c_end; ++c) {
        const index_t lo = st.lower_index(c), hi = st.upper_index(lo);
        if (hi < n) network::compare_exchange(keys[lo], keys[hi], less);
      }
      if (st == last) break;
    }
  }
}

//! Merges neighbouring sorted runs of 2^run_log2 keys from `in` into `out`.
template <class Key, class Less>
void merge_runs(const Key* in, Key* out, network::index_t n, unsigned run_log2, Less less) {
  for (network::index_t i = 0; i < n; ++i) {
    out[merge::destination(in, n, i, run_log2, less)] = in[i];
  }
}

template <class Key, class Less>
void execute(const plan::plan& p, Key* keys, Less less) {
  std::vector<Key> scratch(p.needs_scratch ? p.n : 0);
  Key* data = keys;
  Key* other = scratch.data();
  for (const plan::pass& ps : p.passes) {
    switch (ps.kind) {
      case plan::pass_kind::global_step:
      case plan::pass_kind::gather_steps:
        run_steps(data, p.n, ps.first, ps.last, 0, less);
        break;
      case plan::pass_kind::block_steps:
      case plan::pass_kind::tile_steps:
      case plan::pass_kind::register_tile:
        run_steps(data, p.n, ps.first, ps.last, ps.span_log2, less);
        break;
      case plan::pass_kind::merge_runs:
        merge_runs(data, other, p.n, ps.run_log2, less);
        std::swap(data, other);
        break;
    }
  }
  if (data != keys) std::copy(data, data + p.n, keys);
}

}  // namespace bitonic::cpu
