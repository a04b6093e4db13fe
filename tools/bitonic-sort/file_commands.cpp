// bitonic-sort sort, gen and verify: key arrays in .npy or raw files (tools/common/array_file.hpp),
// sorted with bitonic::sort_host (with a values file: sort_pairs_host), generated from the test
// distributions, checked. Outputs are written in full or not at all; inputs are only ever read.
#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "args.hpp"
#include "bench/algorithms.hpp"
#include "bench/driver.hpp"
#include "bench/keys.hpp"
#include "bitonic/bitonic.hpp"
#include "bitonic/cuda_helpers.hpp"
#include "bitonic/order.hpp"
#include "commands.hpp"
#include "file_options.hpp"
#include "tools/common/array_file.hpp"

namespace bitonic::cli {
namespace {

algorithm parse_variant(std::string_view name) {  // the usage text lists them
  for (const bench::algorithm_id& v : bench::variants()) {
    if (v.name == name) return v.variant;
  }
  throw usage_error("--algo: unknown algorithm '" + std::string(name) + "'");
}

template <class Key>
std::string format_key(Key key) {
  char text[64];
  return std::string(text, std::to_chars(text, text + sizeof text, tools::printable(key)).ptr);
}

//! "-0 (bits 0x80000000)": keys that print alike (-0.0 and +0.0, NaNs) told apart.
template <class Key>
std::string format_key_and_bits(Key key) {
  char bits[32];
  std::snprintf(bits, sizeof bits, "0x%0*llx", static_cast<int>(2 * sizeof(Key)),
                static_cast<unsigned long long>(tools::key_bits(key)));
  return format_key(key) + " (bits " + bits + ")";
}

//! Above this many keys, verify --ref compares multiset fingerprints instead of sorting both
//! arrays by their bits (two single-threaded sorts of 2^31 keys take minutes).
constexpr std::size_t exact_check_max_keys = std::size_t{1} << 26;

//! An order-independent fingerprint of the keys' bits: two sums of differently seeded 64-bit
//! mixes (splitmix64's finaliser), on all hardware threads. Arrays holding the same multiset
//! agree; a lost, duplicated or changed key changes both sums but with probability ~2^-128.
template <class Key>
std::array<std::uint64_t, 2> multiset_fingerprint(std::span<const Key> keys) {
  const auto mix = [](std::uint64_t x) {
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
  };
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::array<std::uint64_t, 2>> sums(threads, {0, 0});
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      std::array<std::uint64_t, 2> s{0, 0};
      for (std::size_t i = keys.size() * t / threads; i < keys.size() * (t + 1) / threads; ++i) {
        const std::uint64_t bits = tools::key_bits(keys[i]);
        s[0] += mix(bits + 0x9e3779b97f4a7c15ull);
        s[1] += mix(bits ^ 0xd1b54a32d192ed03ull);
      }
      sums[t] = s;
    });
  }
  for (std::thread& w : workers)
    w.join();
  std::array<std::uint64_t, 2> total{0, 0};
  for (const auto& s : sums) {
    total[0] += s[0];
    total[1] += s[1];
  }
  return total;
}

