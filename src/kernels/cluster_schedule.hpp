// Which bits of a key's index each block of the cluster sort holds (optimized_cluster_sort.cuh)
// while the stages past the block run. A block holds 2^B keys: B bits of the index are its tile
// bits, the other C are the block's rank in the cluster. A step can run only on a tile bit, so
// the stages past the block (B + 1 .. B + C, each stepping bits s - 1 down to 0) run in
// segments: runs of consecutive steps on at most B distinct bits, between which an all-to-all
// transpose through distributed shared memory gives the blocks the next segment's bits. Cut
// greedily, 2^16 keys (B = 12, C = 4) need 5 segments, so 5 transposes: 12..1 | 0, 13..3 |
// 2..0, 14..6 | 5..0, 15..10 | 9..0. Swapping the block bits in and out for every stage took 8.
// A segment's i-th distinct bit is tile bit top - i, so its steps are tile bits top..0 in
// order; the last segment holds the index bits below B as tile bits (the blocks' own index, in
// which the keys were loaded and are stored). Plain constexpr C++: the CPU tests check it.
#pragma once

#include "network/network.hpp"  // BITONIC_HOST_DEVICE

namespace bitonic::kernels::cluster_schedule {

//! Index bits (B + C) a schedule handles at most; segments at most.
constexpr unsigned max_bits = 24, max_segments = 16;

//! Where the index bits sit in one segment, and the segment's steps.
struct segment {
  //! Index bit -> tile bit t (< B) or B + rank bit.
  unsigned char location[max_bits];
  //! The segment steps tile bits top..0 in this order.
  unsigned top;
  //! The stage of its first step; the stage changes to stage + 1 after the step on tile bit
  //! `boundary` (the index's bit 0), or never in the segment (boundary < 0).
  unsigned stage;
  int boundary;

  //! The stage after the segment's last step.
  BITONIC_HOST_DEVICE constexpr unsigned last_stage() const {
    return boundary >= 0 ? stage + 1 : stage;
  }
  //! The index bit at tile bit or B + rank bit `where`.
  BITONIC_HOST_DEVICE constexpr unsigned bit_at(unsigned where, unsigned bits) const {
    for (unsigned b = 0; b < bits; ++b)
      if (location[b] == where) return b;
    return bits;
  }
};

//! Segment 0 is the blocks' own index (tile bits = index bits 0..B-1, in which stages 1..B run
//! inside the block); segments 1..count-1 are the stages past the block; transpose i moves the
//! keys from segment i - 1's layout to segment i's.
struct plan {
  segment segments[max_segments];
  unsigned count;
};

//! The schedule of 2^B-key blocks on a cluster of 2^C blocks.
constexpr plan make(unsigned B, unsigned C) {
  plan p{};
  const unsigned bits = B + C;
  const auto own_index = [&](segment& s) {
    for (unsigned b = 0; b < bits; ++b)
      s.location[b] = static_cast<unsigned char>(b);
  };
  own_index(p.segments[0]);
  p.segments[0].top = B - 1;
  p.segments[0].stage = B;
  p.segments[0].boundary = -1;
  p.count = 1;
  // Greedy: a segment takes steps while their distinct bits number at most B.
  unsigned stage = B + 1, bit = B;  // the next step: (stage, bit)
  while (stage <= bits) {
    segment& s = p.segments[p.count];
    const segment& before = p.segments[p.count - 1];
    unsigned order[max_bits]{}, distinct = 0;
    s.stage = stage;
    bool seen[max_bits]{}, stage_changes = false;
    while (stage <= bits && (seen[bit] || distinct < B)) {
      if (!seen[bit]) {
        seen[bit] = true;
        order[distinct++] = bit;
      }
      if (bit == 0) {
        stage_changes = stage < bits && distinct < B;  // and the segment goes on
        ++stage;
        bit = stage - 1;
      } else {
        --bit;
      }
    }
    s.top = distinct - 1;
    if (stage > bits) {  // the last segment: the blocks' own index again
      own_index(s);
    } else {
      for (unsigned i = 0; i < distinct; ++i)
        s.location[order[i]] = static_cast<unsigned char>(distinct - 1 - i);
      // The other bits are rank bits: where they were rank bits before, in the same place; the
      // rest in the free places, lowest first.
      bool taken[max_bits]{};
      for (unsigned b = 0; b < bits; ++b)
        if (!seen[b] && before.location[b] >= B) {
          s.location[b] = before.location[b];
          taken[before.location[b] - B] = true;
        }
      unsigned next = 0;
      for (unsigned b = 0; b < bits; ++b)
        if (!seen[b] && before.location[b] < B) {
          while (taken[next])
            ++next;
          taken[next] = true;
          s.location[b] = static_cast<unsigned char>(B + next);
        }
    }
    s.boundary = stage_changes ? int(s.location[0]) : -1;
    ++p.count;
  }
  return p;
}

}  // namespace bitonic::kernels::cluster_schedule
