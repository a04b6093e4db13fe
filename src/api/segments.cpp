// sort_segments, sort_segments_pairs and argsort_segments: the segments binned by length on the
// device (kernels/segment_bins.cuh), the bins' counts read back (the call's synchronisations),
// the short segments sorted by one segment-tile launch (kernels/segment_tiles.cuh, per key size),
// the long ones copied class by class into padded rows (kernels/segment_rows.cuh) and sorted by
// the precompiled batched entry points. The typed entry points only describe their arrays and
// their batched sort; run_segments does the rest with the types erased. The entry points of 1-
// and 2-byte keys (api/small_segments.cpp) sort words of their keys through check_segments and
// sort_word_segments (api/segments.hpp).
#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "api/options.hpp"
#include "api/segments.hpp"
#include "api/workspace.hpp"
#include "bitonic/bitonic.hpp"
#include "bitonic/cuda_helpers.hpp"
#include "kernels/rows.hpp"
#include "kernels/segments.hpp"
#include "network/key_order.hpp"
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

//! One segmented call with its types erased: its arrays, and how to sort its long segments.
struct segments_request : segment_arrays {
  void* out_keys = nullptr;  //!< keys (sort_segments, _pairs) or null (argsort)
  rows::word_map map = rows::word_map::unsigned_bits;
  options opt;
  const char* caller = "";
  //! Sorts `rows` rows of `row_length` keys (a power of two) at key_rows, and their values or
  //! indices at second_rows, with the typed batched entry point.
  std::function<void(void* key_rows, void* second_rows, std::size_t rows, std::size_t row_length,
                     const options&)>
      sort_rows;
  //! The workspace that entry point needs for those rows.
  std::function<std::size_t(std::size_t rows, std::size_t row_length, const options&)>
      rows_workspace;
  //! The bits of the key that sorts after every key, ascending and descending: the padding.
  std::uint64_t pad_bits[2] = {};

  std::size_t second_bytes() const { return value_bytes + index_bytes; }

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

//! Long segments of one class sorted together: rows of 2^row_log2 keys, list entries
//! [first, first + count) of the class-sorted long list.
struct row_group {
  unsigned row_log2 = 0;
  std::size_t first = 0, count = 0;
};

//! The batched sorts of records take at most 2^32 of them a call.
constexpr unsigned max_records_log2 = 32;

//! The options of the long segments' batched sorts: the caller's order, algorithm and stream, a
//! stable sort for pairs (so that the padding, equal to the greatest key at most, stays behind the
//! segment's records), and the workspace given separately.
options rows_options(const segments_request& r) {
  options o = r.opt;
  o.workspace = nullptr;
  o.workspace_bytes = 0;
  if (r.value_bytes != 0) o.stable = true;
  return o;
}

//! Where a group's rows and their sort's workspace lie in the long segments' scratch.
struct group_layout {
  std::size_t second_rows = 0, sort = 0, sort_bytes = 0, bytes = 0;
};

group_layout layout_for(const segments_request& r, std::size_t rows, unsigned row_log2) {
  group_layout g;
  const std::size_t keys = rows << row_log2;
  g.second_rows = align_up(keys * r.key_bytes);
  g.sort = g.second_rows + align_up(keys * r.second_bytes());
  g.sort_bytes = r.rows_workspace(rows, std::size_t{1} << row_log2, rows_options(r));
  g.bytes = g.sort + g.sort_bytes;
  return g;
}

//! Rows a group of class row_log2 may have: the records' limit, or all.
std::size_t max_group_rows(unsigned row_log2) {
  return row_log2 >= max_records_log2 ? 1 : std::size_t{1} << (max_records_log2 - row_log2);
}

//! Scratch (alignment slack included) that the long segments of any call with num_keys keys in
//! its segments can need: for each class, as many segments as fit num_keys, at most a group.
std::size_t long_scratch_bound(const segments_request& r, std::size_t num_keys) {
  std::size_t most = 0;
  for (unsigned c = tuning::segment_tiles::tile_log2 + 1;
       c < 64 && (std::uint64_t{1} << (c - 1)) < num_keys; ++c) {
    const std::size_t fit = num_keys / ((std::size_t{1} << (c - 1)) + 1);
    most = std::max(
        most, layout_for(r, std::max<std::size_t>(1, std::min(fit, max_group_rows(c))), c).bytes);
  }
  return most == 0 ? 0 : most + workspace_alignment;
}

//! The long segments sorted by class (shortest rows first) and cut into groups.
std::vector<row_group> group_by_class(std::vector<segments::long_segment>& list) {
  const auto row_log2 = [](const segments::long_segment& s) {
    return network::ceil_log2(s.end - s.begin);
  };
  std::stable_sort(list.begin(), list.end(),
                   [&](const auto& a, const auto& b) { return row_log2(a) < row_log2(b); });
  std::vector<row_group> groups;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const unsigned c = row_log2(list[i]);
    if (groups.empty() || groups.back().row_log2 != c || groups.back().count == max_group_rows(c)) {
      groups.push_back({c, i, 0});
    }
    ++groups.back().count;
  }
  return groups;
}

