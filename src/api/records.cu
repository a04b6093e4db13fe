// argsort, sort_pairs and the stable key sort: the 8-byte key sort of record words
// (kernels/records.cuh), then gathers or an unpack. The word sort is the precompiled
// sort<uint64_t>, so records add only a few small kernels (per key type for the words, per element
// size for the gathers) and no copy of the network's kernels. Their batched forms
// (sort_batched_pairs, argsort_batched) are the same with sort_batched<uint64_t> as the word
// sort: the words' positions are global, so the gathers do not change, and within an array they
// keep equal keys in input order as they do in one array. Where the word sort splits into buckets
// (from 2^23 words), 4-byte keys skip the words' own passes: the split reads the keys (and 4-byte
// values) from the caller's arrays and the buckets' last passes write keys and values or indices
// there (kernels/record_io.cuh); unstable pairs and argsort take that way. 8-byte keys with
// values (not stable) or positions (argsort, and the positions that stable pairs and the stable
// sort gather through) from tuning::wide_records' counts sort as 16-byte words instead
// (sort_w128.cu), read and written the same way: one sort.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "api/options.hpp"
#include "api/records.hpp"
#include "api/workspace.hpp"
#include "bitonic/bitonic.hpp"
#include "bitonic/cuda_helpers.hpp"
#include "kernels/record_io.cuh"
#include "kernels/records.cuh"
#include "kernels/rows.hpp"
#include "kernels/tuning.hpp"
#include "network/network.hpp"
#include "runtime/device.hpp"
#include "runtime/stream_buffer.hpp"

