#include <cstdint>

#include "api/records.hpp"
#include "api/sort_gpu.cuh"
#include "kernels/record_io.cuh"

BITONIC_INSTANTIATE_SORT(std::uint64_t)

namespace bitonic::api {

bool sort_records_as_words(const kernels::record_io& io, std::uint64_t* words, std::size_t n,
                           const options& opt, const char* caller) {
  if (opt.direction != order::ascending) {
    throw error("bitonic: internal error: record words sort ascending");
  }
  plan::plan p = sort_plan<std::uint64_t>(n, opt, caller)->plan;
  if (!dispatch::record_plan_io(p)) return false;
  runtime::stream_buffer<std::byte> owned;
  std::uint64_t* const scratch = provide_scratch(p, words, opt, owned, caller);
  if (!dispatch::record_plan_io(p)) return false;  // no memory for the scratch: the in-place plan
  {
    const kernels::load_only_scope loading;
    dispatch::run_plan<std::uint64_t>(p, words, scratch, ascending_less{}, opt.stream, nullptr, io);
  }
  dispatch::run_plan<std::uint64_t>(p, words, scratch, ascending_less{}, opt.stream, nullptr, io);
  return true;
}

}  // namespace bitonic::api