//! One element of the device's offsets, as a 64-bit number; enqueued on `stream`.
void read_offset(const segment_arrays& r, std::size_t i, std::uint64_t& out, cudaStream_t stream) {
  out = 0;  // little endian: a 4-byte offset fills the low half
  const auto* at = static_cast<const std::byte*>(r.offsets) + i * r.offset_bytes;
  check_cuda(cudaMemcpyAsync(&out, at, r.offset_bytes, cudaMemcpyDeviceToHost, stream),
             "sort_segments: cudaMemcpyAsync of an offset");
}

//! The keys (and values or indices) of `keys` elements: device memory, apart from each other.
void check_arrays(const segment_arrays& r, std::uint64_t keys, const char* caller) {
  runtime::require_device_range(r.keys, keys, r.key_bytes, r.key_bytes, caller);
  if (r.value_bytes != 0) {
    runtime::require_device_range(r.values, keys, r.value_bytes, r.value_bytes, caller, "d_values");
    require_apart(r.keys, keys * r.key_bytes, r.values, keys * r.value_bytes, caller,
                  "the keys and the values");
  }
  if (r.index_bytes != 0) {
    runtime::require_device_range(r.indices, keys, r.index_bytes, r.index_bytes, caller,
                                  "d_indices");
    require_apart(r.keys, keys * r.key_bytes, r.indices, keys * r.index_bytes, caller,
                  "the keys and the indices");
  }
}

}  // namespace

std::optional<segment_span> check_segments(const segment_arrays& r, const options& opt,
                                           const char* caller_name) {
  const std::string caller = caller_name;
  validate(opt, caller_name);
  require_batched_algorithm(opt, caller_name);
  if (r.num_segments == 0) return std::nullopt;
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
                                caller_name, "d_offsets");
  // The first synchronisation: how many keys, for the checks of the arrays and the scratch.
  segment_span span;
  read_offset(r, 0, span.first, opt.stream);
  read_offset(r, r.num_segments, span.last, opt.stream);
  check_cuda(cudaStreamSynchronize(opt.stream), "sort_segments: cudaStreamSynchronize");
  if (span.last < span.first) {
    throw error(caller + ": the offsets decrease: d_offsets[" + std::to_string(r.num_segments) +
                "] = " + std::to_string(span.last) +
                " < d_offsets[0] = " + std::to_string(span.first));
  }
  check_arrays(r, span.last, caller_name);
  return span;
}

