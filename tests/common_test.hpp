// Helpers shared by the CPU and GPU test binaries: the key types and options to iterate over,
// reproducible seeds and sizes, and the full check of a result against std::sort.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "bench/keys.hpp"
#include "bitonic/bitonic.hpp"
#include "bitonic/order.hpp"

namespace bitonic::test {

using tools::distribution;

//! The stable order of `keys` in `direction` (std::stable_sort of the positions): what argsort
//! returns and what stable record sorts follow.
template <class Key>
std::vector<std::uint64_t> stable_order(const std::vector<Key>& keys, order direction) {
  std::vector<std::uint64_t> idx(keys.size());
  for (std::size_t i = 0; i < idx.size(); ++i)
    idx[i] = i;
  std::stable_sort(idx.begin(), idx.end(), [&](std::uint64_t a, std::uint64_t b) {
    return direction == order::ascending ? ascending_less{}(keys[a], keys[b])
                                         : descending_less{}(keys[a], keys[b]);
  });
  return idx;
}

//! Top-k's reference: for each of the `batch` arrays of n keys of `keys`, the positions (within
//! the array) of its k first keys in `direction`, equal keys in position order, by
//! std::partial_sort.
template <class Key>
std::vector<std::uint64_t> topk_reference(const std::vector<Key>& keys, std::size_t batch,
                                          std::size_t n, std::size_t k, order direction) {
  std::vector<std::uint64_t> result;
  std::vector<std::uint64_t> positions(n);
  for (std::size_t r = 0; r < batch; ++r) {
    const Key* row = keys.data() + r * n;
    for (std::size_t i = 0; i < n; ++i)
      positions[i] = i;
    std::partial_sort(positions.begin(), positions.begin() + std::ptrdiff_t(k), positions.end(),
                      [&](std::uint64_t a, std::uint64_t b) {
                        const bool less = direction == order::ascending
                                              ? ascending_less{}(row[a], row[b])
                                              : descending_less{}(row[a], row[b]);
                        const bool greater = direction == order::ascending
                                                 ? ascending_less{}(row[b], row[a])
                                                 : descending_less{}(row[b], row[a]);
                        return less || (!greater && a < b);
                      });
    result.insert(result.end(), positions.begin(), positions.begin() + std::ptrdiff_t(k));
  }
  return result;
}

//! Success when out_keys (unless empty) and out_indices (unless empty) are exactly top-k's result
//! for `batch` arrays of n keys of `input`: the indices of topk_reference, and the keys at them
//! bit for bit.
template <class Key, class Index>
::testing::AssertionResult matches_topk(const std::vector<Key>& out_keys,
                                        const std::vector<Index>& out_indices,
                                        const std::vector<Key>& input, std::size_t batch,
                                        std::size_t n, std::size_t k, order direction) {
  const std::vector<std::uint64_t> expected = topk_reference(input, batch, n, k, direction);
  if ((!out_keys.empty() && out_keys.size() != expected.size()) ||
      (!out_indices.empty() && out_indices.size() != expected.size())) {
    return ::testing::AssertionFailure() << out_keys.size() << " keys and " << out_indices.size()
                                         << " indices for " << expected.size() << " outputs";
  }
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const std::size_t row = i / k;
    if (!out_indices.empty() && out_indices[i] != expected[i]) {
      return ::testing::AssertionFailure() << "array " << row << " rank " << i % k << ": index "
                                           << +out_indices[i] << ", expected " << expected[i];
    }
    if (!out_keys.empty() &&
        std::memcmp(&out_keys[i], &input[row * n + expected[i]], sizeof(Key)) != 0) {
      return ::testing::AssertionFailure()
             << "array " << row << " rank " << i % k << ": key 0x" << std::hex
             << +tools::key_bits(out_keys[i]) << ", expected 0x"
             << +tools::key_bits(input[row * n + expected[i]]);
    }
  }
  return ::testing::AssertionSuccess();
}

