#!/usr/bin/env bash
# A/B: main before (old) and after (new), same machine, alternating
set -u
mkdir -p build-gpu build-old && tar xzf .carry/bins.tgz -C build-gpu && tar xzf .carry/old.tgz -C build-old
for round in 1 2; do
  for v in old new; do
    B=build-$v/bin; [ $v = new ] && B=build-gpu/bin
    $B/bitonic-sort bench --algo optimized,cub_merge --type i64,u64,f64 --log2n 22:26 --runs 5 --csv $OUT/ab8-$v-$round.csv > $OUT/ab8-$v-$round.txt 2>&1
    $B/bitonic-sort bench --algo optimized,cub_merge --type i32,f32 --log2n 23:27 --runs 5 --csv $OUT/ab4-$v-$round.csv > $OUT/ab4-$v-$round.txt 2>&1
    echo "== $v round $round $(date -u +%H:%M:%S)"
  done
done
