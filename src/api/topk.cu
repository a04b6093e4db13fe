// bitonic::topk: the k first keys of each array in opt.direction, with their indices. 4-byte keys
// with k <= 2048 take the select path (kernels/topk_select.cuh): each part of an array read once,
// its K best kept in shared memory, then the parts' candidates selected again until one part is
// left; where that takes several passes and the keys fit the L2, a radix selection over each whole
// array instead (kernels/topk_radix.cuh). Other keys and larger k take the first k of a stable
// batched argsort (records.cu's record words, kernels/topk_take.cuh), a group of arrays at a time
// so that the scratch stays bounded. All give the first k of a stable sort of each array, bit for
// bit.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "api/options.hpp"
#include "api/records.hpp"
#include "api/topk_args.hpp"
#include "api/workspace.hpp"
#include "bitonic/bitonic.hpp"
#include "bitonic/cuda_helpers.hpp"
#include "kernels/topk_radix.cuh"
#include "kernels/topk_select.cuh"
#include "kernels/topk_take.cuh"
#include "plan/topk_plan.hpp"
#include "runtime/device.hpp"
#include "runtime/stream_buffer.hpp"

namespace bitonic {
namespace api {
namespace {

//! The argsort sorts whole arrays at most this many keys at a time (one array if it is longer):
//! a group of 2^28 keys needs about 2 GiB of scratch and keeps the GPU busy.
constexpr std::size_t group_keys = std::size_t{1} << 28;

//! The arrays sorted at once: as many whole arrays of n keys as fit group_keys, at least one.
std::size_t group_arrays(std::size_t batch, std::size_t n) {
  return std::min(batch, std::max<std::size_t>(1, group_keys / n));
}

namespace select = kernels::topk_select;

//! Whether the select path takes Key with this k.
template <class Key>
constexpr bool selects(std::size_t k) {
  return sizeof(Key) == 4 && k <= (std::size_t{1} << select::tuning::max_k_log2);
}

//! The select path's plan on the current device.
plan::select_plan current_select_plan(std::size_t batch, std::size_t n, std::size_t k) {
  return plan::make_select_plan(batch, n, k, runtime::multiprocessor_count());
}

//! Scratch bytes of a select plan: its candidate buffers (or, by_radix, the radix selection's
//! states and candidates), aligned.
std::size_t select_scratch_bytes(const plan::select_plan& plan, std::size_t batch, std::size_t k,
                                 bool by_radix) {
  const std::size_t words =
      by_radix ? plan::radix_scratch_words(batch, k) : plan.scratch_words(batch);
  return words == 0 ? 0 : align_up(words * sizeof(std::uint64_t)) + workspace_alignment;
}

namespace radix = kernels::topk_radix;

//! The radix selection of `batch` arrays of n keys (kernels/topk_radix.cuh), its states and
//! candidates in `scratch` (null while only asking whether it fits).
template <class Key>
radix::radix_pass radix_selection(const Key* d_keys, std::size_t batch, std::size_t n,
                                  std::size_t k, std::byte* scratch, const options& opt) {
  radix::radix_pass p{};
  p.keys = reinterpret_cast<const std::uint32_t*>(d_keys);
  p.arrays = batch;
  p.n = n;
  p.blocks_per_array =
      (n + tuning::topk_radix::keys_per_block - 1) / tuning::topk_radix::keys_per_block;
  p.k = unsigned(k);
  p.kind = select::key_kind_of<Key>();
  p.descending = opt.direction == order::descending;
  p.states = reinterpret_cast<radix::array_state*>(scratch);
  if (scratch != nullptr) {
    p.candidates = reinterpret_cast<std::uint64_t*>(
        scratch + batch * tuning::topk_radix::state_words * sizeof(std::uint64_t));
  }
  return p;
}

//! Whether topk of these arrays takes the radix selection: the plan's rule, and all its blocks
//! resident at once on the current device.
bool by_radix(const plan::select_plan& plan, std::size_t batch, std::size_t n, std::size_t k) {
  return plan::selects_by_radix(plan, batch, n) &&
         radix::fits(radix_selection<std::uint32_t>(nullptr, batch, n, k, nullptr, {}));
}

//! topk by the radix selection: the arrays' states (zeroed here) and candidates in the scratch,
//! the results ranked into the outputs.
template <class Key, class Index>
void radix_topk(const Key* d_keys, std::size_t batch, std::size_t n, std::size_t k, Key* d_out_keys,
                Index* d_out_indices, std::byte* scratch, const options& opt) {
  const radix::radix_pass p = radix_selection(d_keys, batch, n, k, scratch, opt);
  BITONIC_CUDA_CHECK(cudaMemsetAsync(
      p.states, 0, batch * tuning::topk_radix::state_words * sizeof(std::uint64_t), opt.stream));
  radix::outputs out{reinterpret_cast<std::uint32_t*>(d_out_keys), nullptr, nullptr};
  if constexpr (sizeof(Index) == 4) {
    out.indices32 = reinterpret_cast<std::uint32_t*>(d_out_indices);
  } else {
    out.indices64 = reinterpret_cast<std::uint64_t*>(d_out_indices);
  }
  radix::launch(p, out, opt.stream);
}

//! topk of 4-byte keys by the select path. Arguments checked; batch, k >= 1, n >= 2.
template <class Key, class Index>
void select_topk(const Key* d_keys, std::size_t batch, std::size_t n, std::size_t k,
                 Key* d_out_keys, Index* d_out_indices, const options& opt,
                 std::initializer_list<device_range> apart, const char* caller) {
  {
    const kernels::load_only_scope loading;
    select::launch<select::tuning::block_threads>({}, opt.stream);
    select::launch<select::tuning::wide_block_threads>({}, opt.stream);
    kernels::topk_radix::launch({}, {}, opt.stream);
  }
  const plan::select_plan passes = current_select_plan(batch, n, k);
  const bool radix_path = by_radix(passes, batch, n, k);
  const unsigned sm_count = runtime::multiprocessor_count();
  runtime::stream_buffer<std::byte> owned;
  const std::size_t bytes = select_scratch_bytes(passes, batch, k, radix_path);
  std::byte* scratch = bytes == 0 ? nullptr
                                  : workspace_or_pool(opt, bytes, apart, owned, caller,
                                                      "bitonic::topk_workspace_bytes");
  if (radix_path) return radix_topk(d_keys, batch, n, k, d_out_keys, d_out_indices, scratch, opt);
  std::uint64_t* buffers[2] = {
      reinterpret_cast<std::uint64_t*>(scratch),
      reinterpret_cast<std::uint64_t*>(scratch) + passes.candidates(batch, 0)};
  select::select_pass p{};
  p.keys = reinterpret_cast<const std::uint32_t*>(d_keys);
  p.arrays = batch;
  p.n = n;
  p.m = n;
  p.k = k;
  p.k_log2 = passes.k_log2;
  p.kind = select::key_kind_of<Key>();
  p.descending = opt.direction == order::descending;
  for (std::size_t i = 0; i < passes.parts.size(); ++i) {
    p.parts = passes.parts[i];
    if (p.parts > 1) {
      p.candidates = buffers[i % 2];
    } else {
      p.out_keys = reinterpret_cast<std::uint32_t*>(d_out_keys);
      if constexpr (sizeof(Index) == 4) {
        p.out_indices32 = reinterpret_cast<std::uint32_t*>(d_out_indices);
      } else {
        p.out_indices64 = reinterpret_cast<std::uint64_t*>(d_out_indices);
      }
    }
    select::launch(p, sm_count, opt.stream);
    p.words = p.candidates;
    p.m = passes.parts[i] << passes.k_log2;
  }
}

}  // namespace
}  // namespace api

template <class Key, class Index>
void topk(const Key* d_keys, std::size_t batch, std::size_t n, std::size_t k, Key* d_out_keys,
          Index* d_out_indices, const options& opt) {
  static_assert(std::is_same_v<Index, std::uint32_t> || std::is_same_v<Index, std::uint64_t>,
                "indices of 4 or 8 bytes, unsigned");
  constexpr const char* caller = "bitonic::topk";
  const api::topk_sizes sizes =
      api::check_topk(d_keys, batch, n, k, d_out_keys, d_out_indices, opt, caller);
  if (sizes.done) return;
  const std::size_t keys = sizes.keys, outputs = sizes.outputs;
  const std::initializer_list<api::device_range> apart = {
      {d_keys, keys * sizeof(Key), "the keys"},
      {d_out_keys, d_out_keys != nullptr ? outputs * sizeof(Key) : 0, "the output keys"},
      {d_out_indices, d_out_indices != nullptr ? outputs * sizeof(Index) : 0,
       "the output indices"}};
  if constexpr (sizeof(Key) == 4) {
    if (api::selects<Key>(k)) {
      api::select_topk(d_keys, batch, n, k, d_out_keys, d_out_indices, opt, apart, caller);
      return;
    }
  }
  using bits = std::conditional_t<sizeof(Key) == 4, std::uint32_t, std::uint64_t>;
  {
    const kernels::load_only_scope loading;
    kernels::topk::launch_take_first<bits, Index>(nullptr, nullptr, nullptr, nullptr, nullptr, 0, 0,
                                                  0, opt.stream);
  }
  const std::size_t arrays = api::group_arrays(batch, n);
  runtime::stream_buffer<std::byte> owned;
  std::byte* scratch =
      api::workspace_or_pool(opt, api::argsort_words_bytes<Key>(arrays * n, n, opt), apart, owned,
                             caller, "bitonic::topk_workspace_bytes");
  for (std::size_t first = 0; first < batch; first += arrays) {
    const std::size_t count = std::min(arrays, batch - first);
    const Key* group = d_keys + first * n;
    const api::sorted_words sorted = api::argsort_words(group, count * n, n, opt, scratch);
    kernels::topk::launch_take_first(
        sorted.words, sorted.through, reinterpret_cast<const bits*>(group),
        d_out_keys != nullptr ? reinterpret_cast<bits*>(d_out_keys + first * k) : nullptr,
        d_out_indices != nullptr ? d_out_indices + first * k : nullptr, count, n, k, opt.stream);
  }
}

template <class Key, class Index>
std::size_t topk_workspace_bytes(std::size_t batch, std::size_t n, std::size_t k,
                                 const options& opt) {
  constexpr const char* caller = "bitonic::topk_workspace_bytes";
  api::checked_topk_keys(batch, n, k, opt, true, caller);
  if (!api::topk_sorts(batch, n, k)) return 0;
  if (!gpu_available()) throw error(std::string(caller) + ": no CUDA device");
  if (api::selects<Key>(k)) {
    const plan::select_plan passes = api::current_select_plan(batch, n, k);
    return api::select_scratch_bytes(passes, batch, k, api::by_radix(passes, batch, n, k));
  }
  return api::argsort_words_bytes<Key>(api::group_arrays(batch, n) * n, n, opt);
}

#define BITONIC_INSTANTIATE_NO_PAIR(Key, Value)
#define BITONIC_INSTANTIATE_TOPK(Key, Index)                                                      \
  template void topk<Key, Index>(const Key*, std::size_t, std::size_t, std::size_t, Key*, Index*, \
                                 const options&);                                                 \
  template std::size_t topk_workspace_bytes<Key, Index>(std::size_t, std::size_t, std::size_t,    \
                                                        const options&);
#define BITONIC_INSTANTIATE_KEY_TOPK(Key) \
  BITONIC_FOR_EACH_RECORD(BITONIC_INSTANTIATE_NO_PAIR, BITONIC_INSTANTIATE_TOPK, Key)
BITONIC_FOR_EACH_KEY(BITONIC_INSTANTIATE_KEY_TOPK)

}  // namespace bitonic
