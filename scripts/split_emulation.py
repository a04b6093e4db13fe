#!/usr/bin/env python3
"""Host emulations of the sample split (src/kernels/sample_split.cuh, sample_refine.cuh).

refine: a bucket of the split is cut into k = ceil(n / target) sub-buckets (at most 256) at the
    (j + 1) / k quantiles of a sample of its words from fixed, evenly spread positions, target =
    fill * tile. The first pass pays a whole tile for each sub-bucket of up to a tile; one past a
    tile takes more tiles and a merge (whose tiles rank their ties). Prints, per sample size and
    fill, the share of sub-buckets and of keys past a tile, the tiles a key costs and the
    longest sub-bucket (in tiles: the room a sub-bucket would need if it came from the sample
    rather than from a count). Distinct words, as an argsort's and the pairs' are.
cells: the split's 127 splitters of an argsort of floats (words: the float's ordered bits above
    the position) and shared_splitters' 512 cells of equal width from the least splitter to the
    greatest. Prints, per float distribution (the bench's `uniform` and `unit`), how many
    splitters a key's cell holds and the binary search's steps for them (the descent: 7).
shapes: the split and refined plan of an argsort of 2^log2n floats, per float distribution: the
    split's 128 buckets from its sample of 8192 words, then every 15th bucket refined (8192
    samples, fill 0.85, 8-byte words' tile 2^13). Prints the split's bucket sizes, the share of
    sub-buckets and of keys past a tile, the tiles a key costs, the keys in tiles whose keys span
    2^19 words or more (not compact_record_tile's), and the keys equal to the one before them in
    a sub-bucket (docs/PERFORMANCE.md log 93).

So that a tuning can be chosen before a GPU run measures it (docs/PERFORMANCE.md log 91).
Usage: scripts/split_emulation.py refine [--tile-log2 13] [--bucket-log2 20] [--buckets 24]
       scripts/split_emulation.py cells [--log2n 22]
       scripts/split_emulation.py shapes [--log2n 27]   (all: [--seed 1]; needs numpy; 2^27
                                                          words take ~4 GiB and ~1 minute)
"""
import argparse

import numpy as np