namespace bitonic {
namespace api {
namespace {

namespace records = kernels::records;

//! The unsigned integer of Bytes bytes: keys and values move as these.
template <std::size_t Bytes>
using bits_t = std::conditional_t<Bytes == 4, std::uint32_t, std::uint64_t>;

//! Where a record sort keeps its parts in its scratch, in bytes from its aligned start.
struct record_layout {
  std::size_t array_size = 0;  //!< batched: the words sort in arrays of this many (0: as one)
  std::size_t words = 0;       //!< n position words
  std::size_t sort = 0;        //!< the word sort's workspace, sort_bytes of it
  std::size_t sort_bytes = 0;  //!< 0: the word sort works in place
  //! n positions: 8-byte keys' after the low halves' sort; 4-byte keys' sorted ones, which the
  //! split's word sort writes (sort_gathered_by_split) for the gathers
  std::size_t positions = 0;
  std::size_t keys_copy = 0;    //!< the keys to gather from (sort_pairs, stable sort)
  std::size_t values_copy = 0;  //!< the values to gather from (sort_pairs)
  std::size_t bytes = 0;        //!< all of it, with workspace_alignment of slack
  //! 8-byte keys' positions from the sort of 16-byte words (sort_w128.cu), whose scratch takes
  //! the place of the words and the word sort's (`words`, wide_records_bytes of it)
  bool wide = false;
};

//! The word sort: ascending (the words carry the order), the caller's algorithm and stream.
options word_sort_options(const options& opt) {
  options words;
  words.algo = opt.algo;
  words.stream = opt.stream;
  return words;
}

//! Whether records of 4-byte Key in arrays of array_size (0: one array) sort as record rows, in
//! one pass (kernels/record_rows.cuh): batched, each array no longer than a tile of 8-byte words.
//! Throws as the batched word sort would where the device cannot hold its tiles.
template <class Key>
bool sorts_as_record_rows(std::size_t n, std::size_t array_size, const options& opt) {
  if (sizeof(Key) != 4 || array_size < 2 ||
      network::ceil_log2(array_size) > tuning::optimized_tile_log2(sizeof(std::uint64_t))) {
    return false;
  }
  batched_workspace_bytes<std::uint64_t>(n / array_size, array_size, word_sort_options(opt));
  return true;
}

//! Sorts the records of `a` in arrays of array_size 4-byte keys of Key as record rows.
template <class Key>
void sort_record_rows(const kernels::rows::record_arrays& a, std::size_t n, std::size_t array_size,
                      const options& opt) {
  {
    const kernels::load_only_scope loading;
    kernels::rows::sort_record_rows(a, n / array_size, array_size,
                                    kernels::rows::word_map_of<Key>(), opt.direction, opt.stream);
  }
  kernels::rows::sort_record_rows(a, n / array_size, array_size, kernels::rows::word_map_of<Key>(),
                                  opt.direction, opt.stream);
}

//! The layout for n >= 2 keys of key_bytes, with copies of n elements of copy_key_bytes and of
//! value_bytes (0: none) to gather from; batched in arrays of array_size keys unless that is 0.
record_layout layout_for(std::size_t n, std::size_t key_bytes, std::size_t copy_key_bytes,
                         std::size_t value_bytes, const options& opt, std::size_t array_size = 0,
                         bool wide = false) {
  record_layout l;
  l.array_size = array_size;
  l.wide = wide;
  std::size_t end = 0;
  const auto take = [&](std::size_t bytes) {
    const std::size_t at = end;
    end = align_up(end + bytes);
    return at;
  };
  if (wide) {
    l.words = take(wide_records_bytes(n));
  } else {
    l.words = take(n * sizeof(std::uint64_t));
    l.sort_bytes = array_size == 0 ? workspace_bytes<std::uint64_t>(n, word_sort_options(opt))
                                   : batched_workspace_bytes<std::uint64_t>(
                                         n / array_size, array_size, word_sort_options(opt));
    l.sort = take(l.sort_bytes);
  }
  if (key_bytes == 8 || copy_key_bytes + value_bytes != 0) {
    l.positions = take(n * sizeof(std::uint32_t));
  }
  l.keys_copy = take(n * copy_key_bytes);
  l.values_copy = take(n * value_bytes);
  l.bytes = end + workspace_alignment;
  return l;
}

//! How a record sort of Key runs (see kernels/records.cuh).
struct record_plan {
  bool by_class;         //!< class words: equivalent keys keep their input order
  bool keys_from_words;  //!< 4-byte keys decode from the sorted words: no copy to gather from
  bool values_in_words;  //!< 4-byte values ride in the words' low halves: no positions, no gather
};

//! The plan for keys of Key with values of value_bytes (0: none). 8-byte keys take two sorts by
//! halves, which the positions of the first sort must join (class words, keys gathered), or with
//! `wide` one sort of 16-byte words, from whose class words integer keys decode.
template <class Key>
record_plan plan_records(std::size_t value_bytes, bool stable, bool wide = false) {
  record_plan p{};
  p.by_class = stable || sizeof(Key) == 8;
  p.keys_from_words = (sizeof(Key) == 4 || wide) && (!p.by_class || !std::is_floating_point_v<Key>);
  p.values_in_words = sizeof(Key) == 4 && value_bytes == 4 && !p.by_class;
  return p;
}

//! Whether sort_records of n keys of Key with values of value_bytes (0: none) sorts them as wide
//! records: an unstable sort_pairs of 8-byte keys (equal keys end ordered by their values).
template <class Key>
bool sorts_pairs_wide(std::size_t n, std::size_t value_bytes, const options& opt,
                      std::size_t array_size) {
  return sizeof(Key) == 8 && value_bytes != 0 && !opt.stable && array_size == 0 &&
         sorts_as_wide_records(n, false, opt);
}

//! Whether a record sort of n 8-byte keys by their positions (argsort, stable pairs, the stable
//! sort) takes them from the sort of 16-byte words.
template <class Key>
bool sorts_positions_wide(std::size_t n, std::size_t array_size, const options& opt) {
  return sizeof(Key) == 8 && array_size == 0 && sorts_as_wide_records(n, true, opt);
}

//! The layout of a sort of n >= 2 keys of Key, with values of value_bytes (0: none).
template <class Key>
record_layout records_layout(std::size_t n, std::size_t value_bytes, const options& opt,
                             std::size_t array_size = 0) {
  if (sorts_pairs_wide<Key>(n, value_bytes, opt, array_size)) {
    record_layout l;
    l.bytes = wide_records_bytes(n);
    return l;
  }
  const bool wide = sorts_positions_wide<Key>(n, array_size, opt);
  const record_plan p = plan_records<Key>(value_bytes, opt.stable, wide);
  if (p.values_in_words && sorts_as_record_rows<Key>(n, array_size, opt)) return {};
  return layout_for(n, sizeof(Key), p.keys_from_words ? 0 : sizeof(Key),
                    p.values_in_words ? 0 : value_bytes, opt, array_size, wide);
}

//! The scratch's parts by name.
struct record_buffers {
  std::size_t array_size;  //!< record_layout::array_size
  bool wide;               //!< record_layout::wide: `words` is the 16-byte word sort's scratch
  std::uint64_t* words;
  std::uint32_t* positions;
  std::byte* keys_copy;
  std::byte* values_copy;
  options sort;  //!< the word sort's options, on its part of the scratch

