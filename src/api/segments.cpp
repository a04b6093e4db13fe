// sort_segments, sort_segments_pairs and argsort_segments: the segments binned by length on the
// device (kernels/segment_bins.cuh), the bins' counts read back (the one synchronisation), the
// short segments sorted by one segment-tile launch (kernels/segment_tiles.cuh, per key size), the
// long ones by the precompiled one-array entry points on their keys. The typed entry points only
// describe their arrays; run_segments does the rest with the types erased.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "api/options.hpp"
#include "api/workspace.hpp"
#include "bitonic/bitonic.hpp"
#include "bitonic/cuda_helpers.hpp"
#include "kernels/rows.hpp"
#include "kernels/segments.hpp"
#include "network/network.hpp"
#include "plan/segments_plan.hpp"
#include "runtime/device.hpp"
#include "runtime/stream_buffer.hpp"

namespace bitonic {
namespace api {
namespace {

namespace segments = kernels::segments;
namespace rows = kernels::rows;
static_assert(plan::segment_classes == segments::classes, "the plan and the kernels bin alike");

constexpr std::uint64_t tile = tuning::segment_tiles::tile;

//! One segmented call with its types erased.
struct segments_request {
  const void* keys = nullptr;
  void* out_keys = nullptr;  //!< keys (sort_segments, _pairs) or null (argsort)
  void* values = nullptr;
  void* indices = nullptr;
  std::size_t key_bytes = 0, value_bytes = 0, index_bytes = 0;
  rows::word_map map = rows::word_map::unsigned_bits;
  const void* offsets = nullptr;
  std::size_t offset_bytes = 0;
  std::size_t num_segments = 0;
  options opt;
  const char* caller = "";
  //! Sorts the long segment [begin, end) with the typed one-array entry point and these options.
  std::function<void(std::uint64_t begin, std::uint64_t end, const options&)> sort_long;
  //! The workspace that entry point needs for m keys.
  std::function<std::size_t(std::size_t m, const options&)> long_workspace;