def sorted_sample(words, samples):
    """The kernels' sample (sample_split::sort_sample): words at i * n / samples plus half a
    stride, sorted."""
    q, r = divmod(len(words), samples)
    i = np.arange(samples, dtype=np.int64)
    return np.sort(words[i * q + (i * r) // samples + q // 2])


def sub_bucket_splitters(words, samples, target, most=256):
    """The refinement's k - 1 splitters of a bucket's words, k = ceil(n / target) <= most."""
    sample = sorted_sample(words, samples)
    k = min(most, -(-len(words) // target))
    last_real = max(k - 2, 0)
    return sample[(np.minimum(np.arange(k - 1), last_real) + 1) * samples // k - 1]


def sub_bucket_lengths(words, samples, target, most=256):
    splitters = sub_bucket_splitters(words, samples, target, most)
    # a word equal to a splitter goes to the sub-bucket after it
    return np.bincount(np.searchsorted(splitters, words, side="right"),
                       minlength=len(splitters) + 1)


def refine(args, rng):
    print(f"seed {args.seed}, tile 2^{args.tile_log2}, buckets of ~2^{args.bucket_log2} words")
    mean = 1 << args.bucket_log2
    buckets = [rng.random(int(mean * rng.uniform(0.8, 1.25))) for _ in range(args.buckets)]
    tile = 1 << args.tile_log2
    print("samples  fill  sub-buckets past a tile  their keys  tiles a key  longest")
    for samples in (4096, 8192, 16384):
        for fill in (0.8, 0.85, 0.9):
            subs = past = keys_past = tiles = words = longest = 0
            for b in buckets:
                lengths = sub_bucket_lengths(b, samples, int(fill * tile))
                subs += len(lengths)
                past += int((lengths > tile).sum())
                keys_past += int(lengths[lengths > tile].sum())
                tiles += int(np.ceil(lengths / tile).sum())
                words += len(b)
                longest = max(longest, int(lengths.max()))
            print(f"{samples:7}  {fill:4}  {past / subs:23.3f}  {keys_past / words:10.3f}  "
                  f"{tiles * tile / words:11.3f}  {longest / tile:7.2f}")


def bench_uniform_floats(n, rng):
    """bench/keys.hpp's random_key<float>: 20 random mantissa bits (+ 0.5) in one of 61 binades."""
    bits = rng.integers(0, 1 << 64, n, dtype=np.uint64)
    magnitude = np.ldexp(((bits >> np.uint64(11)) & np.uint64(0xFFFFF)).astype(np.float64) + 0.5,
                         ((bits >> np.uint64(8)) % np.uint64(61)).astype(np.int64) - 40)
    return np.where(bits >> np.uint64(63) == 1, -magnitude, magnitude).astype(np.float32)


def unit_floats(n, rng):
    """bench/keys.hpp's unit_key<float>: numpy's and torch's rand() * 2 - 1."""
    return ((rng.integers(0, 1 << 24, n) - (1 << 23)) * 2.0**-23).astype(np.float32)


FLOATS = (("uniform", bench_uniform_floats), ("unit", unit_floats))


def argsort_words(floats):
    """An argsort's words of float keys: the float's ordered bits above its position."""
    u = floats.view(np.uint32).astype(np.uint64)
    ordered = np.where(u >> np.uint64(31) == 1, ~u & np.uint64(0xFFFFFFFF),
                       u | np.uint64(0x80000000))
    return ordered << np.uint64(32) | np.arange(len(floats), dtype=np.uint64)


def split_splitters(words, buckets, samples_per_bucket):
    """The split's buckets - 1 splitters: every samples_per_bucket-th word of its sample."""
    sample = sorted_sample(words, buckets * samples_per_bucket)
    return sample[np.arange(1, buckets) * samples_per_bucket - 1]


def cells(args, rng, buckets_log2=7, samples_per_bucket=64, cells_log2=9):
    n = 1 << args.log2n
    buckets = 1 << buckets_log2
    print(f"seed {args.seed}, 2^{args.log2n} floats, {buckets} buckets, {1 << cells_log2} cells")
    print("floats   splitters in a key's cell (mean, most)  search steps (mean)")
    for name, make in FLOATS:
        words = argsort_words(make(n, rng))
        splitters = split_splitters(words, buckets, samples_per_bucket)
        low = splitters[0]
        by = np.uint64(max(int(splitters[-1] - low).bit_length() - cells_log2, 0))

        def cell_of(w):
            return np.minimum((np.maximum(w, low) - low) >> by, np.uint64((1 << cells_log2) - 1))

        per_cell = np.bincount(cell_of(splitters).astype(np.int64), minlength=1 << cells_log2)
        held = per_cell[cell_of(words).astype(np.int64)]
        steps = np.ceil(np.log2(held + 1))
        print(f"{name:7}  {held.mean():29.2f}, {per_cell.max():4}  {steps.mean():19.2f}")


def shapes(args, rng, buckets=128, samples_per_bucket=64, samples=8192, tile_log2=13):
    n = 1 << args.log2n
    tile = 1 << tile_log2
    target = int(0.85 * tile)
    print(f"seed {args.seed}, argsort of 2^{args.log2n} floats, {buckets} buckets (every 15th "
          f"refined: {samples} samples, fill 0.85, tile 2^{tile_log2})")
    print("floats   buckets (M words)  past a tile  their keys  tiles a key  wide tiles' keys  "
          "ties a key")
    for name, make in FLOATS:
        words = argsort_words(make(n, rng))
        splitters = split_splitters(words, buckets, samples_per_bucket)
        sizes, subs, past, keys_past, tiles, total, wide, ties = [], 0, 0, 0, 0, 0, 0, 0
        for b in range(8, buckets, 15):
            bucket = words[(words > splitters[b - 1]) & (words <= splitters[b])]  # input order
            sizes.append(len(bucket))
            cuts = sub_bucket_splitters(bucket, samples, target)
            by_sub = np.sort(bucket)  # sub-buckets are ranges of the sorted bucket; a word
            bounds = np.searchsorted(by_sub, cuts, side="left")  # equal to a splitter after it
            for sub in np.split(by_sub, bounds):
                if len(sub) == 0:
                    continue
                keys = sub >> np.uint64(32)
                subs += 1
                total += len(sub)
                tiles += -(-len(sub) // tile)
                if len(sub) > tile:
                    past += 1
                    keys_past += len(sub)
                for first in range(0, len(sub), tile):
                    in_tile = keys[first:first + tile]
                    if int(in_tile[-1] - in_tile[0]) >= 1 << 19:
                        wide += len(in_tile)
                ties += int((keys[1:] == keys[:-1]).sum())
        print(f"{name:7}  {min(sizes) / 2**20:.2f}-{max(sizes) / 2**20:.2f}        "
              f"{past / subs:11.3f}  {keys_past / total:10.3f}  {tiles * tile / total:11.3f}  "
              f"{wide / total:16.4f}  {ties / total:10.3f}")
        del words


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("refine", "cells", "shapes"))
    parser.add_argument("--tile-log2", type=int, default=13, help="first-pass tile (8-byte: 13)")
    parser.add_argument("--bucket-log2", type=int, default=20, help="mean bucket of the split")
    parser.add_argument("--buckets", type=int, default=24, help="buckets emulated")
    parser.add_argument("--log2n", type=int, help="floats (cells: 22, shapes: 27)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    if args.log2n is None:
        args.log2n = 27 if args.what == "shapes" else 22
    {"refine": refine, "cells": cells, "shapes": shapes}[args.what](args, rng)


if __name__ == "__main__":
    main()