  record_buffers(std::byte* base, const record_layout& l, const options& opt)
      : array_size(l.array_size),
        wide(l.wide),
        words(reinterpret_cast<std::uint64_t*>(base + l.words)),
        positions(reinterpret_cast<std::uint32_t*>(base + l.positions)),
        keys_copy(base + l.keys_copy),
        values_copy(base + l.values_copy),
        sort(word_sort_options(opt)) {
    if (l.sort_bytes != 0) {
      sort.workspace = base + l.sort;
      sort.workspace_bytes = l.sort_bytes;
    }
  }
};

//! The record I/O (kernels/record_io.cuh) of keys of Key read from keys_in with values_in (null:
//! positions) beside them, written to keys_out (null: none) and values_out (value_bytes each), as
//! class words when by_class, in `direction`: record_io for 4-byte keys, wide_record_io for
//! 8-byte ones.
template <class Key, class ValuesIn>
auto record_io_of(const Key* keys_in, ValuesIn values_in, Key* keys_out, void* values_out,
                  std::size_t value_bytes, bool by_class, order direction) {
  static_assert(sizeof(Key) == 4 || sizeof(Key) == 8, "keys of 4 or 8 bytes beside their values");
  using IO = std::conditional_t<sizeof(Key) == 4, kernels::record_io, kernels::wide_record_io>;
  using Bits = bits_t<sizeof(Key)>;
  IO io;
  io.keys_in = reinterpret_cast<const Bits*>(keys_in);
  io.values_in = values_in;
  io.keys_out = reinterpret_cast<Bits*>(keys_out);
  io.values_out = values_out;
  io.value_bytes = unsigned(value_bytes);
  io.by_class = by_class;
  io.codec = {kernels::rows::word_map_of<Key>(),
              direction == order::descending ? ~Bits{0} : Bits{0}};
  return io;
}

//! Loads the kernels a record sort of Key launches (gathering Gathered elements; void: none),
//! so that one CUDA cannot load fails the call before the caller's data changes.
template <class Key, class... Gathered>
void load_record_kernels(cudaStream_t stream) {
  const kernels::load_only_scope loading;
  records::launch_record_words<Key>(nullptr, nullptr, nullptr, nullptr, 0, {}, stream);
  if constexpr (sizeof(Key) == 4) {
    records::launch_unpack<Key>(nullptr, nullptr, nullptr, 0, false, stream);
  } else {
    records::launch_positions<std::uint32_t>(nullptr, nullptr, nullptr, 0, stream);
  }
  (records::launch_gather<Gathered>(nullptr, nullptr, nullptr, nullptr, 0, stream), ...);
  // sort_by_split's gathers
  (records::launch_gather_by_index<Gathered, std::uint32_t>(nullptr, nullptr, nullptr, 0, stream),
   ...);
}

//! Sorts the n words in b.words ascending: as one array, or each array of b.array_size.
void sort_record_words(record_buffers& b, std::size_t n) {
  if (b.array_size == 0) {
    bitonic::sort(b.words, n, b.sort);
  } else {
    bitonic::sort_batched(b.words, n / b.array_size, b.array_size, b.sort);
  }
}

//! Sorts the record words of keys[0, n) (class words when by_class) with low[i] (null: i) beside
//! each, so that their low halves, read through the returned array (null: directly), follow the
//! keys' sorted order in opt.direction, stable among equal words. 8-byte keys take no `low`.
template <class Key>
const std::uint32_t* sort_words(const Key* keys, const std::uint32_t* low, std::size_t n,
                                bool by_class, record_buffers& b, const options& opt) {
  const bool descending = opt.direction == order::descending;
  if constexpr (sizeof(Key) == 4) {
    records::launch_record_words(keys, nullptr, low, b.words, n,
                                 {by_class, descending, records::half::whole}, opt.stream);
    sort_record_words(b, n);
    return nullptr;
  } else {
    records::launch_record_words(keys, nullptr, nullptr, b.words, n,
                                 {true, descending, records::half::low}, opt.stream);
    sort_record_words(b, n);
    records::launch_positions<std::uint32_t>(b.words, nullptr, b.positions, n, opt.stream);
    records::launch_record_words(keys, b.positions, nullptr, b.words, n,
                                 {true, descending, records::half::high}, opt.stream);
    sort_record_words(b, n);
    return b.positions;
  }
}

//! A record sort of 4-byte keys where the word sort's plan splits, or of 8-byte keys as 16-byte
//! words (b.wide) (kernels/record_io.cuh): 4-byte values that ride in the words come back beside
//! their keys; otherwise the last passes write the sorted positions to b.positions, through which
//! the values and the keys that do not decode (class words of floats) are gathered from their
//! copies, which must be in place. Returns false, having enqueued nothing, where the plan does
//! not split or the words are not wide.
template <class Key, class Value>
bool sort_by_split(Key* d_keys, Value* d_values, std::size_t n, const record_plan& p,
                   record_buffers& b, const options& opt, const char* caller) {
  const bool gathers = !p.keys_from_words || (d_values != nullptr && !p.values_in_words);
  // (4-byte keys with nothing to gather: no positions kept)
  if (b.array_size != 0 || (sizeof(Key) == 4 && !p.values_in_words && !gathers)) return false;
  const std::uint32_t* values_in = nullptr;
  void* values_out = b.positions;
  if constexpr (sizeof(Value) == 4) {
    if (p.values_in_words) {
      values_in = d_values;
      values_out = d_values;
    }
  }
  const auto io = record_io_of(d_keys, values_in, p.keys_from_words ? d_keys : nullptr, values_out,
                               4, p.by_class, opt.direction);
  if constexpr (sizeof(Key) == 8) {
    if (!b.wide) return false;
    sort_wide_records(io, n, reinterpret_cast<std::byte*>(b.words), opt.stream);
  } else if (!sort_records_as_words(io, b.words, n, b.sort, caller)) {
    return false;
  }
  using key_bits = bits_t<sizeof(Key)>;
  if (!p.keys_from_words) {
    records::launch_gather_by_index(reinterpret_cast<const key_bits*>(b.keys_copy), b.positions,
                                    reinterpret_cast<key_bits*>(d_keys), n, opt.stream);
  }
  if (d_values != nullptr && !p.values_in_words) {
    records::launch_gather_by_index(reinterpret_cast<const Value*>(b.values_copy), b.positions,
                                    d_values, n, opt.stream);
  }
  return true;
}

//! Copies `bytes` from `from` to `to` on `stream` (device to device).
void copy_on_device(void* to, const void* from, std::size_t bytes, cudaStream_t stream) {
  BITONIC_CUDA_CHECK(cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToDevice, stream));
}

//! Sorts d_keys and, unless it is null, d_values with them (values as bits of their size):
//! sort_pairs and the stable key sort.
template <class Key, class Value>
void sort_records(Key* d_keys, Value* d_values, std::size_t n, const options& opt,
                  const char* caller, const char* sizing, std::size_t array_size = 0) {
  using key_bits = bits_t<sizeof(Key)>;
  const std::size_t value_bytes = d_values != nullptr ? sizeof(Value) : 0;
  if constexpr (sizeof(Key) == 8) {
    if (sorts_pairs_wide<Key>(n, value_bytes, opt, array_size)) {
      runtime::stream_buffer<std::byte> owned;
      std::byte* const scratch = workspace_or_pool(
          opt, wide_records_bytes(n),
          {{d_keys, n * sizeof(Key), "the keys"}, {d_values, n * value_bytes, "the values"}}, owned,
          caller, sizing);
      return sort_wide_records(
          record_io_of(d_keys, d_values, d_keys, d_values, value_bytes, false, opt.direction), n,
          scratch, opt.stream);
    }
  }
  const record_plan p =
      plan_records<Key>(value_bytes, opt.stable, sorts_positions_wide<Key>(n, array_size, opt));
  if (p.values_in_words && sorts_as_record_rows<Key>(n, array_size, opt)) {
    kernels::rows::record_arrays a;
    a.keys_in = a.keys_out = d_keys;
    a.values_in = a.second_out = d_values;
    return sort_record_rows<Key>(a, n, array_size, opt);
  }
  load_record_kernels<Key, key_bits, Value>(opt.stream);
  const record_layout l = records_layout<Key>(n, value_bytes, opt, array_size);
  runtime::stream_buffer<std::byte> owned;
  record_buffers b(workspace_or_pool(opt, l.bytes,
                                     {{d_keys, n * sizeof(Key), "the keys"},
                                      {d_values, n * value_bytes, "the values"}},
                                     owned, caller, sizing),
                   l, opt);
  if (!p.keys_from_words) copy_on_device(b.keys_copy, d_keys, n * sizeof(Key), opt.stream);
  if (!p.values_in_words) copy_on_device(b.values_copy, d_values, n * value_bytes, opt.stream);
  // the split reads the records itself
  if (sort_by_split(d_keys, d_values, n, p, b, opt, caller)) return;
  const std::uint32_t* low = nullptr;
  if constexpr (sizeof(Value) == 4) low = p.values_in_words ? d_values : nullptr;
  const std::uint32_t* through = sort_words(d_keys, low, n, p.by_class, b, opt);
  if constexpr (sizeof(Key) == 4) {
    if (p.keys_from_words) {
      std::uint32_t* values_out = nullptr;
      if constexpr (sizeof(Value) == 4) values_out = p.values_in_words ? d_values : nullptr;
      records::launch_unpack(b.words, d_keys, values_out, n, opt.direction == order::descending,
                             opt.stream);
    }
  }
  if (!p.keys_from_words) {
    records::launch_gather(b.words, through, reinterpret_cast<const key_bits*>(b.keys_copy),
                           reinterpret_cast<key_bits*>(d_keys), n, opt.stream);
  }
  if (value_bytes != 0 && !p.values_in_words) {
    records::launch_gather(b.words, through, reinterpret_cast<const Value*>(b.values_copy),
                           d_values, n, opt.stream);
  }
}

//! The record I/O of an argsort of keys_in into indices (index_bytes each) and, unless keys_out is
//! null, the sorted keys: each key's word beside its position, each sorted key decoded from its
//! word. Where `stable`, class words, and floats' zeros and NaNs read at their positions
//! (record_io::keys_by_position).
template <class Key>
auto argsort_io(const Key* keys_in, Key* keys_out, void* indices, std::size_t index_bytes,
                bool stable, order direction) {
  auto io = record_io_of(keys_in, nullptr, keys_out, indices, index_bytes, stable, direction);
  io.keys_by_position = stable && std::is_floating_point_v<Key>;
  return io;
}

//! The argsort of 4-byte keys where the word sort's plan splits: its split reads the keys and its
//! last passes write the indices and the sorted keys (argsort_io). Returns false, having enqueued
//! nothing, where the plan does not split. `scratch` as argsort_records has it.
template <class Key, class Index>
bool argsort_by_split(const Key* d_keys, Key* d_sorted_keys, Index* d_indices, std::size_t n,
                      const options& opt, std::byte* scratch, const char* caller) {
  record_buffers b(scratch, layout_for(n, sizeof(Key), 0, 0, opt), opt);
  return sort_records_as_words(
      argsort_io(d_keys, d_sorted_keys, d_indices, sizeof(Index), opt.stable, opt.direction),
      b.words, n, b.sort, caller);
}

//! The argsort of 8-byte keys as wide records (kernels/record_io.cuh): each key's class word beside
//! its position, sorted as one 16-byte word, so that equivalent keys keep their input order; the
//! last passes write the indices and the sorted keys (argsort_io).
template <class Key, class Index>
void argsort_wide(const Key* d_keys, Key* d_sorted_keys, Index* d_indices, std::size_t n,
                  const options& opt, const char* caller, const char* sizing) {
  runtime::stream_buffer<std::byte> owned;
  std::byte* const scratch = workspace_or_pool(
      opt, wide_records_bytes(n),
      {{d_keys, n * sizeof(Key), "the keys"},
       {d_indices, n * sizeof(Index), "the indices"},
       {d_sorted_keys, d_sorted_keys != nullptr ? n * sizeof(Key) : 0, "the sorted keys"}},
      owned, caller, sizing);
  sort_wide_records(
      argsort_io(d_keys, d_sorted_keys, d_indices, sizeof(Index), true, opt.direction), n, scratch,
      opt.stream);
}

//! The argsort of d_keys[0, n) into d_indices, and the sorted keys into d_sorted_keys unless that
//! is null; arguments checked, n >= 2; batched in arrays of array_size keys (indices counted from
//! each array's start) unless that is 0.
template <class Key, class Index>
void argsort_records(const Key* d_keys, Key* d_sorted_keys, Index* d_indices, std::size_t n,
                     const options& opt, const char* caller, const char* sizing,
                     std::size_t array_size = 0) {
  if (sorts_as_record_rows<Key>(n, array_size, opt)) {
    kernels::rows::record_arrays a;
    a.keys_in = d_keys;
    a.keys_out = d_sorted_keys;
    a.second_out = d_indices;
    a.second_bytes = sizeof(Index);
    a.by_class = true;
    a.keys_gathered = std::is_floating_point_v<Key>;
    return sort_record_rows<Key>(a, n, array_size, opt);
  }
  if constexpr (sizeof(Key) == 8) {
    if (sorts_positions_wide<Key>(n, array_size, opt)) {
      return argsort_wide(d_keys, d_sorted_keys, d_indices, n, opt, caller, sizing);
    }
  }
  using key_bits = bits_t<sizeof(Key)>;
  {
    const kernels::load_only_scope loading;
    records::launch_positions<Index>(nullptr, nullptr, nullptr, 0, opt.stream);
    records::launch_gather<key_bits>(nullptr, nullptr, nullptr, nullptr, 0, opt.stream);
  }
  runtime::stream_buffer<std::byte> owned;
  std::byte* scratch = workspace_or_pool(
      opt, argsort_words_bytes<Key>(n, array_size, opt),
      {{d_keys, n * sizeof(Key), "the keys"},
       {d_indices, n * sizeof(Index), "the indices"},
       {d_sorted_keys, d_sorted_keys != nullptr ? n * sizeof(Key) : 0, "the sorted keys"}},
      owned, caller, sizing);
  if constexpr (sizeof(Key) == 4) {
    if (array_size == 0 &&
        argsort_by_split(d_keys, d_sorted_keys, d_indices, n, opt, scratch, caller)) {
      return;
    }
  }
  const sorted_words sorted = argsort_words(d_keys, n, array_size, opt, scratch);
  records::launch_positions(sorted.words, sorted.through, d_indices, n, opt.stream, array_size);
  if (d_sorted_keys != nullptr) {
    records::launch_gather(sorted.words, sorted.through, reinterpret_cast<const key_bits*>(d_keys),
                           reinterpret_cast<key_bits*>(d_sorted_keys), n, opt.stream);
  }
}

//! argsort_records' workspace bytes.
template <class Key>
std::size_t argsort_bytes(std::size_t n, std::size_t array_size, const options& opt) {
  if (sorts_positions_wide<Key>(n, array_size, opt)) return wide_records_bytes(n);
  return sorts_as_record_rows<Key>(n, array_size, opt)
             ? 0
             : argsort_words_bytes<Key>(n, array_size, opt);
}

}  // namespace

template <class Key>
void stable_sort_keys(Key* d_keys, std::size_t n, const options& opt, std::size_t array_size) {
  const char* caller = array_size == 0 ? "bitonic::sort" : "bitonic::sort_batched";
  require_positions(n, caller);
  options stable = opt;
  stable.stable = true;
  sort_records(d_keys, static_cast<std::uint32_t*>(nullptr), n, stable, caller,
               array_size == 0 ? "bitonic::workspace_bytes" : "bitonic::batched_workspace_bytes",
               array_size);
}

template <class Key>
std::size_t stable_sort_workspace_bytes(std::size_t n, const options& opt, std::size_t array_size) {
  require_positions(
      n, array_size == 0 ? "bitonic::workspace_bytes" : "bitonic::batched_workspace_bytes");
  options stable = opt;
  stable.stable = true;
  return records_layout<Key>(n, 0, stable, array_size).bytes;
}

template <class Key>
std::size_t argsort_words_bytes(std::size_t n, std::size_t array_size, const options& opt) {
  return layout_for(n, sizeof(Key), 0, 0, opt, array_size).bytes;
}

template <class Key>
sorted_words argsort_words(const Key* d_keys, std::size_t n, std::size_t array_size,
                           const options& opt, std::byte* scratch) {
  load_record_kernels<Key>(opt.stream);
  record_buffers b(scratch, layout_for(n, sizeof(Key), 0, 0, opt, array_size), opt);
  return {b.words, sort_words(d_keys, nullptr, n, true, b, opt)};
}

#define BITONIC_INSTANTIATE_ARGSORT_WORDS(Key)                                                   \
  template std::size_t argsort_words_bytes<Key>(std::size_t, std::size_t, const options&);       \
  template sorted_words argsort_words<Key>(const Key*, std::size_t, std::size_t, const options&, \
                                           std::byte*);
BITONIC_FOR_EACH_KEY(BITONIC_INSTANTIATE_ARGSORT_WORDS)
#undef BITONIC_INSTANTIATE_ARGSORT_WORDS

template void stable_sort_keys<float>(float*, std::size_t, const options&, std::size_t);
template void stable_sort_keys<double>(double*, std::size_t, const options&, std::size_t);
template std::size_t stable_sort_workspace_bytes<float>(std::size_t, const options&, std::size_t);
template std::size_t stable_sort_workspace_bytes<double>(std::size_t, const options&, std::size_t);

}  // namespace api

