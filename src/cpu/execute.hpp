// CPU executor of a plan: runs exactly the comparators (and merges) the GPU runs, pass by pass,
// so that tests can check the plan and the network math against std::sort without a GPU, and the
// CLI and sort_host have a fallback on machines without one. Work within a step (or within a
// local pass, block by block) is independent, so it is split over the host's threads.
#pragma once

#include <algorithm>
#include <thread>
#include <vector>

#include "bitonic/bitonic.hpp"
#include "network/network.hpp"
#include "plan/plan.hpp"

namespace bitonic::cpu {

//! Calls fn(begin, end) on consecutive slices of [0, count), on several threads when the work is
//! large enough to pay for starting them (`grain`: the least work a thread gets).
template <class Fn>
void parallel_slices(network::index_t count, network::index_t grain, Fn fn) {
  const network::index_t threads =
      std::clamp<network::index_t>(count / std::max<network::index_t>(grain, 1), 1,
                                   std::max(1u, std::thread::hardware_concurrency()));
  if (threads == 1) {
    fn(network::index_t{0}, count);
    return;
  }
  std::vector<std::thread> workers;
  for (network::index_t t = 1; t < threads; ++t) {
    workers.emplace_back(fn, count * t / threads, count * (t + 1) / threads);
  }
  fn(network::index_t{0}, count / threads);
  for (std::thread& w : workers)
    w.join();
}

inline constexpr network::index_t parallel_grain = network::index_t{1} << 20;  // ~1 ms of work

//! Runs steps first..last of the network on keys[0, n), block by block (blocks of 2^span_log2
//! keys; one block of all keys for a global step), as a local kernel would.
template <class Key, class Less>
void run_steps(Key* keys, network::index_t n, network::step first, network::step last,
               unsigned span_log2, Less less) {
  using network::index_t;
  const auto comparators = [&](network::step st, index_t c_begin, index_t c_end) {
    for (index_t c = c_begin; c < c_end; ++c) {
      const index_t lo = st.lower_index(c), hi = st.upper_index(lo);
      if (hi < n) network::compare_exchange(keys[lo], keys[hi], less);
    }
  };
  if (span_log2 == 0) {  // global steps: one step at a time over all keys, split by comparators
    for (network::step st = first;; st = st.next()) {
      parallel_slices(st.comparators_below(n), parallel_grain,
                      [&](index_t begin, index_t end) { comparators(st, begin, end); });
      if (st == last) break;
    }
    return;
  }
  const index_t block = index_t{1} << span_log2, blocks = (n + block - 1) / block;
  parallel_slices(blocks, std::max<index_t>(1, parallel_grain / block),
                  [&](index_t b0, index_t b1) {
                    for (index_t b = b0; b < b1; ++b) {
                      const index_t base = b * block, end = std::min(n, base + block);
                      for (network::step st = first;; st = st.next()) {
                        comparators(st, st.comparators_below(base), st.comparators_below(end));
                        if (st == last) break;
                      }
                    }
                  });
}

//! Merges neighbouring sorted runs of 2^run_log2 keys from `in` into `out`.
template <class Key, class Less>
void merge_runs(const Key* in, Key* out, network::index_t n, unsigned run_log2, Less less) {
  parallel_slices(n, parallel_grain, [&](network::index_t begin, network::index_t end) {
    for (network::index_t i = begin; i < end; ++i) {
      out[merge::destination(in, n, i, run_log2, less)] = in[i];
    }
  });
}

//! Runs one pass of a network plan (any kind but merge_runs) on the span's keys of `data`.
template <class Key, class Less>
void run_network_pass(const plan::pass& ps, const plan::pass_span& span, Key* data, Less less) {
  Key* const at = data + span.offset;
  switch (ps.kind) {
    case plan::pass_kind::global_step:
    case plan::pass_kind::gather_steps:
      run_steps(at, span.count, ps.first, ps.last, 0, less);
      return;
    case plan::pass_kind::block_steps:
    case plan::pass_kind::tile_steps:
    case plan::pass_kind::sort_tiles:
    case plan::pass_kind::tile_tail:
    case plan::pass_kind::cluster_sort:
    case plan::pass_kind::merge_stages:
    case plan::pass_kind::merge_stage:
      run_steps(at, span.count, ps.first, ps.last, ps.span_log2, less);
      return;
    case plan::pass_kind::merge_runs:
      break;
    case plan::pass_kind::sort_rows:
      throw error("bitonic: internal error: batched plans run on the GPU only");
    case plan::pass_kind::split_buckets:
      throw error("bitonic: internal error: plans that split run on the GPU only");
  }
  throw error("bitonic: internal error: run_network_pass of a merge pass");
}

template <class Key, class Less>
void execute(const plan::plan& p, Key* keys, Less less) {
  std::vector<Key> scratch(p.needs_scratch() ? p.n : 0);
  bool ends_in_scratch = false;
  plan::for_each_pass(p, [&](const plan::pass& ps, const plan::pass_span& span) {
    const plan::pass_buffers<Key> buffers(ps, span, keys, scratch.data());
    ends_in_scratch = buffers.ends_in_scratch;
    if (ps.kind == plan::pass_kind::merge_runs) {  // never blocked: offset 0, count n
      merge_runs(buffers.from, buffers.to, p.n, ps.run_log2, less);
      return;
    }
    if (buffers.to != buffers.from) {  // the network's steps in place, on the other buffer
      std::copy(buffers.from + span.offset, buffers.from + span.offset + span.count,
                buffers.to + span.offset);
    }
    run_network_pass(ps, span, buffers.to, less);
  });
  if (ends_in_scratch) std::copy(scratch.begin(), scratch.end(), keys);
}

}  // namespace bitonic::cpu
