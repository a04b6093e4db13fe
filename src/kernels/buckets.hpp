// Buckets of a split (sample_split.cuh): the keys cut into ranges such that, under the sort's
// order, no key of a bucket sorts after a key of a later bucket, so that sorting every bucket on
// its own sorts the whole array. The split writes the table into device memory; the first pass
// and the merges read it as the rows they run on (kernels::key_rows), each bucket starting at a
// tile of positions of its own.
#pragma once

#include <cstddef>
#include <utility>

#include "bitonic/order.hpp"  // BITONIC_HOST_DEVICE
#include "kernels/tuning.hpp"
#include "network/network.hpp"

namespace bitonic::kernels {

//! The table of buckets in device memory, as the passes after a split read it.
struct bucket_table {
  using index_t = network::index_t;
  //! tile_bucket's entry for a tile past the last bucket's.
  static constexpr unsigned no_bucket = ~0u;

  unsigned count = 0;      //!< buckets
  unsigned tile_log2 = 0;  //!< a tile of positions is 2^tile_log2 (the merges' tile)
  //! [count + 1]: bucket b holds keys [key_begin[b], key_begin[b + 1]) of the split's output;
  //! key_begin[count] is n.
  const index_t* key_begin = nullptr;
  //! [count + 1]: bucket b's positions are the tiles [tile_begin[b], tile_begin[b + 1]),
  //! ceil(length / 2^tile_log2) of them (none for an empty bucket); its key i at position
  //! (tile_begin[b] << tile_log2) + i, the rest of its last tile missing keys.
  const index_t* tile_begin = nullptr;
  //! [max_tiles(n, count, tile_log2)]: the bucket of tile t, no_bucket from tile_begin[count] on.
  const unsigned* tile_bucket = nullptr;
  //! [count]: the merges past a tile that sort bucket b: merge_stages of its tiles, or 0 for an
  //! equality bucket (all its keys equal: its tiles, each sorted, are the sorted bucket).
  const unsigned* merges = nullptr;
  //! [1]: the most merges past a tile that a bucket takes (the most of `merges`): a merge pass
  //! past it has nothing to do, and its blocks return at once.
  const unsigned* most_merges = nullptr;
  //! [count]: 1 for an equality bucket, whose keys are sorted as they lie (null: none known).
  const unsigned* equal = nullptr;

  //! Tiles of positions that the buckets of n keys can span: every bucket's last tile may be
  //! partial.
  BITONIC_HOST_DEVICE static constexpr index_t max_tiles(index_t n, unsigned buckets,
                                                         unsigned tile_log2) {
    return ((n + (index_t{1} << tile_log2) - 1) >> tile_log2) + buckets;
  }

  //! Merge stages past a tile that a bucket of `tiles` tiles takes to be sorted: ceil(log2 tiles).
  BITONIC_HOST_DEVICE static constexpr unsigned merge_stages(index_t tiles) {
    return network::ceil_log2(tiles);
  }
};

//! The split's and the refinement's scratch is carved in parts of whole 16-byte pieces, so that
//! every part is as aligned as the memory (16 bytes: the splitters of 16-byte record words).
constexpr std::size_t round_up(std::size_t bytes) {
  return (bytes + 15) / 16 * 16;
}
//! Bytes a splitter takes in that scratch: its word's, at least 8.
constexpr std::size_t splitter_bytes(std::size_t key_bytes) {
  return key_bytes < 8 ? 8 : key_bytes;
}

//! The arrays of a bucket_table in a split's device scratch (split_memory, refine_memory), and the
//! table they make for the passes after the split.
struct table_arrays {
  network::index_t* key_begin = nullptr;   //!< [buckets + 1]
  network::index_t* tile_begin = nullptr;  //!< [buckets + 1]
  unsigned* merges = nullptr;              //!< [buckets]
  unsigned* tile_bucket = nullptr;         //!< [tiles]
  unsigned* most_merges = nullptr;         //!< [1]
  unsigned* equal = nullptr;               //!< [buckets]: 1 for an equality bucket
  unsigned buckets = 0;
  unsigned tile_log2 = 0;
  network::index_t tiles = 0;  //!< tiles of positions the buckets can span

  bucket_table table() const {
    return {buckets, tile_log2, key_begin, tile_begin, tile_bucket, merges, most_merges, equal};
  }

