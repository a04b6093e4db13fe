// The benchmark's inputs, which the tests and the CLI's gen and verify use too: the key types by
// name, the input distributions, and the full check of a sort against std::sort. Not part of the
// library; depends on its public headers only.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <string_view>
#include <thread>
#include <type_traits>
#include <vector>

#include "bitonic/bitonic.hpp"
#include "bitonic/order.hpp"

namespace bitonic::tools {

//! Input distributions, named as the CLI spells them. `uniform` spreads floats over 61 binades
//! (every exponent about as likely); `unit` is the data of a Python user's `rand() * 2 - 1`:
//! values in [-1, 1) on a grid of 2^-23 (2^24 of them, so 8 equal keys a value at 2^27), half of
//! them in one binade a sign.
enum class distribution { uniform, sorted, reverse, organ, equal, few, nan, unit };

inline constexpr distribution all_distributions[] = {
    distribution::uniform, distribution::sorted, distribution::reverse, distribution::organ,
    distribution::equal,   distribution::few,    distribution::nan,     distribution::unit};

constexpr std::string_view to_string(distribution d) {
  constexpr std::string_view names[] = {"uniform", "sorted", "reverse", "organ",
                                        "equal",   "few",    "nan",     "unit"};
  return names[static_cast<int>(d)];
}

inline std::optional<distribution> parse_distribution(std::string_view name) {
  for (distribution d : all_distributions) {
    if (to_string(d) == name) return d;
  }
  return std::nullopt;
}

//! Key type names as the CLI's --type and the CSV spell them.
template <class Key>
constexpr std::string_view type_name() {
  if constexpr (std::is_same_v<Key, std::int32_t>) return "i32";
  if constexpr (std::is_same_v<Key, std::uint32_t>) return "u32";
  if constexpr (std::is_same_v<Key, std::int64_t>) return "i64";
  if constexpr (std::is_same_v<Key, std::uint64_t>) return "u64";
  if constexpr (std::is_same_v<Key, float>) return "f32";
  if constexpr (std::is_same_v<Key, double>) return "f64";
  if constexpr (std::is_same_v<Key, std::int8_t>) return "i8";
  if constexpr (std::is_same_v<Key, std::uint8_t>) return "u8";
  if constexpr (std::is_same_v<Key, std::int16_t>) return "i16";
  if constexpr (std::is_same_v<Key, std::uint16_t>) return "u16";
  if constexpr (std::is_same_v<Key, __half>) return "f16";
  if constexpr (std::is_same_v<Key, __nv_bfloat16>) return "bf16";
}

//! Calls fn(Key{}) with the key type named `name` ("i32", ...); false if the name is unknown.
template <class Fn>
bool with_key_type(std::string_view name, Fn&& fn) {
  if (name == "i32") return fn(std::int32_t{}), true;
  if (name == "u32") return fn(std::uint32_t{}), true;
  if (name == "i64") return fn(std::int64_t{}), true;
  if (name == "u64") return fn(std::uint64_t{}), true;
  if (name == "f32") return fn(float{}), true;
  if (name == "f64") return fn(double{}), true;
  return false;
}

//! with_key_type for every key type of the library, the 1- and 2-byte ones too ("i8", "u8",
//! "i16", "u16", "f16", "bf16"): the file commands of the CLI; the bench's peers take the others.
template <class Fn>
bool with_any_key_type(std::string_view name, Fn&& fn) {
  if (name == "i8") return fn(std::int8_t{}), true;
  if (name == "u8") return fn(std::uint8_t{}), true;
  if (name == "i16") return fn(std::int16_t{}), true;
  if (name == "u16") return fn(std::uint16_t{}), true;
  if (name == "f16") return fn(__half{}), true;
  if (name == "bf16") return fn(__nv_bfloat16{}), true;
  return with_key_type(name, fn);
}

//! The 2-byte float (__half, __nv_bfloat16) with these bits.
template <class Key>
Key half_float_of_bits(std::uint16_t bits) {
  return std::bit_cast<Key>(bits);
}

//! A uniformly random key over the whole range of the type (floats: finite, both signs, wide
//! exponent range, including -0.0 and +0.0 now and then; 2-byte floats: every finite pattern).
template <class Key>
Key random_key(std::mt19937_64& rng) {
  if constexpr (std::is_integral_v<Key>) {
    return static_cast<Key>(rng());
  } else if constexpr (is_half_float_v<Key>) {
    const std::uint64_t bits = rng();
    if ((bits & 0xff) == 0) return half_float_of_bits<Key>((bits & 0x100) ? 0x8000 : 0);
    const std::uint16_t infinity = std::is_same_v<Key, __half> ? 0x7c00 : 0x7f80;
    std::uint16_t pattern = std::uint16_t(bits >> 16);
    if ((pattern & infinity) == infinity) pattern &= std::uint16_t(~0x4000);  // finite instead
    return half_float_of_bits<Key>(pattern);
  } else {
    const std::uint64_t bits = rng();
    if ((bits & 0xff) == 0) return (bits & 0x100) ? Key(-0.0) : Key(0.0);
    const Key magnitude =
        std::ldexp(Key((bits >> 11) & 0xfffff) + Key(0.5), int((bits >> 8) % 61) - 40);
    return (bits >> 63) ? -magnitude : magnitude;
  }
}

//! A key of the unit distribution: one of 2^24 steps, as a float (k - 2^23) * 2^-23 in [-1, 1)
//! (numpy's and torch's random floats times 2 minus 1 take exactly these values), as an integer
//! k - 2^23 (unsigned: k; narrower types wrap).
template <class Key>
Key unit_key(std::mt19937_64& rng) {
  constexpr std::int64_t half_steps = std::int64_t{1} << 23;
  const auto step = std::int64_t(rng() >> 40);  // 24 random bits
  if constexpr (std::is_integral_v<Key>) {
    return static_cast<Key>(std::is_signed_v<Key> ? step - half_steps : step);
  } else {
    const float value = float(step - half_steps) * 0x1p-23f;  // exact: a 24-bit integer scaled
    return Key(value);
  }
}

//! The key of the count i (organ pipes): i itself as far as the type holds it (integers wrap,
//! 2-byte floats round through float).
template <class Key>
Key key_of_count(std::size_t i) {
  if constexpr (is_half_float_v<Key>) {
    return Key(float(i));
  } else {
    return static_cast<Key>(i);
  }
}

//! The awkward values of the nan distribution: NaNs of both signs, infinities, -0.0 and +0.0 for
//! floating-point keys; min, max and 0 for integers.
template <class Key>
std::vector<Key> special_keys() {
  if constexpr (std::is_floating_point_v<Key>) {
    using limits = std::numeric_limits<Key>;
    return {limits::quiet_NaN(), -limits::quiet_NaN(),
            limits::infinity(),  -limits::infinity(),
            Key(-0.0),           Key(0.0)};
  } else if constexpr (is_half_float_v<Key>) {
    const bool half = std::is_same_v<Key, __half>;
    const std::uint16_t nan = half ? 0x7e00 : 0x7fc0, infinity = half ? 0x7c00 : 0x7f80;
    return {half_float_of_bits<Key>(nan),         half_float_of_bits<Key>(nan | 0x8000),
            half_float_of_bits<Key>(infinity),    half_float_of_bits<Key>(infinity | 0x8000),
            half_float_of_bits<Key>(0x8000),      half_float_of_bits<Key>(0),
            half_float_of_bits<Key>(infinity | 1)};  // a NaN with another payload
  } else {
    return {std::numeric_limits<Key>::min(), std::numeric_limits<Key>::max(), Key(0)};
  }
}

//! n keys of distribution `d`, reproducible from `seed`. For integer keys `nan` gives the
//! uniform distribution with many extreme values (min, max, 0) instead.
template <class Key>
std::vector<Key> generate(std::size_t n, distribution d, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Key> keys(n);
  switch (d) {
    case distribution::uniform:
      for (Key& k : keys)
        k = random_key<Key>(rng);
      break;
    case distribution::sorted:
    case distribution::reverse:
      for (Key& k : keys)
        k = random_key<Key>(rng);
      std::sort(keys.begin(), keys.end(), ascending_less{});
      if (d == distribution::reverse) std::reverse(keys.begin(), keys.end());
      break;
    case distribution::organ:  // ascending first half, descending second half
      for (std::size_t i = 0; i < n; ++i)
        keys[i] = key_of_count<Key>(std::min(i, n - 1 - i));
      break;
    case distribution::equal: {
      const Key value = random_key<Key>(rng);
      std::fill(keys.begin(), keys.end(), value);
      break;
    }
    case distribution::few: {  // eight distinct values
      Key values[8];
      for (Key& v : values)
        v = random_key<Key>(rng);
      for (Key& k : keys)
        k = values[rng() % 8];
      break;
    }
    case distribution::unit:
      for (Key& k : keys)
        k = unit_key<Key>(rng);
      break;
    case distribution::nan: {
      const std::vector<Key> specials = special_keys<Key>();
      for (Key& k : keys) {
        const unsigned pick = rng() % 8;
        k = pick < specials.size() ? specials[pick] : random_key<Key>(rng);
      }
      break;
    }
  }
  return keys;
}

//! std::sort of keys[first, last) on up to `threads` threads: slices sorted side by side, then
//! merged pairwise (std::inplace_merge), each level's merges side by side. The same order as
//! one std::sort (keys equivalent under `less` may sit in another order, which no check relies on).
template <class Key, class Less>
void parallel_std_sort(Key* first, Key* last, Less less, unsigned threads) {
  const std::size_t n = static_cast<std::size_t>(last - first);
  if (threads <= 1 || n < (std::size_t{1} << 20)) {
    std::sort(first, last, less);
    return;
  }
  const unsigned half = threads / 2;
  Key* middle = first + n / 2;
  std::thread lower([&] { parallel_std_sort(first, middle, less, half); });
  parallel_std_sort(middle, last, less, threads - half);
  lower.join();
  std::inplace_merge(first, middle, last, less);
}

//! The expected result: std::sort with the library's order (on the machine's cores for large
//! inputs, so that checking a 2^27-key benchmark takes seconds, not a minute).
template <class Key>
std::vector<Key> reference_sort(std::vector<Key> keys, order direction) {
  const unsigned threads = std::min(16u, std::max(1u, std::thread::hardware_concurrency()));
  if (direction == order::ascending) {
    parallel_std_sort(keys.data(), keys.data() + keys.size(), ascending_less{}, threads);
  } else {
    parallel_std_sort(keys.data(), keys.data() + keys.size(), descending_less{}, threads);
  }
  return keys;
}

//! Bits of a key, so that multisets compare exactly (-0.0 vs +0.0, NaN payloads).
template <class Key>
auto key_bits(Key k) {
  if constexpr (sizeof(Key) == 1) {
    return std::bit_cast<std::uint8_t>(k);
  } else if constexpr (sizeof(Key) == 2) {
    return std::bit_cast<std::uint16_t>(k);
  } else if constexpr (sizeof(Key) == 4) {
    return std::bit_cast<std::uint32_t>(k);
  } else {
    return std::bit_cast<std::uint64_t>(k);
  }
}

//! A key as a stream prints it: 1-byte integers as numbers, 2-byte floats as float.
template <class Key>
auto printable(Key k) {
  if constexpr (is_half_float_v<Key>) {
    return float(k);
  } else {
    return +k;
  }
}

//! Where `result` differs from `expected` (the std::sort output of the same input), or nullopt
//! when they agree: the first position whose keys are not equivalent, or else (same order, but a
//! key lost, duplicated or altered) the first differing rank among the keys' sorted bit patterns.
//! Keys at a position must be equivalent in the sort order, and the two must hold the same keys bit
//! for bit (a sort only moves keys), so a lost, duplicated or altered key is caught even where it
//! is equivalent to its neighbour.
template <class Key>
std::optional<std::size_t> first_mismatch(const std::vector<Key>& result,
                                          const std::vector<Key>& expected) {
  if (result.size() != expected.size()) return std::min(result.size(), expected.size());
  const ascending_less less;
  bool identical = true;
  for (std::size_t i = 0; i < result.size(); ++i) {
    if (less(result[i], expected[i]) || less(expected[i], result[i])) return i;
    identical = identical && key_bits(result[i]) == key_bits(expected[i]);
  }
  if (identical) return std::nullopt;  // same bits everywhere: same multiset, skip the sorts
  std::vector<decltype(key_bits(Key{}))> a(result.size()), b(expected.size());
  std::transform(result.begin(), result.end(), a.begin(), key_bits<Key>);
  std::transform(expected.begin(), expected.end(), b.begin(), key_bits<Key>);
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  const auto diff = std::mismatch(a.begin(), a.end(), b.begin());
  if (diff.first != a.end()) return static_cast<std::size_t>(diff.first - a.begin());
  return std::nullopt;
}

}  // namespace bitonic::tools