  //! Whether short segments carry positions: stable float keys (whose equivalent keys differ in
  //! bits), values and indices.
  bool positions() const {
    return (opt.stable && map == rows::word_map::float_bits) || value_bytes != 0 ||
           index_bytes != 0;
  }
};

//! Where the call keeps its parts in its scratch, in bytes from its aligned start.
struct segments_layout {
  std::size_t long_capacity = 0;  //!< long segments the list holds: all there can be
  std::size_t counters = 0, long_list = 0, bin_begin = 0, bin_length = 0;
  std::size_t used = 0;   //!< the end of the bins: the long sorts' workspace may follow
  std::size_t bytes = 0;  //!< used, with workspace_alignment of slack
};

segments_layout layout_for(std::size_t num_keys, std::size_t num_segments) {
  segments_layout l;
  l.long_capacity = std::min<std::size_t>(num_segments, num_keys / (tile + 1));
  std::size_t end = 0;
  const auto take = [&](std::size_t bytes) {
    const std::size_t at = end;
    end = align_up(end + bytes);
    return at;
  };
  l.counters = take(sizeof(segments::counters));
  l.long_list = take(l.long_capacity * sizeof(segments::long_segment));
  l.bin_begin = take(num_segments * sizeof(std::uint64_t));
  l.bin_length = take(num_segments * sizeof(std::uint32_t));
  l.used = end;
  l.bytes = end + workspace_alignment;
  return l;
}

//! The long sorts' options: the caller's, with the rest of its workspace (if any).
options long_options(const options& opt) {
  options o = opt;
  o.workspace = nullptr;
  o.workspace_bytes = 0;
  return o;
}

//! The most workspace the long sorts of a call with num_keys keys can need: a segment's sort
//! needs more the longer it is, so the longest possible one (and, to be safe against plans that
//! change at powers of two, every power of two past a tile and its neighbour).
std::size_t long_workspace_bound(const segments_request& r, std::size_t num_keys) {
  if (num_keys <= tile) return 0;
  const options o = long_options(r.opt);
  std::size_t most = r.long_workspace(num_keys, o);
  for (std::size_t m = 2 * tile; m <= num_keys && m != 0; m *= 2)
    most = std::max({most, r.long_workspace(m, o), r.long_workspace(m - 1, o)});
  return most;
}

//! One element of the device's offsets, as a 64-bit number; enqueued on `stream`.
void read_offset(const segments_request& r, std::size_t i, std::uint64_t& out) {
  out = 0;  // little endian: a 4-byte offset fills the low half
  const auto* at = static_cast<const std::byte*>(r.offsets) + i * r.offset_bytes;
  check_cuda(cudaMemcpyAsync(&out, at, r.offset_bytes, cudaMemcpyDeviceToHost, r.opt.stream),
             "sort_segments: cudaMemcpyAsync of an offset");
}

void check_arrays(const segments_request& r, std::uint64_t keys) {
  const std::string caller = r.caller;
  runtime::require_device_range(r.keys, keys, r.key_bytes, r.key_bytes, r.caller);
  if (r.value_bytes != 0) {
    runtime::require_device_range(r.values, keys, r.value_bytes, r.value_bytes, r.caller,
                                  "d_values");
    require_apart(r.keys, keys * r.key_bytes, r.values, keys * r.value_bytes, r.caller,
                  "the keys and the values");
  }
  if (r.index_bytes != 0) {
    runtime::require_device_range(r.indices, keys, r.index_bytes, r.index_bytes, r.caller,
                                  "d_indices");
    require_apart(r.keys, keys * r.key_bytes, r.indices, keys * r.index_bytes, r.caller,
                  "the keys and the indices");
  }
}

void run_segments(const segments_request& r) {
  const std::string caller = r.caller;
  const options& opt = r.opt;
  validate(opt, r.caller);
  require_batched_algorithm(opt, r.caller);
  if (r.num_segments == 0) return;
  if (r.num_segments >= (std::size_t{1} << 62)) {
    throw error(caller + ": " + std::to_string(r.num_segments) + " segments are too many");
  }
  if (!gpu_available()) throw error(caller + ": no CUDA device");
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  check_cuda(cudaStreamIsCapturing(opt.stream, &capture), "cudaStreamIsCapturing");
  if (capture != cudaStreamCaptureStatusNone) {
    throw error(caller +
                ": reads the segments' lengths back to the host (it synchronises the "
                "stream), so it cannot be captured in a CUDA graph");
  }
  runtime::require_device_range(r.offsets, r.num_segments + 1, r.offset_bytes, r.offset_bytes,
                                r.caller, "d_offsets");
  // The first synchronisation: how many keys, for the checks of the arrays and the scratch.
  std::uint64_t first = 0, last = 0;
  read_offset(r, 0, first);
  read_offset(r, r.num_segments, last);
  check_cuda(cudaStreamSynchronize(opt.stream), "sort_segments: cudaStreamSynchronize");
  if (last < first) {
    throw error(caller + ": the offsets decrease: d_offsets[" + std::to_string(r.num_segments) +
                "] = " + std::to_string(last) + " < d_offsets[0] = " + std::to_string(first));
  }
  check_arrays(r, last);

  const segments_layout layout = layout_for(last - first, r.num_segments);
  runtime::stream_buffer<std::byte> owned;
  std::byte* const scratch =
      workspace_or_pool(opt, layout.bytes,
                        {{r.keys, last * r.key_bytes, "the keys"},
                         {r.values, last * r.value_bytes, "the values"},
                         {r.indices, last * r.index_bytes, "the indices"}},
                        owned, r.caller, "bitonic::segments_workspace_bytes");
  auto* const counters = reinterpret_cast<segments::counters*>(scratch + layout.counters);
  auto* const long_list = reinterpret_cast<segments::long_segment*>(scratch + layout.long_list);
  const segments::bins bins{reinterpret_cast<std::uint64_t*>(scratch + layout.bin_begin),
                            reinterpret_cast<std::uint32_t*>(scratch + layout.bin_length)};
  const bool singles = r.index_bytes != 0;  // argsort writes index 0 for segments of one key
  segments::load(r.key_bytes, r.positions(), r.offset_bytes);

  // The second synchronisation: the classes' counts, the long segments, bad offsets.
  check_cuda(cudaMemsetAsync(counters, 0, sizeof(segments::counters), opt.stream),
             "sort_segments: cudaMemsetAsync");
  check_cuda(cudaMemsetAsync(&counters->first_bad, 0xff, sizeof counters->first_bad, opt.stream),
             "sort_segments: cudaMemsetAsync");
  segments::count(r.offsets, r.offset_bytes, r.num_segments, singles, counters, long_list,
                  layout.long_capacity, opt.stream);
  segments::counters found{};
  check_cuda(cudaMemcpyAsync(&found, counters, sizeof found, cudaMemcpyDeviceToHost, opt.stream),
             "sort_segments: cudaMemcpyAsync of the counts");
  check_cuda(cudaStreamSynchronize(opt.stream), "sort_segments: cudaStreamSynchronize");
  if (found.first_bad != ~segments::counter_t{0}) {
    throw error(caller + ": the offsets decrease at segment " + std::to_string(found.first_bad) +
                " (d_offsets[" + std::to_string(found.first_bad + 1) + "] < d_offsets[" +
                std::to_string(found.first_bad) + "])");
  }
  if (found.long_count > layout.long_capacity) {
    throw error(caller + ": internal error: more long segments than keys allow");
  }
  std::vector<segments::long_segment> long_segments(found.long_count);
  if (!long_segments.empty()) {
    check_cuda(cudaMemcpyAsync(long_segments.data(), long_list,
                               long_segments.size() * sizeof(segments::long_segment),
                               cudaMemcpyDeviceToHost, opt.stream),
               "sort_segments: cudaMemcpyAsync of the long segments");
    check_cuda(cudaStreamSynchronize(opt.stream), "sort_segments: cudaStreamSynchronize");
  }

  // Everything is checked before a key moves: the long sorts' share of a caller's workspace.
  options long_opt = long_options(opt);
  if (has_workspace(opt) && !long_segments.empty()) {
    std::size_t needed = 0;
    for (const segments::long_segment& s : long_segments)
      needed = std::max(needed, r.long_workspace(s.end - s.begin, long_opt));
    const std::size_t before = std::size_t(scratch - static_cast<std::byte*>(opt.workspace));
    const std::size_t left =
        opt.workspace_bytes - std::min(opt.workspace_bytes, before + layout.used);
    if (left < needed) {
      throw error(caller + ": the workspace has " + std::to_string(opt.workspace_bytes) +
                  " bytes; these segments need " + std::to_string(layout.bytes + needed) +
                  " (bitonic::segments_workspace_bytes)");
    }
    long_opt.workspace = scratch + layout.used;
    long_opt.workspace_bytes = left;
  }

  std::array<std::uint64_t, plan::segment_classes> counts{};
  std::copy(std::begin(found.counts), std::end(found.counts), counts.begin());
  const plan::segments_plan p = plan::make_segments_plan(counts);
  if (p.blocks() != 0) {
    segments::tile_map map{};
    std::copy(std::begin(p.first_segment), std::end(p.first_segment), map.first_segment);
    std::copy(std::begin(p.first_block), std::end(p.first_block), map.first_block);
    segments::bin(r.offsets, r.offset_bytes, r.num_segments, singles, map, counters, bins,
                  opt.stream);
    segments::tile_call call;
    call.keys = r.keys;
    call.out_keys = r.out_keys;
    call.values = r.values;
    call.indices = r.indices;
    call.key_bytes = r.key_bytes;
    call.value_bytes = r.value_bytes;
    call.index_bytes = r.index_bytes;
    call.positions = r.positions();
    call.map = r.map;
    call.descending = opt.direction == order::descending;
    call.in = bins;
    segments::sort_tiles(call, map, opt.stream);
  }
  for (const segments::long_segment& s : long_segments)
    r.sort_long(s.begin, s.end, long_opt);
}

template <class Key>
segments_request request_for(const Key* keys, Key* out_keys, const void* offsets,
                             std::size_t offset_bytes, std::size_t num_segments, const options& opt,
                             const char* caller) {
  segments_request r;
  r.keys = keys;
  r.out_keys = out_keys;
  r.key_bytes = sizeof(Key);
  r.map = rows::word_map_of<Key>();
  r.offsets = offsets;
  r.offset_bytes = offset_bytes;
  r.num_segments = num_segments;
  r.opt = opt;
  r.caller = caller;
  return r;
}

}  // namespace
}  // namespace api

template <class Key, class Offset>
void sort_segments(Key* d_keys, const Offset* d_offsets, std::size_t num_segments,
                   const options& opt) {
  api::segments_request r = api::request_for<Key>(d_keys, d_keys, d_offsets, sizeof(Offset),
                                                  num_segments, opt, "bitonic::sort_segments");
  r.sort_long = [&](std::uint64_t begin, std::uint64_t end, const options& o) {
    sort(d_keys + begin, end - begin, o);
  };
  r.long_workspace = [](std::size_t m, const options& o) { return workspace_bytes<Key>(m, o); };
  api::run_segments(r);
}

template <class Key, class Value, class Offset>
void sort_segments_pairs(Key* d_keys, Value* d_values, const Offset* d_offsets,
                         std::size_t num_segments, const options& opt) {
  api::segments_request r = api::request_for<Key>(
      d_keys, d_keys, d_offsets, sizeof(Offset), num_segments, opt, "bitonic::sort_segments_pairs");
  r.values = d_values;
  r.value_bytes = sizeof(Value);
  r.sort_long = [&](std::uint64_t begin, std::uint64_t end, const options& o) {
    sort_pairs(d_keys + begin, d_values + begin, end - begin, o);
  };
  r.long_workspace = [](std::size_t m, const options& o) {
    return pairs_workspace_bytes<Key, Value>(m, o);
  };
  api::run_segments(r);
}

template <class Key, class Index, class Offset>
void argsort_segments(const Key* d_keys, Index* d_indices, const Offset* d_offsets,
                      std::size_t num_segments, const options& opt) {
  api::segments_request r = api::request_for<Key>(d_keys, nullptr, d_offsets, sizeof(Offset),
                                                  num_segments, opt, "bitonic::argsort_segments");
  r.indices = d_indices;
  r.index_bytes = sizeof(Index);
  r.sort_long = [&](std::uint64_t begin, std::uint64_t end, const options& o) {
    argsort(d_keys + begin, d_indices + begin, end - begin, o);
  };
  r.long_workspace = [](std::size_t m, const options& o) {
    return argsort_workspace_bytes<Key, Index>(m, o);
  };
  api::run_segments(r);
}

template <class Key>
std::size_t segments_workspace_bytes(std::size_t num_keys, std::size_t num_segments,
                                     const options& opt, std::size_t value_bytes,
                                     std::size_t index_bytes) {
  constexpr const char* caller = "bitonic::segments_workspace_bytes";
  api::validate(opt, caller);
  api::require_batched_algorithm(opt, caller);
  const bool values_ok = value_bytes == 0 || value_bytes == 4 || value_bytes == 8;
  const bool indices_ok = index_bytes == 0 || index_bytes == 4 || index_bytes == 8;
  if (!values_ok || !indices_ok || (value_bytes != 0 && index_bytes != 0)) {
    throw error(std::string(caller) +
                ": value_bytes and index_bytes are 0, 4 or 8, and at most one of them is not 0");
  }
  if (!gpu_available()) throw error(std::string(caller) + ": no CUDA device");
  if (num_segments == 0) return 0;
  api::segments_request r;
  r.opt = opt;
  if (value_bytes == 4) {
    r.long_workspace = [](std::size_t m, const options& o) {
      return pairs_workspace_bytes<Key, std::uint32_t>(m, o);
    };
  } else if (value_bytes == 8) {
    r.long_workspace = [](std::size_t m, const options& o) {
      return pairs_workspace_bytes<Key, std::uint64_t>(m, o);
    };
  } else if (index_bytes == 4) {
    r.long_workspace = [](std::size_t m, const options& o) {
      return argsort_workspace_bytes<Key, std::uint32_t>(m, o);
    };
  } else if (index_bytes == 8) {
    r.long_workspace = [](std::size_t m, const options& o) {
      return argsort_workspace_bytes<Key, std::uint64_t>(m, o);
    };
  } else {
    r.long_workspace = [](std::size_t m, const options& o) { return workspace_bytes<Key>(m, o); };
  }
  return api::layout_for(num_keys, num_segments).bytes + api::long_workspace_bound(r, num_keys);
}

}  // namespace bitonic

