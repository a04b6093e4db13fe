// Throwaway measurement, built and run on an H100 80GB HBM3 on 2026-11-21:
//   nvcc -O3 -std=c++20 -arch=sm_90 order.cu -o order && ./order
//
// Throwaway: DRAM throughput of an in-place read-modify-write pass over 2^27 int32 keys when a
// block of 512 threads x 32 keys takes a "chunk" of 2^14 keys whose index bits are the low L bits
// (consecutive keys) and 14-L bits from bit H up: the chunk kernel's access order, with its
// addresses from host tables (register m = local bits 5-9, lane = 0-4, warp = 10-13).
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>

struct order {
  unsigned long long reg_off[32], warp_off[16];
  unsigned runs, run_pos[16], run_len[16];  // chunk bits as runs, ascending
};

__global__ void __launch_bounds__(512, 2) pass(int* keys, const __grid_constant__ order o) {
  unsigned long long c = blockIdx.x;
  for (unsigned i = 0; i < o.runs; ++i) {
    const unsigned long long below = (1ull << o.run_pos[i]) - 1;
    c = ((c & ~below) << o.run_len[i]) | (c & below);
  }
  const unsigned t = threadIdx.x;
  int* at = keys + c + (t & 31) + o.warp_off[t >> 5];
  int r[32];
#pragma unroll
  for (int m = 0; m < 32; ++m)
    r[m] = at[o.reg_off[m]];
#pragma unroll
  for (int m = 0; m < 32; ++m)
    r[m] += 1;
  unsigned t2 = threadIdx.x;
  asm volatile("" : "+r"(t2) : : "memory");  // recompute the addresses instead of keeping them
  int* at2 = keys + c + (t2 & 31) + o.warp_off[t2 >> 5];
#pragma unroll
  for (int m = 0; m < 32; ++m)
    at2[o.reg_off[m]] = r[m];
}

int main() {
  const size_t n = size_t{1} << 27;
  int* d;
  cudaMalloc(&d, n * 4);
  cudaMemset(d, 0, n * 4);
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  struct cfg {
    const char* name;
    unsigned low, high_start;
  };
  const cfg cfgs[] = {{"contiguous 0..13", 14, 14},   {"low 5 + bits 18..26", 5, 18},
                      {"low 5 + bits 14..22", 5, 14}, {"low 5 + bits 10..18", 5, 10},
                      {"low 5 + bits 6..14", 5, 6},   {"low 6 + bits 19..26", 6, 19},
                      {"low 7 + bits 20..26", 7, 20}, {"low 8 + bits 21..26", 8, 21}};
  for (const cfg& c : cfgs) {
    unsigned bits[14];
    for (unsigned i = 0; i < 14; ++i)
      bits[i] = i < c.low ? i : c.high_start + (i - c.low);
    order o{};
    for (unsigned m = 0; m < 32; ++m)
      for (unsigned i = 0; i < 5; ++i)
        if (m >> i & 1) o.reg_off[m] += 1ull << bits[5 + i];
    for (unsigned w = 0; w < 16; ++w)
      for (unsigned i = 0; i < 4; ++i)
        if (w >> i & 1) o.warp_off[w] += 1ull << bits[10 + i];
    unsigned long long mask = 0;
    for (unsigned b2 : bits)
      mask |= 1ull << b2;
    for (unsigned b2 = 0; b2 < 64; ++b2) {
      if (!(mask >> b2 & 1)) continue;
      if (o.runs && o.run_pos[o.runs - 1] + o.run_len[o.runs - 1] == b2)
        ++o.run_len[o.runs - 1];
      else {
        o.run_pos[o.runs] = b2;
        o.run_len[o.runs++] = 1;
      }
    }
    float best = 1e9;
    for (int rep = 0; rep < 6; ++rep) {
      cudaEventRecord(a);
      pass < <<n>> 14, 512 >>> (d, o);
      cudaEventRecord(b);
      cudaEventSynchronize(b);
      float ms;
      cudaEventElapsedTime(&ms, a, b);
      if (rep > 0 && ms < best) best = ms;
    }
    printf("%-24s %.3f ms  %.0f GB/s (read+write)\n", c.name, best, 2.0 * n * 4 / best / 1e6);
  }
  int* e;
  cudaMalloc(&e, n * 4);
  float best = 1e9;
  for (int rep = 0; rep < 6; ++rep) {
    cudaEventRecord(a);
    cudaMemcpy(e, d, n * 4, cudaMemcpyDeviceToDevice);
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    if (rep > 0 && ms < best) best = ms;
  }
  printf("%-24s %.3f ms  %.0f GB/s (read+write)\n", "cudaMemcpy D2D", best,
         2.0 * n * 4 / best / 1e6);
  printf("%s\n", cudaGetErrorString(cudaGetLastError()));
}
