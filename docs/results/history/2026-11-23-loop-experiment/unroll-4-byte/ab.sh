#!/usr/bin/env bash
# 4-byte first pass unrolled again (new) against 9d76027 (old, loop for all key sizes)
set -u
mkdir -p build-old && tar xzf .carry/bins.tgz -C build-old bin/bitonic-sort
N=.carry/new
date -u +%H:%M:%S
$N/bitonic_kernel_tests > $OUT/kernel_tests.log 2>&1 && echo "kernel_tests ok" || { echo "kernel_tests FAILED"; grep -B2 -A8 "Failure" $OUT/kernel_tests.log | head -30; }
for tool in memcheck racecheck; do
  /usr/local/cuda/bin/compute-sanitizer --tool $tool --error-exitcode 1 $N/bitonic_kernel_tests --gtest_filter='Sanitize*' > $OUT/$tool.log 2>&1 && echo "$tool ok" || echo "$tool FAILED"
done
for v in old new new2 old2; do
  B=build-old/bin; case $v in new*) B=$N;; esac
  $B/bitonic-sort bench --algo optimized,cub_merge --type i32,f32,i64 --n 65536,1048576,16777216 --runs 9 --csv $OUT/ab-$v.csv > $OUT/ab-$v.txt 2>&1
  echo "== $v $(date -u +%H:%M:%S)"
  grep -E "^(optimized|cub_merge) |, n = " $OUT/ab-$v.txt | awk '/, n =/ {printf "\n%s %s ", $1, $5} /^(optimized|cub_merge)/ {printf "%s=%s ", $1, $2}'; echo
done
