// sort_segments, sort_segments_pairs and argsort_segments on the device against std::sort /
// std::stable_sort of every segment on its own: every key type (1- and 2-byte keys through
// words of the offsets' span, which starts past 0 in some layouts) and order, offsets of 32 and 64
// bits, segment layouts with every length 0..300, powers of two and their neighbours up to 2^16
// (past the 8192-key tile: the long path), random lengths with empty segments, one long segment
// among short ones; keys before the first offset and behind the last untouched; every distribution
// of tools::generate (NaN and -0.0 included). Stable forms exactly as std::stable_sort; unstable
// keys-only sorts in an equivalent order; pairs as a permutation of the records. Then the
// workspace (exact size works, one byte less refused with keys untouched) and the refusals
// (decreasing offsets, a capturing stream, another algorithm).
// Seeds: printed with every failure (test::case_seed of the layout's key count).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bitonic/bitonic.hpp"
#include "bitonic/cuda_helpers.hpp"
#include "common_test.hpp"
#include "device_memory.hpp"

namespace bitonic {
namespace {

using test::device_array;
using tools::distribution;

//! Segments as CSR offsets; offsets[0] may be past 0 (keys before it are not in any segment).
struct layout {
  std::string name;
  std::vector<std::uint64_t> offsets;
  std::uint64_t keys() const { return offsets.back(); }
};

layout from_lengths(std::string name, std::uint64_t first,
                    const std::vector<std::uint64_t>& lengths) {
  layout l{std::move(name), {first}};
  for (const std::uint64_t m : lengths)
    l.offsets.push_back(l.offsets.back() + m);
  return l;
}

std::vector<layout> layouts() {
  std::vector<layout> all;
  std::mt19937_64 random(20261125);
  std::vector<std::uint64_t> every;  // every length 0..300, shuffled
  for (std::uint64_t m = 0; m <= 300; ++m)
    every.push_back(m);
  std::shuffle(every.begin(), every.end(), random);
  all.push_back(from_lengths("every length 0..300", 0, every));
  std::vector<std::uint64_t> powers;
  for (unsigned k = 1; k <= 16; ++k) {
    const std::uint64_t p = std::uint64_t{1} << k;
    powers.insert(powers.end(), {p - 1, p, p + 1});
  }
  std::shuffle(powers.begin(), powers.end(), random);
  all.push_back(from_lengths("2^k - 1, 2^k, 2^k + 1 up to 2^16", 5, powers));
  std::vector<std::uint64_t> lengths;  // log-uniform up to 2^12, a fifth of them empty
  for (int i = 0; i < 3000; ++i) {
    lengths.push_back(random() % 5 == 0 ? 0
                                        : (std::uint64_t{1} << (random() % 12)) +
                                              random() % (std::uint64_t{1} << (random() % 12)));
  }
  all.push_back(from_lengths("3000 random lengths, empty ones", 0, lengths));
  std::vector<std::uint64_t> one_long(500, 17);
  one_long[250] = 100003;
  all.push_back(from_lengths("one segment of 100003 among 499 of 17", 3, one_long));
  all.push_back(from_lengths("only empty segments", 2, std::vector<std::uint64_t>(7, 0)));
  return all;
}

//! The keys of segment s of l out of all keys.
template <class T>
std::vector<T> segment_of(const std::vector<T>& all, const layout& l, std::size_t s) {
  return std::vector<T>(all.begin() + std::ptrdiff_t(l.offsets[s]),
                        all.begin() + std::ptrdiff_t(l.offsets[s + 1]));
}

template <class Key>
bool identical(const std::vector<Key>& a, const std::vector<Key>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(Key)) == 0;
}

template <class Offset>
device_array<Offset> upload_offsets(const layout& l) {
  device_array<Offset> offsets(l.offsets.size());
  offsets.upload(std::vector<Offset>(l.offsets.begin(), l.offsets.end()));
  return offsets;
}

std::string describe(std::string_view type, const layout& l, distribution d, std::uint64_t seed,
                     order direction, std::string_view form) {
  std::ostringstream out;
  out << type << ' ' << form << ", " << l.name << " (" << l.keys() << " keys), distribution "
      << tools::to_string(d) << " seed=" << seed << " order=" << test::to_string(direction);
  return out.str();
}

template <class Key>
class SegmentsGpu : public ::testing::Test {};
TYPED_TEST_SUITE(SegmentsGpu, test::record_key_types, test::key_type_names);

//! Checks every form of the segmented sort of `input` (l.keys() keys plus guards) with Offset
//! offsets in `direction`.
template <class Key, class Offset>
void expect_segments(const std::vector<Key>& input, const layout& l, distribution d,
                     std::uint64_t seed, order direction) {
  const device_array<Offset> offsets = upload_offsets<Offset>(l);
  const std::size_t segments = l.offsets.size() - 1, n = input.size();
  const auto label = [&](std::string_view form) {
    return describe(tools::type_name<Key>(), l, d, seed, direction, form) + ", " +
           std::to_string(sizeof(Offset) * 8) + "-bit offsets";
  };
  const auto untouched_outside = [&](const std::vector<Key>& got) {
    return std::equal(got.begin(), got.begin() + std::ptrdiff_t(l.offsets[0]), input.begin(),
                      [](Key a, Key b) { return std::memcmp(&a, &b, sizeof a) == 0; }) &&
           identical(std::vector<Key>(got.begin() + std::ptrdiff_t(l.keys()), got.end()),
                     std::vector<Key>(input.begin() + std::ptrdiff_t(l.keys()), input.end()));
  };
  device_array<Key> keys(n);
  for (const bool stable : {false, true}) {
    keys.upload(input);
    options opt;
    opt.direction = direction;
    opt.stable = stable;
    sort_segments(keys.get(), offsets.get(), segments, opt);
    const std::vector<Key> got = keys.download();
    EXPECT_TRUE(untouched_outside(got)) << label("sort_segments") << ": keys outside changed";
    for (std::size_t s = 0; s < segments; ++s) {
      const std::vector<Key> part = segment_of(input, l, s);
      std::vector<Key> expected;
      for (const std::uint64_t i : test::stable_order(part, direction))
        expected.push_back(part[i]);
      if (stable) {
        ASSERT_TRUE(identical(segment_of(got, l, s), expected))
            << label("stable sort_segments") << ", segment " << s;
      } else {
        ASSERT_TRUE(test::matches_reference(segment_of(got, l, s), expected))
            << label("sort_segments") << ", segment " << s;
      }
    }
  }
  // Pairs: each value is the record's index in its segment; stable exactly, unstable as a
  // permutation of the records (4- and 8-byte values).
  std::vector<std::uint64_t> columns(n);
  for (std::size_t s = 0; s < segments; ++s) {
    for (std::uint64_t i = l.offsets[s]; i < l.offsets[s + 1]; ++i)
      columns[i] = i - l.offsets[s];
  }
  for (const bool stable : {false, true}) {
    keys.upload(input);
    device_array<std::uint32_t> values(n);
    values.upload(std::vector<std::uint32_t>(columns.begin(), columns.end()));
    options opt;
    opt.direction = direction;
    opt.stable = stable;
    sort_segments_pairs(keys.get(), values.get(), offsets.get(), segments, opt);
    const std::vector<Key> got = keys.download();
    const std::vector<std::uint32_t> moved = values.download();
    EXPECT_TRUE(untouched_outside(got)) << label("sort_segments_pairs");
    for (std::size_t s = 0; s < segments; ++s) {
      const std::vector<Key> part = segment_of(input, l, s);
      const std::vector<std::uint64_t> exact = test::stable_order(part, direction);
      ASSERT_TRUE(test::sorted_records(segment_of(got, l, s), segment_of(moved, l, s), part,
                                       direction, stable ? &exact : nullptr))
          << label("sort_segments_pairs u32") << ", stable " << stable << ", segment " << s;
    }
  }
  {
    keys.upload(input);
    device_array<double> values(n);  // 8-byte values, moved as bits
    std::vector<double> as_doubles(columns.begin(), columns.end());
    values.upload(as_doubles);
    options opt;
    opt.direction = direction;
    opt.stable = true;
    sort_segments_pairs(keys.get(), values.get(), offsets.get(), segments, opt);
    const std::vector<Key> got = keys.download();
    const std::vector<double> moved = values.download();
    for (std::size_t s = 0; s < segments; ++s) {
      const std::vector<Key> part = segment_of(input, l, s);
      const std::vector<std::uint64_t> exact = test::stable_order(part, direction);
      const std::vector<double> from = segment_of(moved, l, s);
      ASSERT_TRUE(test::sorted_records(segment_of(got, l, s),
                                       std::vector<std::uint64_t>(from.begin(), from.end()), part,
                                       direction, &exact))
          << label("stable sort_segments_pairs f64 values") << ", segment " << s;
    }
  }
  // argsort: exactly the stable order of each segment; keys untouched; 32- and 64-bit indices.
  keys.upload(input);
  device_array<std::uint32_t> indices32(n);
  device_array<std::uint64_t> indices64(n);
  const std::vector<std::uint32_t> sentinel32(n, 0xdeadbeefu);
  indices32.upload(sentinel32);
  options opt;
  opt.direction = direction;
  argsort_segments(keys.get(), indices32.get(), offsets.get(), segments, opt);
  argsort_segments(keys.get(), indices64.get(), offsets.get(), segments, opt);
  EXPECT_TRUE(identical(keys.download(), input)) << label("argsort_segments") << ": keys changed";
  const std::vector<std::uint32_t> got32 = indices32.download();
  const std::vector<std::uint64_t> got64 = indices64.download();
  EXPECT_TRUE(
      std::equal(got32.begin(), got32.begin() + std::ptrdiff_t(l.offsets[0]), sentinel32.begin()) &&
      std::equal(got32.begin() + std::ptrdiff_t(l.keys()), got32.end(), sentinel32.begin()))
      << label("argsort_segments") << ": indices outside the segments written";
  for (std::size_t s = 0; s < segments; ++s) {
    const std::vector<std::uint64_t> exact = test::stable_order(segment_of(input, l, s), direction);
    const std::vector<std::uint32_t> i32 = segment_of(got32, l, s);
    ASSERT_TRUE(std::vector<std::uint64_t>(i32.begin(), i32.end()) == exact)
        << label("argsort_segments u32") << ", segment " << s;
    ASSERT_TRUE(segment_of(got64, l, s) == exact)
        << label("argsort_segments u64") << ", segment " << s;
  }
}

TYPED_TEST(SegmentsGpu, EverySegmentMatchesStdSort) {
  using Key = TypeParam;
  constexpr std::size_t guard = 37;
  std::size_t round = 0;
  for (const layout& l : layouts()) {
    const std::size_t n = l.keys() + guard;
    for (const distribution d : tools::all_distributions) {
      if (l.keys() > 50000 && d != distribution::uniform && d != distribution::few &&
          d != distribution::nan) {
        continue;  // the long layouts: three distributions keep the test short
      }
      const std::uint64_t seed = test::case_seed(n, d);
      const std::vector<Key> input = tools::generate<Key>(n, d, seed);
      const order direction = test::all_orders[round++ % 2];
      if ((round & 2) == 0) {
        expect_segments<Key, std::uint32_t>(input, l, d, seed, direction);
      } else {
        expect_segments<Key, std::uint64_t>(input, l, d, seed, direction);
      }
    }
  }
}

// Exactly segments_workspace_bytes works at any alignment and allocates nothing from the library's
// pool; too small a workspace is refused naming segments_workspace_bytes, keys untouched.
TYPED_TEST(SegmentsGpu, Workspace) {
  using Key = TypeParam;
  const layout l = from_lengths("7 short and a long", 0, {5, 300, 0, 1, 9000, 2, 8192, 4097});
  const std::uint64_t seed = test::case_seed(l.keys(), distribution::uniform);
  const std::vector<Key> input = tools::generate<Key>(l.keys(), distribution::uniform, seed);
  const device_array<std::uint64_t> offsets = upload_offsets<std::uint64_t>(l);
  const std::size_t segments = l.offsets.size() - 1;
  const std::size_t bytes = segments_workspace_bytes<Key>(l.keys(), segments);
  device_array<unsigned char> workspace(bytes + 1);
  device_array<Key> keys(input.size());
  release_cached_memory();
  for (const std::size_t offset : {0u, 1u}) {
    keys.upload(input);
    options opt;
    opt.workspace = workspace.get() + offset;
    opt.workspace_bytes = bytes;
    sort_segments(keys.get(), offsets.get(), segments, opt);
    const std::vector<Key> got = keys.download();
    for (std::size_t s = 0; s < segments; ++s) {
      std::vector<Key> expected = segment_of(input, l, s);
      std::sort(expected.begin(), expected.end(), ascending_less{});
      EXPECT_TRUE(test::matches_reference(segment_of(got, l, s), expected))
          << "workspace at offset " << offset << ", segment " << s << ", seed " << seed;
    }
    EXPECT_EQ(cached_memory_bytes(), 0u) << "a call with a workspace allocated from the pool";
  }
  // segments_workspace_bytes holds any lengths, so it is more than these need: refused are a
  // workspace too small for the bins (100 bytes) and one too small for the long segments' rows
  // (4096 bytes: the bins fit), each before a key moved.
  for (const std::size_t too_small : {std::size_t{100}, std::size_t{4096}}) {
    keys.upload(input);
    options small;
    small.workspace = workspace.get();
    small.workspace_bytes = too_small;
    EXPECT_TRUE(
        test::throws_error([&] { sort_segments(keys.get(), offsets.get(), segments, small); },
                           {"sort_segments", "segments_workspace_bytes"}))
        << too_small << " bytes";
    EXPECT_TRUE(identical(keys.download(), input)) << "keys changed by a refused call";
  }
  EXPECT_GE(segments_workspace_bytes<Key>(l.keys(), segments, {}, 4),
            segments_workspace_bytes<Key>(l.keys(), segments, {}, 0) / 2);
  EXPECT_TRUE(test::throws_error(
      [&] { segments_workspace_bytes<Key>(l.keys(), segments, {}, 4, 4); }, {"at most one"}));
}

TEST(SegmentsGpuErrors, RefusedWithKeysUntouched) {
  const layout l = from_lengths("decreasing", 0, {4, 6, 10});
  std::vector<std::uint32_t> bad(l.offsets.begin(), l.offsets.end());
  bad[2] = 3;  // segment 1 ends before it starts
  device_array<std::uint32_t> offsets(bad.size());
  offsets.upload(bad);
  const std::vector<float> input = tools::generate<float>(l.keys(), distribution::uniform, 7);
  device_array<float> keys(input.size());
  keys.upload(input);
  EXPECT_TRUE(test::throws_error([&] { sort_segments(keys.get(), offsets.get(), 3); },
                                 {"sort_segments", "decrease at segment 1"}));
  bad = {5, 7, 2};  // the last offset before the first
  offsets.upload(bad);
  EXPECT_TRUE(test::throws_error([&] { sort_segments(keys.get(), offsets.get(), 2); },
                                 {"sort_segments", "decrease"}));
  EXPECT_TRUE(identical(keys.download(), input)) << "keys changed by a refused call";

  EXPECT_TRUE(test::throws_error(
      [&] { sort_segments(keys.get(), static_cast<const std::uint32_t*>(nullptr), 3); },
      {"sort_segments", "d_offsets"}));
  options global;
  global.algo = algorithm::global_step;
  EXPECT_TRUE(test::throws_error([&] { sort_segments(keys.get(), offsets.get(), 2, global); },
                                 {"sort_segments"}));
  std::vector<std::uint32_t> host_offsets = {0, 4};
  EXPECT_TRUE(test::throws_error([&] { sort_segments(keys.get(), host_offsets.data(), 1); },
                                 {"sort_segments", "d_offsets"}));
  device_array<std::uint32_t> indices(input.size());
  EXPECT_TRUE(test::throws_error(
      [&] {
        argsort_segments(keys.get(), reinterpret_cast<std::uint32_t*>(keys.get()), offsets.get(),
                         1);
      },
      {"argsort_segments", "overlap"}));
  sort_segments(keys.get(), static_cast<const std::uint64_t*>(nullptr), 0);  // nothing to do

  // A capturing stream: refused before anything is enqueued.
  offsets.upload(std::vector<std::uint32_t>(l.offsets.begin(), l.offsets.end()));
  const cuda_stream stream;
  options captured;
  captured.stream = stream.get();
  BITONIC_CUDA_CHECK(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeThreadLocal));
  EXPECT_TRUE(test::throws_error([&] { sort_segments(keys.get(), offsets.get(), 3, captured); },
                                 {"CUDA graph"}));
  cudaGraph_t graph = nullptr;
  BITONIC_CUDA_CHECK(cudaStreamEndCapture(stream.get(), &graph));
  if (graph != nullptr) cudaGraphDestroy(graph);
  EXPECT_TRUE(identical(keys.download(), input)) << "keys changed by a refused call";
}

}  // namespace
}  // namespace bitonic