namespace {

//! The segmented sort after check_segments: r's arrays hold the elements from r.origin on.
void run_segments(const segments_request& r, segment_span span) {
  const std::string caller = r.caller;
  const options& opt = r.opt;
  const std::uint64_t first = span.first, last = span.last;
  const std::uint64_t elements = last - r.origin;  // in r's arrays
  const segments_layout layout = layout_for(last - first, r.num_segments);
  runtime::stream_buffer<std::byte> owned;
  std::byte* const scratch =
      workspace_or_pool(opt, layout.bytes,
                        {{r.keys, elements * r.key_bytes, "the keys"},
                         {r.values, elements * r.value_bytes, "the values"},
                         {r.indices, elements * r.index_bytes, "the indices"}},
                        owned, r.caller, "bitonic::segments_workspace_bytes");
  auto* const counters = reinterpret_cast<segments::counters*>(scratch + layout.counters);
  auto* const long_list = reinterpret_cast<segments::long_segment*>(scratch + layout.long_list);
  const segments::bins bins{reinterpret_cast<std::uint64_t*>(scratch + layout.bin_begin),
                            reinterpret_cast<std::uint32_t*>(scratch + layout.bin_length)};
  const bool singles = r.index_bytes != 0;  // argsort writes index 0 for segments of one key
  segments::load(r.key_bytes, r.positions(), r.offset_bytes, r.second_bytes());

  // The second synchronisation: the classes' counts, the long segments, bad offsets.
  check_cuda(cudaMemsetAsync(counters, 0, sizeof(segments::counters), opt.stream),
             "sort_segments: cudaMemsetAsync");
  check_cuda(cudaMemsetAsync(&counters->first_bad, 0xff, sizeof counters->first_bad, opt.stream),
             "sort_segments: cudaMemsetAsync");
  const segments::offsets_view offsets{r.offsets, r.offset_bytes, r.origin};
  segments::count(offsets, r.num_segments, singles, counters, long_list, layout.long_capacity,
                  opt.stream);
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

  // Everything is checked before a key moves: the long segments' rows and their sorts' scratch,
  // from the rest of a caller's workspace or else the pool.
  const std::vector<row_group> groups = group_by_class(long_segments);
  std::size_t rows_bytes = 0;
  for (const row_group& g : groups) {
    if (g.row_log2 > max_records_log2 && (r.positions() || opt.stable)) {
      throw error(caller +
                  ": a segment of more than 2^32 keys; with values, indices or a stable "
                  "sort a segment holds at most 2^32");
    }
    rows_bytes = std::max(rows_bytes, layout_for(r, g.count, g.row_log2).bytes);
  }
  runtime::stream_buffer<std::byte> owned_rows;
  std::byte* rows_scratch = nullptr;
  if (rows_bytes != 0) {
    if (has_workspace(opt)) {
      const std::size_t before = std::size_t(scratch - static_cast<std::byte*>(opt.workspace));
      const std::size_t left =
          opt.workspace_bytes - std::min(opt.workspace_bytes, before + layout.used);
      if (left < rows_bytes + workspace_alignment) {
        throw error(caller + ": the workspace has " + std::to_string(opt.workspace_bytes) +
                    " bytes; these segments need " +
                    std::to_string(layout.bytes + rows_bytes + workspace_alignment) +
                    " (bitonic::segments_workspace_bytes)");
      }
      rows_scratch = reinterpret_cast<std::byte*>(
          align_up(reinterpret_cast<std::uintptr_t>(scratch + layout.used)));
    } else {
      rows_scratch = workspace_or_pool(opt, rows_bytes + workspace_alignment, {}, owned_rows,
                                       r.caller, "bitonic::segments_workspace_bytes");
    }
    check_cuda(cudaMemcpyAsync(long_list, long_segments.data(),
                               long_segments.size() * sizeof(segments::long_segment),
                               cudaMemcpyHostToDevice, opt.stream),
               "sort_segments: cudaMemcpyAsync of the long segments by class");
  }

  std::array<std::uint64_t, plan::segment_classes> counts{};
  std::copy(std::begin(found.counts), std::end(found.counts), counts.begin());
  const plan::segments_plan p = plan::make_segments_plan(counts);
  if (p.blocks() != 0) {
    segments::tile_map map{};
    std::copy(std::begin(p.first_segment), std::end(p.first_segment), map.first_segment);
    std::copy(std::begin(p.first_block), std::end(p.first_block), map.first_block);
    segments::bin(offsets, r.num_segments, singles, map, counters, bins, opt.stream);
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
  // The long segments: class by class into padded rows, the batched sort, and back.
  const options rows_opt = rows_options(r);
  const std::uint64_t pad = r.pad_bits[opt.direction == order::descending ? 1 : 0];
  void* const keys = const_cast<void*>(r.keys);  // only read when copied to rows
  void* const second = r.value_bytes != 0 ? r.values : r.indices;
  for (const row_group& g : groups) {
    const group_layout at = layout_for(r, g.count, g.row_log2);
    const segments::long_segment* list = long_list + g.first;
    std::byte* const key_rows = rows_scratch;
    std::byte* const second_rows = rows_scratch + at.second_rows;
    segments::copy_rows(keys, key_rows, r.key_bytes, list, g.count, g.row_log2, pad, true,
                        opt.stream);
    if (r.value_bytes != 0) {
      segments::copy_rows(second, second_rows, r.value_bytes, list, g.count, g.row_log2, 0, true,
                          opt.stream);
    }
    options sort_opt = rows_opt;
    sort_opt.workspace = at.sort_bytes != 0 ? rows_scratch + at.sort : nullptr;
    sort_opt.workspace_bytes = at.sort_bytes;
    r.sort_rows(key_rows, second_rows, g.count, std::size_t{1} << g.row_log2, sort_opt);
    if (r.out_keys != nullptr) {
      segments::copy_rows(r.out_keys, key_rows, r.key_bytes, list, g.count, g.row_log2, 0, false,
                          opt.stream);
    }
    if (second != nullptr) {
      segments::copy_rows(second, second_rows, r.second_bytes(), list, g.count, g.row_log2, 0,
                          false, opt.stream);
    }
  }
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

//! The key that sorts after every key in each order, as bits: the padding of the long rows.
template <class Key>
void set_padding(segments_request& r) {
  using word = decltype(unsigned_word(Key{}));
  const Key last[2] = {from_unsigned_word<Key>(word(~word{0})), from_unsigned_word<Key>(word{0})};
  for (int i = 0; i < 2; ++i) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &last[i], sizeof(Key));
    r.pad_bits[i] = bits;
  }
}

//! The long rows of keys alone: sort_batched.
template <class Key>
void set_rows_sort(segments_request& r) {
  set_padding<Key>(r);
  r.sort_rows = [](void* key_rows, void*, std::size_t rows, std::size_t length, const options& o) {
    sort_batched(static_cast<Key*>(key_rows), rows, length, o);
  };
  r.rows_workspace = [](std::size_t rows, std::size_t length, const options& o) {
    return batched_workspace_bytes<Key>(rows, length, o);
  };
}

//! The long rows of records: sort_batched_pairs (values), argsort_batched (indices).
template <class Key, class Second, bool Indices>
void set_rows_sort(segments_request& r) {
  set_padding<Key>(r);
  if constexpr (Indices) {
    r.sort_rows = [](void* key_rows, void* index_rows, std::size_t rows, std::size_t length,
                     const options& o) {
      argsort_batched(static_cast<const Key*>(key_rows), static_cast<Second*>(index_rows), rows,
                      length, o);
    };
    r.rows_workspace = [](std::size_t rows, std::size_t length, const options& o) {
      return batched_argsort_workspace_bytes<Key, Second>(rows, length, o);
    };
  } else {
    r.sort_rows = [](void* key_rows, void* value_rows, std::size_t rows, std::size_t length,
                     const options& o) {
      sort_batched_pairs(static_cast<Key*>(key_rows), static_cast<Second*>(value_rows), rows,
                         length, o);
    };
    r.rows_workspace = [](std::size_t rows, std::size_t length, const options& o) {
      return batched_pairs_workspace_bytes<Key, Second>(rows, length, o);
    };
  }
}

//! set_rows_sort for the values or indices that r carries (r.value_bytes, r.index_bytes).
template <class Key>
void set_rows_sort_of_sizes(segments_request& r) {
  if (r.value_bytes == 4) set_rows_sort<Key, std::uint32_t, false>(r);
  if (r.value_bytes == 8) set_rows_sort<Key, std::uint64_t, false>(r);
  if (r.index_bytes == 4) set_rows_sort<Key, std::uint32_t, true>(r);
  if (r.index_bytes == 8) set_rows_sort<Key, std::uint64_t, true>(r);
  if (r.value_bytes + r.index_bytes == 0) set_rows_sort<Key>(r);
}

//! The checks, then the sort.
void run_segments(const segments_request& r) {
  if (const std::optional<segment_span> span = check_segments(r, r.opt, r.caller)) {
    run_segments(r, *span);
  }
}

}  // namespace