//! Success when keys/positions are the records of `input` (a record's value: its position in
//! input) sorted in `direction`, each key beside its own position's bits and every position once;
//! and, when `exact` is given (a stable sort: stable_order's result), exactly in that order.
template <class Key, class Position>
::testing::AssertionResult sorted_records(const std::vector<Key>& keys,
                                          const std::vector<Position>& positions,
                                          const std::vector<Key>& input, order direction,
                                          const std::vector<std::uint64_t>* exact) {
  const std::size_t n = input.size();
  if (keys.size() != n || positions.size() != n) {
    return ::testing::AssertionFailure() << keys.size() << " keys and " << positions.size()
                                         << " positions for " << n << " records";
  }
  std::vector<bool> seen(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t from = positions[i];
    if (from >= n || seen[from]) {
      return ::testing::AssertionFailure()
             << "position " << from << " at " << i << " repeated or no record's";
    }
    seen[from] = true;
    if (exact != nullptr && (*exact)[i] != from) {
      return ::testing::AssertionFailure()
             << "record " << from << " at " << i << ", the stable order has " << (*exact)[i];
    }
    if (std::memcmp(&keys[i], &input[from], sizeof(Key)) != 0) {
      return ::testing::AssertionFailure() << "key at " << i << " is not its position's key";
    }
    const bool out_of_order =
        i > 0 && (direction == order::ascending ? ascending_less{}(keys[i], keys[i - 1])
                                                : descending_less{}(keys[i], keys[i - 1]));
    if (out_of_order) return ::testing::AssertionFailure() << "keys out of order at " << i;
  }
  return ::testing::AssertionSuccess();
}

//! Success when `indices` sort `input` in `direction`, as an unstable argsort may: each position
//! once and the keys they gather in order, equal keys' positions in any order; and `sorted`, where
//! given, the keys they gather, bit for bit.
template <class Key, class Index>
::testing::AssertionResult sorting_indices(const std::vector<Index>& indices,
                                           const std::vector<Key>& input, order direction,
                                           const std::vector<Key>* sorted = nullptr) {
  if (sorted != nullptr) return sorted_records(*sorted, indices, input, direction, nullptr);
  // An index past the input gathers Key{}; sorted_records refuses the index itself.
  std::vector<Key> gathered(indices.size());
  for (std::size_t i = 0; i < indices.size(); ++i) {
    if (indices[i] < input.size()) gathered[i] = input[indices[i]];
  }
  return sorted_records(gathered, indices, input, direction, nullptr);
}

using key_types =
    ::testing::Types<std::int32_t, std::uint32_t, std::int64_t, std::uint64_t, float, double>;

//! Names typed tests after the key type ("i32", ...) instead of a numeric index.
struct key_type_names {
  template <class Key>
  static std::string GetName(int) {
    return std::string(tools::type_name<Key>());
  }
};

//! Position of Key in key_types, to spread per-type work (such as random lengths) over the types.
template <class Key>
constexpr std::size_t key_type_index() {
  constexpr std::string_view names[] = {"i32", "u32", "i64", "u64", "f32", "f64",
                                        "i8",  "u8",  "i16", "u16", "f16", "bf16"};
  return std::find(std::begin(names), std::end(names), tools::type_name<Key>()) - std::begin(names);
}

//! The 1- and 2-byte key types (BITONIC_FOR_EACH_SMALL_KEY): keys-only sorts through 32-bit words.
using small_key_types =
    ::testing::Types<std::int8_t, std::uint8_t, std::int16_t, std::uint16_t, __half, __nv_bfloat16>;

//! Every key type the library is precompiled for: the record, batched, segmented and top-k entry
//! points take them all (the 1- and 2-byte ones through 32-bit words).
using record_key_types =
    ::testing::Types<std::int32_t, std::uint32_t, std::int64_t, std::uint64_t, float, double,
                     std::int8_t, std::uint8_t, std::int16_t, std::uint16_t, __half, __nv_bfloat16>;

inline constexpr algorithm all_algorithms[] = {algorithm::global_step,  algorithm::fused_steps,
                                               algorithm::shared_tiles, algorithm::block_merge,
                                               algorithm::optimized,    algorithm::automatic};

//! The algorithms make_plan accepts (automatic must be resolved first).
inline constexpr algorithm concrete_algorithms[] = {algorithm::global_step, algorithm::fused_steps,
                                                    algorithm::shared_tiles, algorithm::block_merge,
                                                    algorithm::optimized};

inline constexpr order all_orders[] = {order::ascending, order::descending};

constexpr std::string_view to_string(order direction) {
  return direction == order::ascending ? "ascending" : "descending";
}

//! The seed of the input of length n with distribution d: fixed, so that every failure can be
//! reproduced with tools::generate from the printed numbers.
constexpr std::uint64_t case_seed(std::size_t n, distribution d) {
  return 0x5eed'0000'0000ull + std::uint64_t{n} * 8 + static_cast<std::uint64_t>(d);
}

//! `count` lengths in [2^min_log2, 2^max_log2), log-uniform so that every octave gets its share,
//! drawn from a fixed seed.
inline std::vector<std::size_t> random_lengths(std::size_t count, unsigned min_log2,
                                               unsigned max_log2, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::size_t> lengths;
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t octave = std::size_t{1} << (min_log2 + rng() % (max_log2 - min_log2));
    lengths.push_back(octave + rng() % octave);
  }
  return lengths;
}