template <class Key, class Value>
void sort_pairs(Key* d_keys, Value* d_values, std::size_t n, const options& opt) {
  static_assert(sizeof(Value) == 4 || sizeof(Value) == 8, "values of 4 or 8 bytes");
  constexpr const char* caller = "bitonic::sort_pairs";
  api::validate(opt, caller);
  api::require_record_arrays(d_keys, d_values, n, caller, "d_values");
  api::require_positions(n, caller);
  if (n < 2) return;
  using value_bits = api::bits_t<sizeof(Value)>;
  api::sort_records(d_keys, reinterpret_cast<value_bits*>(d_values), n, opt, caller,
                    "bitonic::pairs_workspace_bytes");
}

template <class Key, class Value>
std::size_t pairs_workspace_bytes(std::size_t n, const options& opt) {
  constexpr const char* caller = "bitonic::pairs_workspace_bytes";
  api::validate(opt, caller);
  api::require_positions(n, caller);
  if (n < 2) return 0;
  if (!gpu_available()) throw error(std::string(caller) + ": no CUDA device");
  return api::records_layout<Key>(n, sizeof(Value), opt).bytes;
}

template <class Key, class Index>
void argsort(const Key* d_keys, Key* d_sorted_keys, Index* d_indices, std::size_t n,
             const options& opt) {
  static_assert(std::is_same_v<Index, std::uint32_t> || std::is_same_v<Index, std::uint64_t>,
                "indices of 4 or 8 bytes, unsigned");
  constexpr const char* caller = "bitonic::argsort";
  api::validate(opt, caller);
  api::require_record_arrays(d_keys, d_indices, n, caller, "d_indices");
  api::require_sorted_keys(d_keys, d_sorted_keys, d_indices, n, caller);
  api::require_positions(n, caller);
  if (n == 1) api::argsort_of_single_keys(d_keys, d_sorted_keys, d_indices, n, opt.stream);
  if (n < 2) return;
  api::argsort_records(d_keys, d_sorted_keys, d_indices, n, opt, caller,
                       "bitonic::argsort_workspace_bytes");
}

