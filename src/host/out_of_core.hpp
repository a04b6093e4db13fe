// Sorting data larger than the device holds: sort device-sized runs, then merge neighbouring runs
// pairwise, each merge streamed through the device in pieces cut by merge path. Host-only logic
// over a backend, so that tests can drive it with a CPU backend; sort_host.cpp supplies the GPU
// one.
//
// Backend interface:
//   std::size_t run_keys() const        keys one sort_run call may take
//   std::size_t piece_keys() const      output keys one merge_piece call may produce
//   void sort_run(Key* keys, std::size_t n)
//   void merge_piece(const Key* a, std::size_t a_count, const Key* b, std::size_t b_count, Key*
//   out) void copy(Key* dst, const Key* src, std::size_t n)   host to host
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>

#include "network/network.hpp"

namespace bitonic::host {

//! Merges sorted a[0, a_count) (left) and b[0, b_count) into out, piece by piece.
template <class Key, class Less, class Backend>
void merge_streamed(const Key* a, std::size_t a_count, const Key* b, std::size_t b_count, Key* out,
                    Less less, Backend& backend) {
  const std::size_t total = a_count + b_count, piece = backend.piece_keys();
  std::size_t a_begin = 0;
  for (std::size_t begin = 0; begin < total; begin += piece) {
    const std::size_t end = std::min(total, begin + piece);
    const std::size_t a_end = merge::path_split(a, a_count, b, b_count, end, less);
    backend.merge_piece(a + a_begin, a_end - a_begin, b + (begin - a_begin),
                        (end - a_end) - (begin - a_begin), out + begin);
    a_begin = a_end;
  }
}

//! Sorts keys[0, n) with `scratch` (n keys of host memory) for the merge passes.
template <class Key, class Less, class Backend>
void sort_out_of_core(Key* keys, std::size_t n, Key* scratch, Less less, Backend& backend) {
  const std::size_t run = backend.run_keys();
  for (std::size_t begin = 0; begin < n; begin += run) {
    backend.sort_run(keys + begin, std::min(run, n - begin));
  }
  Key* from = keys;
  Key* to = scratch;
  for (std::size_t width = run; width < n; width *= 2) {
    for (std::size_t begin = 0; begin < n; begin += 2 * width) {
      const std::size_t middle = std::min(n, begin + width), end = std::min(n, begin + 2 * width);
      if (middle == end) {
        backend.copy(to + begin, from + begin, end - begin);  // an odd run out: carried over
      } else {
        merge_streamed(from + begin, middle - begin, from + middle, end - middle, to + begin, less,
                       backend);
      }
    }
    std::swap(from, to);
  }
  if (from != keys) backend.copy(keys, from, n);
}

}  // namespace bitonic::host
