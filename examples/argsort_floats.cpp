// argsort of floats: the positions of measurements in ascending order, NaNs (failed readings)
// last, equal values in input order. bitonic::argsort_host works on host memory (through the GPU
// when there is one, on the CPU otherwise); device data takes bitonic::argsort(d_keys, d_indices,
// n) instead, with the same result. Prints the order and checks it against std::stable_sort.
#include <bitonic/bitonic.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <vector>

int main() {
  const std::vector<float> readings = {2.5f, NAN, -1.0f, 2.5f, 0.0f, -0.0f, 7.25f, NAN, -3.5f};
  std::vector<std::uint32_t> order(readings.size());
  bitonic::argsort_host(readings.data(), order.data(), readings.size());

  for (const std::uint32_t i : order)
    std::printf("readings[%u] = %g\n", i, readings[i]);

  // The same order by std::stable_sort with the library's comparator (NaN-aware, -0.0 == +0.0).
  std::vector<std::uint32_t> expected(readings.size());
  std::iota(expected.begin(), expected.end(), 0u);
  std::stable_sort(expected.begin(), expected.end(), [&](std::uint32_t a, std::uint32_t b) {
    return bitonic::ascending_less{}(readings[a], readings[b]);
  });
  if (order != expected) {
    std::fprintf(stderr, "argsort_floats: order differs from std::stable_sort\n");
    return 1;
  }
  return 0;
}
