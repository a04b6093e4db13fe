// The key orders: std::sort and the network both rely on them being strict weak orders, NaNs
// included, so check the axioms on the awkward floating-point values.
#include "network/key_order.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

namespace bitonic {
namespace {

template <class Key>
class KeyOrder : public ::testing::Test {};
using float_types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(KeyOrder, float_types);

TYPED_TEST(KeyOrder, FloatsFollowATotalOrderWithNaNsLast) {
  using Key = TypeParam;
  using limits = std::numeric_limits<Key>;
  const Key nan = limits::quiet_NaN();
  const ascending_less less;
  EXPECT_TRUE(less(limits::infinity(), nan));
  EXPECT_TRUE(less(-limits::infinity(), -nan));
  EXPECT_FALSE(less(nan, limits::infinity()));
  EXPECT_FALSE(less(nan, -nan)) << "all NaNs are equivalent";
  EXPECT_FALSE(less(-nan, nan));
  EXPECT_FALSE(less(Key(-0.0), Key(0.0))) << "-0.0 is equivalent to +0.0";
  EXPECT_FALSE(less(Key(0.0), Key(-0.0)));
  EXPECT_TRUE(less(Key(-1), Key(-0.0)));
  const descending_less greater;
  EXPECT_TRUE(greater(nan, limits::infinity()));
  EXPECT_TRUE(greater(Key(1), Key(-1)));
  EXPECT_FALSE(greater(nan, -nan));

  // Strict weak order on a set of awkward values: irreflexive, transitive, and equivalence
  // (neither less) transitive.
  const std::vector<Key> values = {
      nan,    -nan,    limits::infinity(),   -limits::infinity(), Key(0.0),     Key(-0.0),
      Key(1), Key(-1), limits::denorm_min(), limits::lowest(),    limits::max()};
  auto equivalent = [&](Key a, Key b) { return !less(a, b) && !less(b, a); };
  for (Key a : values) {
    EXPECT_FALSE(less(a, a)) << a;
    for (Key b : values) {
      for (Key c : values) {
        if (less(a, b) && less(b, c)) {
          EXPECT_TRUE(less(a, c)) << a << ' ' << b << ' ' << c;
        }
        if (equivalent(a, b) && equivalent(b, c)) {
          EXPECT_TRUE(equivalent(a, c)) << a << ' ' << b << ' ' << c;
        }
      }
    }
  }
}

// The optimized kernels sort ordered_word<Key> instead of the key: its `<` must never contradict
// ascending_less, and decoding must give back the same bits (NaN payloads and -0.0 included).
//! Every boundary of the bit-pattern space of Key: zeros, denormals, infinities, the NaNs of
//! both signs with the smallest and largest payloads, plus random patterns (fixed seed 4242).
template <class Key>
std::vector<typename ordered_word<Key>::type> awkward_patterns() {
  using bits = typename ordered_word<Key>::type;
  constexpr bits sign = bits{1} << (sizeof(bits) * 8 - 1);
  const bits exponent = sizeof(Key) == 4 ? bits(0x7f80'0000u) : bits(0x7ff0'0000'0000'0000ull);
  std::vector<bits> patterns = {0,
                                1,
                                exponent - 1,
                                exponent,
                                exponent + 1,
                                sign - 1,
                                sign,
                                sign + 1,
                                sign | (exponent - 1),
                                sign | exponent,
                                sign | (exponent + 1),
                                bits(~bits{0}),
                                bits(~bits{0} - 1)};
  std::mt19937_64 rng(4242);
  for (int i = 0; i < 200; ++i)
    patterns.push_back(static_cast<bits>(rng()));
  return patterns;
}

TYPED_TEST(KeyOrder, OrderedWordsRefineTheKeyOrderAndRoundTrip) {
  using Key = TypeParam;
  using word = ordered_word<Key>;
  using bits = typename word::type;
  static_assert(sizeof(bits) == sizeof(Key));
  const std::vector<bits> patterns = awkward_patterns<Key>();
  const ascending_less less;
  for (const bits pa : patterns) {
    Key a;
    std::memcpy(&a, &pa, sizeof a);
    const bits wa = word::encode(a);
    const Key back = word::decode(wa);
    EXPECT_EQ(std::memcmp(&back, &a, sizeof a), 0) << "round trip of bits " << pa;
    // Records carry a key's unsigned word beside a value and decode the key from it.
    EXPECT_EQ(unsigned_word(a), wa) << "float words are unsigned already";
    const Key from_record = from_unsigned_word<Key>(unsigned_word(a));
    EXPECT_EQ(std::memcmp(&from_record, &a, sizeof a), 0) << "record round trip of " << pa;
    for (const bits pb : patterns) {
      Key b;
      std::memcpy(&b, &pb, sizeof b);
      const bits wb = word::encode(b);
      if (less(a, b)) {
        EXPECT_LT(wa, wb) << "bits " << pa << " vs " << pb;
      }
      if (pa != pb) {
        EXPECT_NE(wa, wb) << "encode must be one-to-one";
      }
    }
  }
}

// Record sorts compare class words, so they must be equal exactly for equivalent keys (-0.0 and
// +0.0, every NaN) and ordered as the keys otherwise.
TYPED_TEST(KeyOrder, ClassWordsAreEqualExactlyForEquivalentKeys) {
  using Key = TypeParam;
  using bits = typename ordered_word<Key>::type;
  const std::vector<bits> patterns = awkward_patterns<Key>();
  const ascending_less less;
  for (const bits pa : patterns) {
    Key a;
    std::memcpy(&a, &pa, sizeof a);
    for (const bits pb : patterns) {
      Key b;
      std::memcpy(&b, &pb, sizeof b);
      EXPECT_EQ(less(a, b), class_word(a) < class_word(b)) << "bits " << pa << " vs " << pb;
      EXPECT_EQ(!less(a, b) && !less(b, a), class_word(a) == class_word(b))
          << "bits " << pa << " vs " << pb;
    }
  }
}

//! Integers from the boundaries of Int and random ones (fixed seed 2611), in increasing order.
template <class Int>
std::vector<Int> ascending_integers() {
  std::vector<Int> keys = {std::numeric_limits<Int>::min(),
                           Int(std::numeric_limits<Int>::min() + 1),
                           Int(0),
                           Int(1),
                           Int(std::numeric_limits<Int>::max() - 1),
                           std::numeric_limits<Int>::max()};
  if constexpr (std::is_signed_v<Int>) keys.insert(keys.end(), {Int(-2), Int(-1)});
  std::mt19937_64 rng(2611);
  for (int i = 0; i < 100; ++i)
    keys.push_back(static_cast<Int>(rng()));
  std::sort(keys.begin(), keys.end());
  return keys;
}

template <class Int>
void expect_unsigned_words_of_integers() {
  const std::vector<Int> keys = ascending_integers<Int>();
  for (std::size_t i = 0; i < keys.size(); ++i) {
    static_assert(std::is_unsigned_v<decltype(unsigned_word(keys[i]))>);
    EXPECT_EQ(from_unsigned_word<Int>(unsigned_word(keys[i])), keys[i]);
    EXPECT_EQ(unsigned_word(keys[i]), class_word(keys[i])) << "integers: one key a class";
    if (i > 0) {
      EXPECT_EQ(keys[i - 1] < keys[i], unsigned_word(keys[i - 1]) < unsigned_word(keys[i]));
    }
  }
}

TEST(KeyOrderIntegers, UnsignedWordsRoundTripAndKeepTheOrder) {
  expect_unsigned_words_of_integers<std::int32_t>();
  expect_unsigned_words_of_integers<std::uint32_t>();
  expect_unsigned_words_of_integers<std::int64_t>();
  expect_unsigned_words_of_integers<std::uint64_t>();
}

// Integer class words are unsigned and keep the order across the sign (int32's word is itself,
// signed, in the key sort).
TEST(KeyOrderInt32, ClassWordsAreUnsignedAndKeepTheOrder) {
  const std::int32_t keys[] = {std::numeric_limits<std::int32_t>::min(), -2, -1, 0, 1,
                               std::numeric_limits<std::int32_t>::max()};
  for (std::size_t i = 0; i + 1 < std::size(keys); ++i) {
    static_assert(std::is_unsigned_v<decltype(class_word(keys[i]))>);
    EXPECT_LT(class_word(keys[i]), class_word(keys[i + 1])) << keys[i] << " vs " << keys[i + 1];
  }
  EXPECT_LT(class_word(std::int64_t{-1}), class_word(std::int64_t{0}));
  EXPECT_LT(class_word(std::uint32_t{7}), class_word(std::uint32_t{0x8000'0000u}));
}

// Signed 64-bit keys sort as unsigned words (their sign bit flipped): order kept at the
// boundaries (min, -1, 0, 1, max) and on random values (fixed seed 4343), round trip exact.
TEST(KeyOrderInt64, WordsAreUnsignedAndKeepTheOrder) {
  using word = ordered_word<std::int64_t>;
  static_assert(std::is_same_v<word::type, std::uint64_t>);
  std::vector<std::int64_t> keys = {std::numeric_limits<std::int64_t>::min(),
                                    std::numeric_limits<std::int64_t>::min() + 1,
                                    -1,
                                    0,
                                    1,
                                    std::numeric_limits<std::int64_t>::max() - 1,
                                    std::numeric_limits<std::int64_t>::max()};
  std::mt19937_64 rng(4343);
  for (int i = 0; i < 200; ++i)
    keys.push_back(static_cast<std::int64_t>(rng()));
  for (const std::int64_t a : keys) {
    EXPECT_EQ(word::decode(word::encode(a)), a);
    for (const std::int64_t b : keys)
      EXPECT_EQ(a < b, word::encode(a) < word::encode(b)) << a << " vs " << b;
  }
}

}  // namespace
}  // namespace bitonic
