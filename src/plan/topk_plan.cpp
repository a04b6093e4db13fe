#include "plan/topk_plan.hpp"

#include <algorithm>

#include "kernels/tuning.hpp"
#include "network/network.hpp"

namespace bitonic::plan {

std::size_t select_plan::candidates(std::size_t batch, std::size_t i) const {
  return i + 1 < parts.size() ? (batch * parts[i]) << k_log2 : 0;
}

std::size_t select_plan::scratch_words(std::size_t batch) const {
  return candidates(batch, 0) + (parts.size() > 2 ? candidates(batch, 1) : 0);
}

select_plan make_select_plan(std::size_t batch, std::size_t n, std::size_t k, unsigned sm_count) {
  using tuning = tuning::topk_select;
  select_plan p;
  p.k_log2 = network::ceil_log2(k);
  const std::size_t kept = std::size_t{1} << p.k_log2;
  const std::size_t min_part = std::max(tuning::part_keys_per_kept * kept, tuning::min_part_keys);
  const std::size_t target = std::size_t{std::max(sm_count, 1u)} * tuning::blocks_per_sm;
  const std::size_t wanted = std::max<std::size_t>(1, target / std::max<std::size_t>(batch, 1));
  for (std::size_t m = n;; m = p.parts.back() * kept) {  // each pass: parts * K candidates
    p.parts.push_back(std::min(wanted, (m + min_part - 1) / min_part));
    if (p.parts.back() <= 1) break;
  }
  p.parts.back() = 1;
  return p;
}

bool selects_by_radix(const select_plan& p, std::size_t batch, std::size_t n) {
  return p.parts.size() > 1 && n <= tuning::topk_radix::max_keys &&
         batch <= tuning::topk_radix::max_keys / n;
}

std::size_t radix_scratch_words(std::size_t batch, std::size_t k) {
  return batch * (tuning::topk_radix::state_words + k);
}

}  // namespace bitonic::plan
