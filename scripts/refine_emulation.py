#!/usr/bin/env python3
"""Host emulation of the split's refinement (src/kernels/sample_refine.cuh) on distinct words.

For a bucket of the sample split, the refinement sorts `samples` of its words from fixed, evenly
spread positions and cuts it into k = ceil(n / target) sub-buckets (at most 256) at the sample's
(j + 1) / k quantiles, target = fill * tile. The first pass then pays a whole tile for each
sub-bucket of up to a tile, and a sub-bucket past a tile takes more tiles and a merge (whose
tiles rank their ties). This prints, for each sample size and fill, the share of sub-buckets and
of keys past a tile and the tiles a key costs, so that the tuning (tuning::sample_refine) can
be chosen before a GPU run measures it (docs/PERFORMANCE.md log 91).

Usage: scripts/refine_emulation.py [--tile-log2 13] [--bucket-log2 20] [--buckets 24] [--seed 1]
Needs numpy.
"""
import argparse

import numpy as np


def sub_bucket_lengths(words, samples, target, most=256):
    n = len(words)
    q, r = divmod(n, samples)
    i = np.arange(samples, dtype=np.int64)
    sample = np.sort(words[i * q + (i * r) // samples + q // 2])
    k = min(most, -(-n // target))
    last_real = max(k - 2, 0)
    splitters = sample[(np.minimum(np.arange(k - 1), last_real) + 1) * samples // k - 1]
    # a word equal to a splitter goes to the sub-bucket after it
    return np.bincount(np.searchsorted(splitters, words, side="right"), minlength=k)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tile-log2", type=int, default=13, help="first-pass tile (8-byte: 13)")
    parser.add_argument("--bucket-log2", type=int, default=20, help="mean bucket of the split")
    parser.add_argument("--buckets", type=int, default=24, help="buckets emulated")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    print(f"seed {args.seed}, tile 2^{args.tile_log2}, buckets of ~2^{args.bucket_log2} words")
    mean = 1 << args.bucket_log2
    buckets = [rng.random(int(mean * rng.uniform(0.8, 1.25))) for _ in range(args.buckets)]
    tile = 1 << args.tile_log2
    print("samples  fill  sub-buckets past a tile  their keys  tiles a key")
    for samples in (4096, 8192, 16384):
        for fill in (0.8, 0.85, 0.9):
            past = keys_past = tiles = words = 0
            subs = 0
            for b in buckets:
                lengths = sub_bucket_lengths(b, samples, int(fill * tile))
                subs += len(lengths)
                past += int((lengths > tile).sum())
                keys_past += int(lengths[lengths > tile].sum())
                tiles += int(np.ceil(lengths / tile).sum())
                words += len(b)
            print(f"{samples:7}  {fill:4}  {past / subs:23.3f}  {keys_past / words:10.3f}  "
                  f"{tiles * tile / words:11.3f}")


if __name__ == "__main__":
    main()