//! The verdict of verify for one key type: sorted in `direction` and, with a reference, the same
//! keys bit for bit. Prints one line; returns the exit code.
template <class Key>
int verify_keys(const tools::array_file& in_file, const tools::array_file* ref_file,
                order direction) {
  const tools::key_array<Key> in = tools::read_keys<Key>(in_file);
  const std::span<Key> keys = in.span();
  const auto unsorted = direction == order::ascending
                            ? std::is_sorted_until(keys.begin(), keys.end(), ascending_less{})
                            : std::is_sorted_until(keys.begin(), keys.end(), descending_less{});
  const char* name = in_file.path.c_str();
  if (unsorted != keys.end()) {
    const std::size_t i = static_cast<std::size_t>(unsorted - keys.begin());
    std::printf("%s: NOT sorted (%s) at index %zu: keys[%zu] = %s, keys[%zu] = %s\n", name,
                to_string(direction).data(), i, i - 1, format_key(keys[i - 1]).c_str(), i,
                format_key(keys[i]).c_str());
    return 1;
  }
  if (ref_file == nullptr) {
    std::printf("%s: sorted (%s), %zu %s keys\n", name, to_string(direction).data(), keys.size(),
                tools::type_name<Key>().data());
    return 0;
  }
  const tools::key_array<Key> ref = tools::read_keys<Key>(*ref_file);
  const std::span<Key> ref_keys = ref.span();
  if (keys.size() > exact_check_max_keys) {
    if (multiset_fingerprint<Key>(keys) != multiset_fingerprint<Key>(ref_keys)) {
      std::printf(
          "%s: sorted (%s), but its keys differ from those of %s (multiset fingerprints "
          "differ)\n",
          name, to_string(direction).data(), ref_file->path.c_str());
      return 1;
    }
    std::printf(
        "%s: sorted (%s), the same %zu %s keys as %s (multiset fingerprint: two 64-bit "
        "order-independent hashes; exact check up to %zu keys)\n",
        name, to_string(direction).data(), keys.size(), tools::type_name<Key>().data(),
        ref_file->path.c_str(), exact_check_max_keys);
    return 0;
  }
  // The same multiset bit for bit (-0.0 is not +0.0 here, NaN payloads count): sorted by their
  // bits, the two arrays must be identical.
  const auto by_bits = [](Key a, Key b) { return tools::key_bits(a) < tools::key_bits(b); };
  std::sort(keys.begin(), keys.end(), by_bits);
  std::sort(ref_keys.begin(), ref_keys.end(), by_bits);
  const auto [differs, ref_differs] =
      std::mismatch(keys.begin(), keys.end(), ref_keys.begin(),
                    [](Key a, Key b) { return tools::key_bits(a) == tools::key_bits(b); });
  if (differs != keys.end()) {
    std::printf(
        "%s: sorted (%s), but its keys differ from those of %s: in bit order, key %zu is "
        "%s here and %s there\n",
        name, to_string(direction).data(), ref_file->path.c_str(),
        static_cast<std::size_t>(differs - keys.begin()), format_key_and_bits(*differs).c_str(),
        format_key_and_bits(*ref_differs).c_str());
    return 1;
  }
  std::printf("%s: sorted (%s), the same %zu %s keys as %s\n", name, to_string(direction).data(),
              keys.size(), tools::type_name<Key>().data(), ref_file->path.c_str());
  return 0;
}

}  // namespace

namespace {

//! What sort_command read from its options.
struct sort_request {
  std::string in_path, out_path, values_path, values_out_path;
  std::string_view key_type, value_type;
  bitonic::options options;
  std::optional<std::uint64_t> row_length;  //!< --rows: sort each row of this many keys
};

//! sort --rows: each row of `row_length` keys sorted on its own, in groups of rows through the
//! device (bitonic::sort_batched) with a GPU, else each row by bitonic::sort_on_cpu.
template <class Key>
void sort_rows(Key* keys, std::size_t count, std::size_t row_length, const options& opt, bool gpu) {
  if (row_length < 2) return;
  const std::size_t rows = count / row_length;
  if (!gpu) {
    for (std::size_t r = 0; r < rows; ++r)
      sort_on_cpu(keys + r * row_length, row_length, opt);
    return;
  }
  // Groups of about 2^26 keys (whole rows): device memory stays small beside the host arrays.
  const std::size_t group =
      std::min(rows, std::max<std::size_t>(1, (std::size_t{1} << 26) / row_length));
  device_buffer<Key> d_keys(group * row_length);
  device_buffer<std::byte> workspace(batched_workspace_bytes<Key>(group, row_length, opt));
  options on_device = opt;
  on_device.workspace = workspace.get();
  on_device.workspace_bytes = workspace.size();
  for (std::size_t first = 0; first < rows; first += group) {
    const std::size_t n = std::min(group, rows - first) * row_length;
    Key* h = keys + first * row_length;
    BITONIC_CUDA_CHECK(cudaMemcpy(d_keys.get(), h, n * sizeof(Key), cudaMemcpyHostToDevice));
    sort_batched(d_keys.get(), n / row_length, row_length, on_device);
    BITONIC_CUDA_CHECK(cudaMemcpy(h, d_keys.get(), n * sizeof(Key), cudaMemcpyDeviceToHost));
  }
}

//! sort with --values: the keys and the values sorted together by sort_pairs_host, each written
//! in full or not at all.
template <class Key>
void sort_with_values(const sort_request& req, const tools::array_file& in, tools::output_file& out,
                      bool gpu) {
  const tools::array_file values_in = open_input(req.values_path, req.value_type);
  if (values_in.count != in.count) {
    throw usage_error("--values: " + values_in.path + " holds " + std::to_string(values_in.count) +
                      " values and " + in.path + " " + std::to_string(in.count) +
                      " keys: one value a key");
  }
  if (!tools::with_key_type(values_in.key_type, [](auto) {})) {
    throw usage_error("--values: " + values_in.path + " holds " + std::string(values_in.key_type) +
                      " values; values are of 4 or 8 bytes (i32 u32 i64 u64 f32 f64)");
  }
  tools::output_file values_out(req.values_out_path);
  tools::with_key_type(values_in.key_type, [&](auto value) {
    using Value = decltype(value);
    const tools::file_format out_format = tools::format_of(req.out_path);
    const tools::file_format values_format = tools::format_of(req.values_out_path);
    out.reserve(tools::array_file_size<Key>(out_format, in.count));
    values_out.reserve(tools::array_file_size<Value>(values_format, in.count));
    const clock::time_point start = clock::now();
    const tools::key_array<Key> keys = tools::read_keys<Key>(in);
    const tools::key_array<Value> values = tools::read_keys<Value>(values_in);
    const double read_s = seconds_since(start);
    const clock::time_point sort_start = clock::now();
    try {
      sort_pairs_host(keys.keys.get(), values.keys.get(), keys.count, req.options);
    } catch (const std::bad_alloc&) {
      throw tools::file_error(in.path + ": not enough host memory to sort its records");
    }
    const double sort_s = seconds_since(sort_start);
    const clock::time_point write_start = clock::now();
    tools::write_keys<Key>(out, out_format, keys.span());
    tools::write_keys<Value>(values_out, values_format, values.span());
    out.commit();
    values_out.commit();
    std::printf(
        "%s, %s -> %s, %s: %zu %s keys with %s values sorted %s%s in %.3f s on the %s (read %.3f "
        "s, write %.3f s)\n",
        in.path.c_str(), values_in.path.c_str(), out.path().c_str(), values_out.path().c_str(),
        keys.count, tools::type_name<Key>().data(), tools::type_name<Value>().data(),
        to_string(req.options.direction).data(), req.options.stable ? " (stable)" : "", sort_s,
        gpu ? "GPU" : "CPU", read_s, seconds_since(write_start));
  });
}

}  // namespace