//! An input and std::sort's result for it in each order, computed once for all the variants.
template <class Key>
struct reference_case {
  std::size_t n = 0;
  distribution d = distribution::uniform;
  std::uint64_t seed = 0;
  std::vector<Key> input;
  std::vector<Key> expected[2];  //!< indexed by order

  const std::vector<Key>& expected_for(order direction) const {
    return expected[direction == order::ascending ? 0 : 1];
  }
};

template <class Key>
reference_case<Key> make_reference_case(std::size_t n, distribution d) {
  reference_case<Key> c;
  c.n = n;
  c.d = d;
  c.seed = case_seed(n, d);
  c.input = tools::generate<Key>(n, d, c.seed);
  c.expected[0] = tools::reference_sort(c.input, order::ascending);
  c.expected[1] = tools::reference_sort(c.input, order::descending);
  return c;
}

//! Calls fn(i) for every i in [0, count) on all hardware threads and returns when all are done;
//! rethrows the first exception a call threw. fn must not use gtest assertions: collect verdicts
//! and report them from the test's thread.
template <class Fn>
void parallel_for(std::size_t count, Fn fn) {
  std::atomic<std::size_t> next{0};
  std::exception_ptr first_error;
  std::mutex error_mutex;
  auto worker = [&] {
    for (std::size_t i; (i = next++) < count;) {
      try {
        fn(i);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(error_mutex);
        if (!first_error) first_error = std::current_exception();
      }
    }
  };
  const std::size_t threads =
      std::min<std::size_t>(count, std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t)
    pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool)
    t.join();
  if (first_error) std::rethrow_exception(first_error);
}

//! One line that identifies a sort: enough to reproduce it.
template <class Key>
std::string describe_case(std::size_t n, distribution d, std::uint64_t seed, order direction,
                          algorithm algo) {
  std::ostringstream out;
  out << tools::type_name<Key>() << " n=" << n << " distribution=" << tools::to_string(d)
      << " seed=" << seed << " order=" << to_string(direction) << " algorithm=" << to_string(algo);
  return out.str();
}

//! Success when `result` holds exactly the keys of `expected` (the std::sort output) in an
//! equivalent order, as tools::first_mismatch decides; otherwise says where and what differs.
template <class Key>
::testing::AssertionResult matches_reference(const std::vector<Key>& result,
                                             const std::vector<Key>& expected) {
  const auto at = tools::first_mismatch(result, expected);
  if (!at) return ::testing::AssertionSuccess();
  if (result.size() != expected.size()) {
    return ::testing::AssertionFailure()
           << "result has " << result.size() << " keys, expected " << expected.size();
  }
  std::ostringstream out;
  out.precision(17);
  out << "first mismatch at index " << *at << " of " << result.size() << ": got "
      << tools::printable(result[*at]) << " (bits 0x" << std::hex << +tools::key_bits(result[*at])
      << "), expected " << std::dec << tools::printable(expected[*at]) << " (bits 0x" << std::hex
      << +tools::key_bits(expected[*at]) << ")";
  if (!ascending_less{}(result[*at], expected[*at]) &&
      !ascending_less{}(expected[*at], result[*at])) {
    out << "; the order is right but the keys differ as a multiset (the index counts sorted bit "
           "patterns)";
  }
  return ::testing::AssertionFailure() << out.str();
}

//! Success when a and b hold the same elements bit for bit at every position (float keys: NaN
//! payloads and the signs of zeros included).
template <class T>
::testing::AssertionResult same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) {
    return ::testing::AssertionFailure() << a.size() << " elements against " << b.size();
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::memcmp(&a[i], &b[i], sizeof(T)) != 0) {
      return ::testing::AssertionFailure()
             << "bits differ at " << i << " of " << a.size() << ": 0x" << std::hex
             << +tools::key_bits(a[i]) << " against 0x" << +tools::key_bits(b[i]);
    }
  }
  return ::testing::AssertionSuccess();
}

//! Success when `call` throws bitonic::error whose message contains every one of `needles`.
inline ::testing::AssertionResult throws_error(const std::function<void()>& call,
                                               std::initializer_list<std::string_view> needles) {
  try {
    call();
  } catch (const bitonic::error& e) {
    const std::string_view message = e.what();
    for (const std::string_view needle : needles) {
      if (message.find(needle) == std::string_view::npos) {
        return ::testing::AssertionFailure()
               << "message \"" << message << "\" does not mention \"" << needle << '"';
      }
    }
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "no bitonic::error thrown";
}

inline ::testing::AssertionResult throws_error(const std::function<void()>& call,
                                               std::string_view needle) {
  return throws_error(call, {needle});
}

}  // namespace bitonic::test
