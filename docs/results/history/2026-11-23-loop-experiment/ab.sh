#!/usr/bin/env bash
# A/B: f340802 (old: unrolled first pass, a warp a partition) against the working tree (new)
set -u
mkdir -p build-gpu build-old && tar xzf .carry/bins.tgz -C build-gpu && tar xzf .carry/words.tgz -C build-old
for v in old new new2 old2; do
  B=build-old; case $v in new*) B=build-gpu/bin;; esac
  $B/bitonic-sort bench --algo optimized,cub_merge --type i32,f32,i64,f64 --n 65536,1048576,16777216,67108864 --runs 5 --csv $OUT/ab-$v.csv > $OUT/ab-$v.txt 2>&1
  echo "== $v $(date -u +%H:%M:%S)"
  grep -E "^(optimized|cub_merge) |, n = " $OUT/ab-$v.txt | awk '/, n =/ {printf "\n%s %s ", $1, $5} /^(optimized|cub_merge)/ {printf "%s=%s ", $1, $2}'; echo
done