template <class Key, class Index>
void argsort(const Key* d_keys, Index* d_indices, std::size_t n, const options& opt) {
  argsort(d_keys, static_cast<Key*>(nullptr), d_indices, n, opt);
}

template <class Key, class Index>
std::size_t argsort_workspace_bytes(std::size_t n, const options& opt) {
  constexpr const char* caller = "bitonic::argsort_workspace_bytes";
  api::validate(opt, caller);
  api::require_positions(n, caller);
  if (n < 2) return 0;
  if (!gpu_available()) throw error(std::string(caller) + ": no CUDA device");
  return api::argsort_bytes<Key>(n, 0, opt);
}

template <class Key, class Value>
void sort_batched_pairs(Key* d_keys, Value* d_values, std::size_t num_arrays,
                        std::size_t array_size, const options& opt) {
  static_assert(sizeof(Value) == 4 || sizeof(Value) == 8, "values of 4 or 8 bytes");
  constexpr const char* caller = "bitonic::sort_batched_pairs";
  const std::size_t n = api::batched_record_count(num_arrays, array_size, opt, caller);
  api::require_record_arrays(d_keys, d_values, n, caller, "d_values");
  if (num_arrays == 0 || array_size < 2) return;
  using value_bits = api::bits_t<sizeof(Value)>;
  api::sort_records(d_keys, reinterpret_cast<value_bits*>(d_values), n, opt, caller,
                    "bitonic::batched_pairs_workspace_bytes", array_size);
}

