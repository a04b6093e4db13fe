// The word sort of wide records (kernels/record_io.cuh: an 8-byte key with an 8-byte value or its
// position as one 16-byte word): the optimized kernels of a split plan instantiated once more, on
// word128, and nothing else of the network (such words have no plan but the split's). The split
// reads the records from the caller's arrays and each bucket's last pass writes them back.
#include <cstddef>
#include <cstdint>

#include "api/records.hpp"
#include "api/workspace.hpp"
#include "dispatch/run_plan.cuh"
#include "kernels/record_io.cuh"
#include "kernels/tuning.hpp"
#include "network/word128.hpp"
#include "plan/plan.hpp"
#include "runtime/device.hpp"

namespace bitonic::api {

namespace {

//! The plan of n wide records: always split, refined as the tuning says.
plan::plan wide_plan(std::size_t n) {
  return plan::make_split_plan(n, sizeof(word128), tuning::sample_refine_min_log2(sizeof(word128)));
}

}  // namespace

bool sorts_as_wide_records(std::size_t n, bool positions, const options& opt) {
  const unsigned min_log2 =
      positions ? tuning::wide_records::argsort_min_log2 : tuning::wide_records::pairs_min_log2;
  return n >= std::size_t{1} << min_log2 &&
         (opt.algo == algorithm::automatic || opt.algo == algorithm::optimized) &&
         runtime::shared_memory_per_block_optin() >=
             tuning::optimized_tile_smem_bytes(sizeof(word128));
}

std::size_t wide_records_bytes(std::size_t n) {
  return align_up(n * sizeof(word128)) + wide_plan(n).scratch_keys * sizeof(word128) +
         workspace_alignment;
}

void sort_wide_records(const kernels::wide_record_io& io, std::size_t n, std::byte* scratch,
                       cudaStream_t stream) {
  const plan::plan p = wide_plan(n);
  if (!dispatch::record_plan_io(p)) {
    throw error("bitonic: internal error: a wide record sort's plan that does not split");
  }
  auto* const base =
      reinterpret_cast<std::byte*>(align_up(reinterpret_cast<std::uintptr_t>(scratch)));
  auto* const words = reinterpret_cast<word128*>(base);
  auto* const split_scratch = reinterpret_cast<word128*>(base + align_up(n * sizeof(word128)));
  {
    const kernels::load_only_scope loading;
    dispatch::run_plan<word128>(p, words, split_scratch, ascending_less{}, stream, nullptr, io);
  }
  dispatch::run_plan<word128>(p, words, split_scratch, ascending_less{}, stream, nullptr, io);
}

}  // namespace bitonic::api