 protected:
  //! Points the arrays into a scratch: key_begin and tile_begin (table_buckets + 1 each) from
  //! `begins`, merges at `merges_at`, tile_bucket and most_merges from `tile_bucket_at`.
  void place(unsigned char* begins, unsigned char* merges_at, unsigned char* tile_bucket_at,
             unsigned table_buckets, unsigned table_tile_log2, network::index_t table_tiles) {
    key_begin = reinterpret_cast<network::index_t*>(begins);
    tile_begin = key_begin + (table_buckets + 1);
    merges = reinterpret_cast<unsigned*>(merges_at);
    tile_bucket = reinterpret_cast<unsigned*>(tile_bucket_at);
    most_merges = tile_bucket + table_tiles;
    buckets = table_buckets;
    tile_log2 = table_tile_log2;
    tiles = table_tiles;
  }
  //! The bytes of a scratch whose tile_bucket array starts at tile_bucket_offset: that array
  //! and most_merges, in whole 16-byte pieces (round_up).
  static std::size_t bytes_to_end(std::size_t tile_bucket_offset, network::index_t table_tiles) {
    return tile_bucket_offset + round_up((table_tiles + 1) * sizeof(unsigned));
  }
};

namespace sample_split {

using network::index_t;

//! The device scratch of a split apart from its output: the splitters, the counts of every
//! (bucket, block) (later their first output indices) and the table's arrays, carved from one
//! 16-byte aligned allocation of bytes() bytes in that order.
struct split_memory : table_arrays {  // tiles: bucket_table::max_tiles(n, buckets, tile_log2)
  void* splitters = nullptr;          //!< [buckets - 1] words, breadth-first
  index_t* counts = nullptr;          //!< [buckets * split_blocks], bucket-major
  index_t* lengths = nullptr;         //!< [buckets]: the count kernel's sums

  //! Bytes of scratch for a split of n keys of key_bytes bytes into buckets of tiles of
  //! 2^tile_log2 positions.
  static std::size_t bytes(index_t n, std::size_t key_bytes, unsigned tile_log2) {
    const shape s = shape_of(n, key_bytes, tile_log2);
    return bytes_to_end(s.tile_bucket_offset, s.tiles);
  }

  //! The arrays within `memory` (16-byte aligned, bytes() long) for the same arguments.
  static split_memory carve(void* memory, index_t n, std::size_t key_bytes, unsigned tile_log2) {
    const shape s = shape_of(n, key_bytes, tile_log2);
    unsigned char* const base = static_cast<unsigned char*>(memory);
    split_memory m;
    m.place(base + s.key_begin_offset, base + s.flags_offset, base + s.tile_bucket_offset,
            s.buckets, tile_log2, s.tiles);
    m.splitters = base;
    m.counts = reinterpret_cast<index_t*>(base + s.counts_offset);
    m.lengths = m.tile_begin + (s.buckets + 1);
    m.equal = m.merges + s.buckets;
    return m;
  }

 private:
  struct shape {
    unsigned buckets;
    index_t tiles;
    std::size_t counts_offset, key_begin_offset, flags_offset, tile_bucket_offset;
  };
  static shape shape_of(index_t n, std::size_t key_bytes, unsigned tile_log2) {
    const auto [buckets, blocks] = tuning::for_key_bytes<tuning::sample_split>(
        key_bytes, [](auto t) -> std::pair<unsigned, unsigned> {
          return {decltype(t)::buckets, decltype(t)::split_blocks};
        });
    shape s{buckets, bucket_table::max_tiles(n, buckets, tile_log2), 0, 0, 0, 0};
    s.counts_offset = round_up(std::size_t{buckets - 1} * splitter_bytes(key_bytes));
    s.key_begin_offset = s.counts_offset + std::size_t{buckets} * blocks * sizeof(index_t);
    s.flags_offset = s.key_begin_offset + (3 * std::size_t{buckets} + 2) * sizeof(index_t);
    s.tile_bucket_offset = s.flags_offset + round_up(2 * std::size_t{buckets} * sizeof(unsigned));
    return s;
  }
};

}  // namespace sample_split

//! The device scratch of the split's second level (sample_refine.cuh), behind the split's own:
//! each bucket's splitters, the counts of every (tile of the split's table, sub-bucket) (later
//! their first output indices, from the bucket's first key), and the table of the sub-buckets
//! (sub-bucket j of bucket b is table bucket b * refine buckets + j), carved from one 16-byte
//! aligned allocation of bytes() bytes in that order. Counts are 32-bit: plans refine only fewer
//! than 2^32 keys.
struct refine_memory : table_arrays {  // buckets: all sub-buckets; tiles: max_tiles(...)
  void* splitters = nullptr;           //!< [split buckets][refine buckets - 1] words, breadth-first
  unsigned* counts = nullptr;          //!< [split tiles][refine buckets]
  network::index_t* lengths = nullptr;       //!< [buckets]
  network::index_t* bucket_tiles = nullptr;  //!< [split buckets]: the tiles of its sub-buckets