template <class Key, class Value>
std::size_t batched_pairs_workspace_bytes(std::size_t num_arrays, std::size_t array_size,
                                          const options& opt) {
  constexpr const char* caller = "bitonic::batched_pairs_workspace_bytes";
  const std::size_t n = api::batched_record_count(num_arrays, array_size, opt, caller);
  if (num_arrays == 0 || array_size < 2) return 0;
  if (!gpu_available()) throw error(std::string(caller) + ": no CUDA device");
  return api::records_layout<Key>(n, sizeof(Value), opt, array_size).bytes;
}

template <class Key, class Index>
void argsort_batched(const Key* d_keys, Key* d_sorted_keys, Index* d_indices,
                     std::size_t num_arrays, std::size_t array_size, const options& opt) {
  static_assert(std::is_same_v<Index, std::uint32_t> || std::is_same_v<Index, std::uint64_t>,
                "indices of 4 or 8 bytes, unsigned");
  constexpr const char* caller = "bitonic::argsort_batched";
  const std::size_t n = api::batched_record_count(num_arrays, array_size, opt, caller);
  api::require_record_arrays(d_keys, d_indices, n, caller, "d_indices");
  api::require_sorted_keys(d_keys, d_sorted_keys, d_indices, n, caller);
  if (n == 0) return;
  if (array_size == 1) {
    return api::argsort_of_single_keys(d_keys, d_sorted_keys, d_indices, n, opt.stream);
  }
  api::argsort_records(d_keys, d_sorted_keys, d_indices, n, opt, caller,
                       "bitonic::batched_argsort_workspace_bytes", array_size);
}