#define BITONIC_INSTANTIATE_SEGMENTS_KEY(Key)                                                     \
  template std::size_t bitonic::segments_workspace_bytes<Key>(                                    \
      std::size_t, std::size_t, const bitonic::options&, std::size_t, std::size_t);               \
  template void bitonic::sort_segments<Key, std::uint32_t>(Key*, const std::uint32_t*,            \
                                                           std::size_t, const bitonic::options&); \
  template void bitonic::sort_segments<Key, std::uint64_t>(Key*, const std::uint64_t*,            \
                                                           std::size_t, const bitonic::options&);
#define BITONIC_INSTANTIATE_SEGMENTS_PAIR(Key, Value)                            \
  template void bitonic::sort_segments_pairs<Key, Value, std::uint32_t>(         \
      Key*, Value*, const std::uint32_t*, std::size_t, const bitonic::options&); \
  template void bitonic::sort_segments_pairs<Key, Value, std::uint64_t>(         \
      Key*, Value*, const std::uint64_t*, std::size_t, const bitonic::options&);
#define BITONIC_INSTANTIATE_SEGMENTS_INDEX(Key, Index)                                 \
  template void bitonic::argsort_segments<Key, Index, std::uint32_t>(                  \
      const Key*, Index*, const std::uint32_t*, std::size_t, const bitonic::options&); \
  template void bitonic::argsort_segments<Key, Index, std::uint64_t>(                  \
      const Key*, Index*, const std::uint64_t*, std::size_t, const bitonic::options&);
#define BITONIC_INSTANTIATE_SEGMENTS(Key)                                                        \
  BITONIC_INSTANTIATE_SEGMENTS_KEY(Key)                                                          \
  BITONIC_FOR_EACH_RECORD(BITONIC_INSTANTIATE_SEGMENTS_PAIR, BITONIC_INSTANTIATE_SEGMENTS_INDEX, \
                          Key)
BITONIC_FOR_EACH_KEY(BITONIC_INSTANTIATE_SEGMENTS)
