// Top-k of each row: the 3 best-scoring candidates of each of 4 queries, with their column
// indices, as torch.topk(scores, 3) gives them. topk_host takes host arrays (through the GPU when
// there is one); device arrays take bitonic::topk(d_scores, rows, columns, k, d_top, d_ids, opt).
// Among equal scores the lower index comes first.
#include <bitonic/bitonic.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

int main() {
  constexpr std::size_t rows = 4, columns = 6, k = 3;
  const std::vector<float> scores = {
      0.1f, 0.9f, 0.3f, 0.9f, 0.2f, 0.5f,  // query 0: a tie at 0.9
      1.0f, 0.0f, 0.0f, 0.0f, 0.0f, 2.0f,  // query 1
      0.4f, 0.4f, 0.4f, 0.4f, 0.4f, 0.4f,  // query 2: all equal
      -1.f, -2.f, -3.f, -4.f, -5.f, -6.f,  // query 3
  };
  std::vector<float> top(rows * k);
  std::vector<std::uint64_t> column(rows * k);
  bitonic::options opt;
  opt.direction = bitonic::order::descending;  // the largest scores
  bitonic::topk_host(scores.data(), rows, columns, k, top.data(), column.data(), opt);

  for (std::size_t r = 0; r < rows; ++r) {
    std::printf("query %zu:", r);
    for (std::size_t j = 0; j < k; ++j)
      std::printf("  %.1f (column %llu)", top[r * k + j],
                  static_cast<unsigned long long>(column[r * k + j]));
    std::printf("\n");
  }
  const std::vector<std::uint64_t> expected = {1, 3, 5, 5, 0, 1, 0, 1, 2, 0, 1, 2};
  if (column != expected) {
    std::fprintf(stderr, "top_scores: unexpected columns\n");
    return 1;
  }
  return 0;
}