template <class Key, class Index>
void argsort_batched(const Key* d_keys, Index* d_indices, std::size_t num_arrays,
                     std::size_t array_size, const options& opt) {
  argsort_batched(d_keys, static_cast<Key*>(nullptr), d_indices, num_arrays, array_size, opt);
}

template <class Key, class Index>
std::size_t batched_argsort_workspace_bytes(std::size_t num_arrays, std::size_t array_size,
                                            const options& opt) {
  constexpr const char* caller = "bitonic::batched_argsort_workspace_bytes";
  const std::size_t n = api::batched_record_count(num_arrays, array_size, opt, caller);
  if (num_arrays == 0 || array_size < 2) return 0;
  if (!gpu_available()) throw error(std::string(caller) + ": no CUDA device");
  return api::argsort_bytes<Key>(n, array_size, opt);
}

#define BITONIC_INSTANTIATE_PAIR(Key, Value)                                               \
  template void sort_pairs<Key, Value>(Key*, Value*, std::size_t, const options&);         \
  template std::size_t pairs_workspace_bytes<Key, Value>(std::size_t, const options&);     \
  template void sort_batched_pairs<Key, Value>(Key*, Value*, std::size_t, std::size_t,     \
                                               const options&);                            \
  template std::size_t batched_pairs_workspace_bytes<Key, Value>(std::size_t, std::size_t, \
                                                                 const options&);
#define BITONIC_INSTANTIATE_INDEX(Key, Index)                                                   \
  template void argsort<Key, Index>(const Key*, Index*, std::size_t, const options&);           \
  template void argsort<Key, Index>(const Key*, Key*, Index*, std::size_t, const options&);     \
  template void argsort_batched<Key, Index>(const Key*, Key*, Index*, std::size_t, std::size_t, \
                                            const options&);                                    \
  template std::size_t argsort_workspace_bytes<Key, Index>(std::size_t, const options&);        \
  template void argsort_batched<Key, Index>(const Key*, Index*, std::size_t, std::size_t,       \
                                            const options&);                                    \
  template std::size_t batched_argsort_workspace_bytes<Key, Index>(std::size_t, std::size_t,    \
                                                                   const options&);
#define BITONIC_INSTANTIATE_RECORDS(Key) \
  BITONIC_FOR_EACH_RECORD(BITONIC_INSTANTIATE_PAIR, BITONIC_INSTANTIATE_INDEX, Key)
BITONIC_FOR_EACH_KEY(BITONIC_INSTANTIATE_RECORDS)

}  // namespace bitonic
