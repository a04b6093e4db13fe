#include "plan/segments_plan.hpp"

namespace bitonic::plan {

segments_plan make_segments_plan(const std::array<std::uint64_t, segment_classes>& counts) {
  segments_plan p;
  for (unsigned c = 0; c < segment_classes; ++c) {
    const std::uint64_t count = c == 0 ? 0 : counts[c];
    const std::uint64_t per_block = segments_per_block(c);
    p.counts[c] = count;
    p.first_segment[c + 1] = p.first_segment[c] + count;
    p.first_block[c + 1] = p.first_block[c] + (count + per_block - 1) / per_block;
  }
  return p;
}

}  // namespace bitonic::plan