int sort_command(std::span<const std::string_view> args) {
  sort_request req;
  const option options[] = {
      {"--in", [&](std::string_view v) { req.in_path = v; }},
      {"--out", [&](std::string_view v) { req.out_path = v; }},
      {"--type", [&](std::string_view v) { req.key_type = parse_key_type(v); }},
      {"--values", [&](std::string_view v) { req.values_path = v; }},
      {"--values-out", [&](std::string_view v) { req.values_out_path = v; }},
      {"--values-type", [&](std::string_view v) { req.value_type = parse_value_type(v); }},
      {"--desc", [&](std::string_view) { req.options.direction = order::descending; }, false},
      {"--stable", [&](std::string_view) { req.options.stable = true; }, false},
      {"--algo", [&](std::string_view v) { req.options.algo = parse_variant(v); }},
      {"--rows",
       [&](std::string_view v) { req.row_length = parse_uint("--rows", v, 1, max_file_keys); }},
      {"--max-device-bytes",
       [&](std::string_view v) {
         req.options.max_device_bytes = parse_bytes("--max-device-bytes", v);
       }},
  };
  parse_options(args, options);
  require(req.in_path, "--in");
  require(req.out_path, "--out");
  if (!req.values_path.empty()) require(req.values_out_path, "--values-out");
  if (!req.values_out_path.empty()) require(req.values_path, "--values");
  if (!req.values_out_path.empty() && req.values_out_path == req.out_path) {
    throw usage_error("--values-out: " + req.values_out_path + " is --out's file too");
  }

  if (req.row_length && !req.values_path.empty()) {
    throw usage_error("--rows sorts keys alone: it does not take --values");
  }
  const tools::array_file in = open_input(req.in_path, req.key_type, req.row_length.has_value());
  if (req.row_length) {
    if (in.row_length && *in.row_length != *req.row_length) {
      throw usage_error("--rows " + std::to_string(*req.row_length) + ": " + in.path +
                        " has rows of " + std::to_string(*in.row_length) + " keys");
    }
    if (in.count % *req.row_length != 0) {
      throw usage_error("--rows " + std::to_string(*req.row_length) + ": " + in.path + "'s " +
                        std::to_string(in.count) + " keys are not whole rows of that many");
    }
  }
  tools::output_file out(req.out_path);  // before the long part: a bad destination fails at once
  const bool gpu = bitonic::gpu_available();
  if (!gpu) {
    std::fprintf(stderr,
                 "no CUDA device: sorting on the CPU reference executor (slow for large inputs)\n");
  }
  tools::with_any_key_type(in.key_type, [&](auto key) {
    using Key = decltype(key);
    if (!req.values_path.empty()) {
      sort_with_values<Key>(req, in, out, gpu);
      return;
    }
    const tools::file_format out_format = tools::format_of(req.out_path);
    out.reserve(tools::array_file_size<Key>(out_format, in.count, in.row_length));
    const clock::time_point start = clock::now();
    const tools::key_array<Key> keys = tools::read_keys<Key>(in);
    const double read_s = seconds_since(start);
    const clock::time_point sort_start = clock::now();
    try {
      if (req.row_length) {
        sort_rows(keys.keys.get(), keys.count, *req.row_length, req.options, gpu);
      } else {
        sort_host(keys.keys.get(), keys.count, req.options);
      }
    } catch (const std::bad_alloc&) {
      throw tools::file_error(in.path + ": not enough host memory to sort its keys");
    }
    const double sort_s = seconds_since(sort_start);
    const clock::time_point write_start = clock::now();
    tools::write_keys<Key>(out, out_format, keys.span(), in.row_length);
    out.commit();
    const std::string rows =
        req.row_length ? " in rows of " + std::to_string(*req.row_length) : std::string();
    std::printf(
        "%s -> %s: %zu %s keys sorted %s%s in %.3f s on the %s (read %.3f s, write %.3f "
        "s)\n",
        in.path.c_str(), out.path().c_str(), keys.count, tools::type_name<Key>().data(),
        to_string(req.options.direction).data(), rows.c_str(), sort_s, gpu ? "GPU" : "CPU", read_s,
        seconds_since(write_start));
  });
  return 0;
}

