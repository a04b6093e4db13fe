// Key-value sorting from a .cpp file: orders sorted by price, each carrying its order id (a
// 64-bit value moved as bits with its key). sort_pairs_host sorts host arrays (through the GPU
// when there is one); device arrays take bitonic::sort_pairs(d_keys, d_values, n, opt). With
// opt.stable, orders of the same price keep their input order.
#include <bitonic/bitonic.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

int main() {
  std::vector<double> price = {19.99, 5.00, 42.50, 5.00, 0.99, 19.99};
  std::vector<std::uint64_t> order_id = {1001, 1002, 1003, 1004, 1005, 1006};
  bitonic::options opt;
  opt.direction = bitonic::order::descending;  // most expensive first
  opt.stable = true;
  bitonic::sort_pairs_host(price.data(), order_id.data(), price.size(), opt);

  for (std::size_t i = 0; i < price.size(); ++i)
    std::printf("%8.2f  order %llu\n", price[i], static_cast<unsigned long long>(order_id[i]));

  const std::vector<std::uint64_t> expected = {1003, 1001, 1006, 1002, 1004, 1005};
  if (order_id != expected) {
    std::fprintf(stderr, "sort_records: unexpected order\n");
    return 1;
  }
  return 0;
}
