// The top-k mode of the benchmark (bench --topk): bitonic::topk on batch x n shapes (torch.topk's
// shapes from issue 21 by default), the k largest of each row with their indices, timed as the
// other modes time; a sample of rows checked against std::partial_sort. torch.topk's figures come
// from scripts/topk_torch.py, run beside it on the same GPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace bitonic::bench {

//! One top-k problem: `batch` rows of `n` keys, the k largest of each.
struct topk_shape {
  std::size_t batch = 1;
  std::size_t n = 0;
  std::size_t k = 0;
};

//! The shapes of issue 21 (torch.topk's anchors): LLM sampling, beam search, MoE routing, kNN.
std::vector<topk_shape> default_topk_shapes();

//! "BATCHxN:K" (e.g. 64x131072:50); throws std::invalid_argument naming the text otherwise.
topk_shape parse_topk_shape(std::string_view text);

struct topk_config {
  std::vector<std::string_view> key_types = {"f32"};  //!< as --type spells them
  std::vector<topk_shape> shapes;
  unsigned runs = 5;
  std::uint64_t seed = 20261121;
  std::string csv_path;  //!< empty: no CSV
};

//! Runs the top-k benchmark on the current CUDA device; returns 0, or 1 when a result disagreed
//! with std::partial_sort. Throws without a CUDA device or for an unknown key type.
int run_topk(const topk_config& cfg);

}  // namespace bitonic::bench