int gen_command(std::span<const std::string_view> args) {
  std::string out_path;
  std::string_view key_type;
  std::optional<std::uint64_t> count;
  tools::distribution dist = tools::distribution::uniform;
  std::uint64_t seed = bench::default_seed;
  const option options[] = {
      {"--out", [&](std::string_view v) { out_path = v; }},
      {"--n", [&](std::string_view v) { count = parse_uint("--n", v, 0, max_file_keys); }},
      {"--type", [&](std::string_view v) { key_type = parse_key_type(v); }},
      {"--dist", [&](std::string_view v) { dist = parse_distribution_name(v); }},
      {"--seed", [&](std::string_view v) { seed = parse_uint("--seed", v, 0, UINT64_MAX); }},
  };
  parse_options(args, options);
  require(out_path, "--out");
  if (!count) throw usage_error("--n N is required");
  if (key_type.empty()) throw usage_error("--type T is required");

  tools::output_file out(out_path);
  tools::with_any_key_type(key_type, [&](auto key) {
    using Key = decltype(key);
    const tools::file_format out_format = tools::format_of(out_path);
    out.reserve(tools::array_file_size<Key>(out_format, *count));
    std::vector<Key> keys;
    try {
      keys = tools::generate<Key>(*count, dist, seed);
    } catch (const std::bad_alloc&) {
      throw tools::file_error(out_path + ": not enough host memory to generate " +
                              std::to_string(*count) + " keys (" +
                              std::to_string(*count * sizeof(Key)) + " bytes)");
    }
    tools::write_keys<Key>(out, out_format, keys);
    out.commit();
  });
  std::printf("%s: %llu %s keys, distribution %s, seed %llu\n", out_path.c_str(),
              static_cast<unsigned long long>(*count), std::string(key_type).c_str(),
              tools::to_string(dist).data(), static_cast<unsigned long long>(seed));
  return 0;
}

int verify_command(std::span<const std::string_view> args) {
  std::string in_path, ref_path;
  std::string_view key_type;
  order direction = order::ascending;
  const option options[] = {
      {"--in", [&](std::string_view v) { in_path = v; }},
      {"--ref", [&](std::string_view v) { ref_path = v; }},
      {"--type", [&](std::string_view v) { key_type = parse_key_type(v); }},
      {"--desc", [&](std::string_view) { direction = order::descending; }, false},
  };
  parse_options(args, options);
  require(in_path, "--in");

  const tools::array_file in = open_input(in_path, key_type);
  std::optional<tools::array_file> ref;
  if (!ref_path.empty()) {
    ref = open_input(ref_path, key_type);
    if (ref->key_type != in.key_type || ref->count != in.count) {
      std::printf("%s: differs from %s: %llu %s keys, not %llu %s keys\n", in.path.c_str(),
                  ref->path.c_str(), static_cast<unsigned long long>(in.count), in.key_type.data(),
                  static_cast<unsigned long long>(ref->count), ref->key_type.data());
      return 1;
    }
  }
  int status = 1;
  tools::with_any_key_type(in.key_type, [&](auto key) {
    status = verify_keys<decltype(key)>(in, ref ? &*ref : nullptr, direction);
  });
  return status;
}

}  // namespace bitonic::cli