  //! Tiles of positions that the sub-buckets of n keys can span: a bucket of L keys takes k <=
  //! ceil(L / target) sub-buckets (tuning::sample_refine's fill of a tile), of which at most k + 2
  //! hold keys (the equality buckets among the splitters that repeat the last one are empty but
  //! one), each with one partial tile at most: floor(n / tile) + floor(n / target) + 3 * split
  //! buckets bounds them, far fewer than bucket_table::max_tiles of all sub-buckets.
  static network::index_t max_tiles(network::index_t n, std::size_t key_bytes, unsigned tile_log2) {
    const unsigned split_buckets = tuning::sample_split_buckets(key_bytes);
    const unsigned buckets = split_buckets * tuning::sample_refine_buckets(key_bytes);
    const network::index_t target = tuning::sample_refine_target_keys(key_bytes, tile_log2);
    const network::index_t bound =
        (n >> tile_log2) + n / target + 3 * network::index_t{split_buckets};
    const network::index_t all = bucket_table::max_tiles(n, buckets, tile_log2);
    return bound < all ? bound : all;
  }

  //! Bytes for the second level of a split of n keys of key_bytes bytes.
  static std::size_t bytes(network::index_t n, std::size_t key_bytes, unsigned tile_log2) {
    const shape s = shape_of(n, key_bytes, tile_log2);
    return bytes_to_end(s.tile_bucket_offset, s.tiles);
  }

  //! The arrays within `memory` (16-byte aligned, bytes() long) for the same arguments.
  static refine_memory carve(void* memory, network::index_t n, std::size_t key_bytes,
                             unsigned tile_log2) {
    const shape s = shape_of(n, key_bytes, tile_log2);
    unsigned char* const base = static_cast<unsigned char*>(memory);
    refine_memory m;
    m.place(base + s.key_begin_offset, base + s.merges_offset, base + s.tile_bucket_offset,
            s.buckets, tile_log2, s.tiles);
    m.splitters = base;
    m.equal = reinterpret_cast<unsigned*>(base + s.equal_offset);
    m.counts = reinterpret_cast<unsigned*>(base + s.counts_offset);
    m.lengths = m.tile_begin + (s.buckets + 1);
    m.bucket_tiles = m.lengths + s.buckets;
    return m;
  }

  //! carve() of the memory behind the split's at `split` (split_memory::bytes of it), where the
  //! plans keep it.
  static refine_memory carve_behind_split(void* split, network::index_t n, std::size_t key_bytes,
                                          unsigned tile_log2) {
    return carve(static_cast<unsigned char*>(split) +
                     sample_split::split_memory::bytes(n, key_bytes, tile_log2),
                 n, key_bytes, tile_log2);
  }

 private:
  struct shape {
    unsigned split_buckets, refine_buckets, buckets;
    network::index_t split_tiles, tiles;
    std::size_t equal_offset, counts_offset, key_begin_offset, merges_offset, tile_bucket_offset;
  };
  static shape shape_of(network::index_t n, std::size_t key_bytes, unsigned tile_log2) {
    const unsigned split_buckets = tuning::sample_split_buckets(key_bytes);
    const unsigned refine_buckets = tuning::sample_refine_buckets(key_bytes);
    shape s{};
    s.split_buckets = split_buckets;
    s.refine_buckets = refine_buckets;
    s.buckets = split_buckets * refine_buckets;
    s.split_tiles = bucket_table::max_tiles(n, split_buckets, tile_log2);
    s.tiles = max_tiles(n, key_bytes, tile_log2);
    const std::size_t subs = std::size_t{split_buckets} * refine_buckets;
    s.equal_offset =
        round_up(std::size_t{split_buckets} * (refine_buckets - 1) * splitter_bytes(key_bytes));
    s.counts_offset = s.equal_offset + round_up(subs * sizeof(unsigned));
    s.key_begin_offset =
        s.counts_offset + round_up(s.split_tiles * refine_buckets * sizeof(unsigned));
    s.merges_offset = s.key_begin_offset +
                      (3 * std::size_t{s.buckets} + 2 + split_buckets) * sizeof(network::index_t);
    s.tile_bucket_offset = s.merges_offset + round_up(std::size_t{s.buckets} * sizeof(unsigned));
    return s;
  }
};

}  // namespace bitonic::kernels