template <class Word>
void sort_word_segments(const segment_arrays& a, segment_span span, const options& opt,
                        const char* caller) {
  const auto* words = static_cast<const Word*>(a.keys);
  segments_request r =
      request_for<Word>(words, a.index_bytes == 0 ? const_cast<Word*>(words) : nullptr, a.offsets,
                        a.offset_bytes, a.num_segments, opt, caller);
  static_cast<segment_arrays&>(r) = a;
  r.key_bytes = sizeof(Word);
  set_rows_sort_of_sizes<Word>(r);
  run_segments(r, span);
}

template void sort_word_segments<std::uint32_t>(const segment_arrays&, segment_span, const options&,
                                                const char*);
template void sort_word_segments<std::uint64_t>(const segment_arrays&, segment_span, const options&,
                                                const char*);

}  // namespace api

template <class Key, class Offset>
void sort_segments(Key* d_keys, const Offset* d_offsets, std::size_t num_segments,
                   const options& opt) {
  api::segments_request r = api::request_for<Key>(d_keys, d_keys, d_offsets, sizeof(Offset),
                                                  num_segments, opt, "bitonic::sort_segments");
  api::set_rows_sort<Key>(r);
  api::run_segments(r);
}

template <class Key, class Value, class Offset>
void sort_segments_pairs(Key* d_keys, Value* d_values, const Offset* d_offsets,
                         std::size_t num_segments, const options& opt) {
  api::segments_request r = api::request_for<Key>(
      d_keys, d_keys, d_offsets, sizeof(Offset), num_segments, opt, "bitonic::sort_segments_pairs");
  r.values = d_values;
  r.value_bytes = sizeof(Value);
  api::set_rows_sort<Key, Value, false>(r);
  api::run_segments(r);
}

template <class Key, class Index, class Offset>
void argsort_segments(const Key* d_keys, Index* d_indices, const Offset* d_offsets,
                      std::size_t num_segments, const options& opt) {
  api::segments_request r = api::request_for<Key>(d_keys, nullptr, d_offsets, sizeof(Offset),
                                                  num_segments, opt, "bitonic::argsort_segments");
  r.indices = d_indices;
  r.index_bytes = sizeof(Index);
  api::set_rows_sort<Key, Index, true>(r);
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
  api::segments_request r =
      api::request_for<Key>(nullptr, nullptr, nullptr, 0, num_segments, opt, caller);
  r.value_bytes = value_bytes;
  r.index_bytes = index_bytes;
  api::set_rows_sort_of_sizes<Key>(r);
  return api::layout_for(num_keys, num_segments).bytes + api::long_scratch_bound(r, num_keys);
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
