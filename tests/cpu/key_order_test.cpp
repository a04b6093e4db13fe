// The key orders: std::sort and the network both rely on them being strict weak orders, NaNs
// included, so check the axioms on the awkward floating-point values.
#include "bitonic/key_order.hpp"

#include <gtest/gtest.h>

#include <limits>
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

}  // namespace
}  // namespace bitonic
