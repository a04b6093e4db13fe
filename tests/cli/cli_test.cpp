// bitonic-sort gen, sort (keys alone and with values), argsort and verify run as a user runs them
// (on the CPU reference executor when there is no GPU): gen -> sort -> verify for every key type,
// both file formats and both orders, verify catching unsorted and altered files, and every error
// path, each checked for its exit code, a message naming the problem, inputs left unchanged and no
// file left behind. Usage: bitonic_cli_tests [gtest options] PATH_OF_BITONIC_SORT (ctest passes
// it).
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "cli/scratch_files.hpp"
#include "common_test.hpp"
#include "tools/common/array_file.hpp"
#include "tools/common/npy.hpp"

namespace bitonic::test {
namespace {

std::string cli_path;  // set by main

struct run_result {
  int exit_code = -1;  //!< 128 + the signal for a run killed by one
  std::string out, err;
};

class Cli : public ::testing::Test {
 protected:
  scratch_dir dir;   // the test's files
  scratch_dir logs;  // the command's stdout and stderr, out of `dir`

  std::string path(std::string_view name) const { return dir / name; }

  //! Runs bitonic-sort with `args` through /bin/sh; `prefix` is shell text before the binary
  //! ("ulimit ...; exec ", "exec timeout ..."). Its stdout goes to `stdout_path` if given.
  run_result run(const std::vector<std::string>& args, std::string_view prefix = "",
                 std::string_view stdout_path = "") const {
    std::string command(prefix);
    const auto append_quoted = [&](std::string_view arg) {  // no test path holds a quote
      command.append(" '").append(arg).append("'");
    };
    append_quoted(cli_path);
    for (const std::string& arg : args) {
      append_quoted(arg);
    }
    command += " >";
    append_quoted(stdout_path.empty() ? logs / "out" : std::string(stdout_path));
    command += " 2>";
    append_quoted(logs / "err");
    const int status = std::system(command.c_str());
    run_result result;
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    result.out = stdout_path.empty() ? read_file(logs / "out") : "";
    result.err = read_file(logs / "err");
    return result;
  }

  void expect_success(const std::vector<std::string>& args) const {
    const run_result r = run(args);
    EXPECT_EQ(r.exit_code, 0) << args[0] << " failed: " << r.err;
  }

  //! Every file of the directory with its contents ("<not read>" for directories, FIFOs, ...).
  std::map<std::string, std::string> snapshot() const {
    std::map<std::string, std::string> files;
    for (const std::string& name : dir.names()) {
      std::error_code loop;  // a link to itself is neither
      const bool readable = std::filesystem::is_regular_file(path(name), loop) &&
                            ::access(path(name).c_str(), R_OK) == 0;
      files[name] = readable ? read_file(path(name)) : "<not read>";
    }
    return files;
  }

  //! Runs a command that must fail with `exit_code` and say `message` on stderr, and checks that
  //! it changed no file of the directory and left none behind.
  void expect_failure(const std::vector<std::string>& args, int exit_code, std::string_view message,
                      std::string_view prefix = "") const {
    const auto before = snapshot();
    const run_result r = run(args, prefix);
    EXPECT_EQ(r.exit_code, exit_code) << "stderr: " << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos)
        << "stderr does not say \"" << message << "\": " << r.err;
    EXPECT_EQ(snapshot(), before) << "files changed or left behind";
  }
};

template <class Key>
std::vector<Key> read_all(const std::string& path, std::string_view key_type = "") {
  const tools::key_array<Key> keys =
      tools::read_keys<Key>(tools::inspect_array_file(path, key_type));
  return {keys.span().begin(), keys.span().end()};
}

//! A .npy file of five int32 keys whose header has `dict`.
std::string npy_with(std::string_view dict) {
  return tools::npy::frame_header(dict, 1) + std::string(20, '\0');
}

template <class Key>
class CliRoundTrip : public Cli {};
TYPED_TEST_SUITE(CliRoundTrip, record_key_types, key_type_names);

TYPED_TEST(CliRoundTrip, GenSortVerifyInBothFormatsAndOrders) {
  using Key = TypeParam;
  const std::string type(tools::type_name<Key>());
  const bool gpu = bitonic::gpu_available();
  unsigned run_index = 0;
  for (const std::string extension : {"npy", "bin"}) {
    if (extension == "npy" && type == "bf16") {  // NumPy has no bfloat16: raw files only
      this->expect_failure({"gen", "--out", this->path("k.npy"), "--n", "10", "--type", type}, 1,
                           "bf16 keys have no NumPy dtype");
      continue;
    }
    const std::vector<std::string> type_args =
        extension == "bin" ? std::vector<std::string>{"--type", type} : std::vector<std::string>{};
    const auto with_type = [&](std::vector<std::string> args) {
      args.insert(args.end(), type_args.begin(), type_args.end());
      return args;
    };
    for (const order direction : all_orders) {
      const bool descending = direction == order::descending;
      const distribution dist = tools::all_distributions[(key_type_index<Key>() + run_index++) %
                                                         std::size(tools::all_distributions)];
      const std::size_t n = 1000 + 37 * key_type_index<Key>();
      const std::uint64_t seed = 7;
      SCOPED_TRACE(extension + " " + std::string(to_string(direction)) + " " +
                   std::string(tools::to_string(dist)));
      const std::string in = this->path("in." + extension), out = this->path("out." + extension);

      this->expect_success({"gen", "--out", in, "--n", std::to_string(n), "--type", type, "--dist",
                            std::string(tools::to_string(dist)), "--seed", std::to_string(seed)});
      const std::vector<Key> input = read_all<Key>(in, type);
      ASSERT_FALSE(tools::first_mismatch(input, tools::generate<Key>(n, dist, seed)));
      const std::string input_bytes = read_file(in);

      std::vector<std::string> sort_args = with_type({"sort", "--in", in, "--out", out});
      if (descending) sort_args.push_back("--desc");
      const run_result sorted = this->run(sort_args);
      ASSERT_EQ(sorted.exit_code, 0) << sorted.err;
      EXPECT_EQ(sorted.err.find("no CUDA device: sorting on the CPU reference executor"),
                gpu ? std::string::npos : std::size_t{0});
      EXPECT_TRUE(
          matches_reference(read_all<Key>(out, type), tools::reference_sort(input, direction)));

      std::vector<std::string> verify_args = with_type({"verify", "--in", out});
      if (descending) verify_args.push_back("--desc");
      const run_result verified = this->run(verify_args);
      EXPECT_EQ(verified.exit_code, 0) << verified.out;
      EXPECT_NE(verified.out.find(": sorted (" + std::string(to_string(direction)) + ")"),
                std::string::npos);
      verify_args.insert(verify_args.end(), {"--ref", in});
      const run_result same = this->run(verify_args);
      EXPECT_EQ(same.exit_code, 0) << same.out;
      EXPECT_NE(same.out.find("the same " + std::to_string(n) + " " + type + " keys as"),
                std::string::npos);

      EXPECT_EQ(read_file(in), input_bytes);
      EXPECT_EQ(this->dir.names(), (std::set<std::string>{"in." + extension, "out." + extension}));
      std::filesystem::remove(in);
      std::filesystem::remove(out);
    }
  }
}

TEST_F(Cli, SortsInPlaceAndConvertsFormats) {
  expect_success(
      {"gen", "--out", path("keys.bin"), "--n", "5000", "--type", "f64", "--dist", "nan"});
  const std::vector<double> input = read_all<double>(path("keys.bin"), "f64");
  std::filesystem::copy_file(path("keys.bin"), path("same.bin"));
  expect_success({"sort", "--in", path("same.bin"), "--out", path("same.bin"), "--type", "f64",
                  "--algo", "block_merge"});
  EXPECT_TRUE(matches_reference(read_all<double>(path("same.bin"), "f64"),
                                tools::reference_sort(input, order::ascending)));

  expect_success(
      {"sort", "--in", path("keys.bin"), "--type", "f64", "--out", path("keys.npy"), "--desc"});
  EXPECT_TRUE(matches_reference(read_all<double>(path("keys.npy")),
                                tools::reference_sort(input, order::descending)));
  expect_success(
      {"verify", "--in", path("keys.npy"), "--desc", "--ref", path("keys.bin"), "--type", "f64"});
  EXPECT_EQ(dir.names(), (std::set<std::string>{"keys.bin", "keys.npy", "same.bin"}));
}

template <class T>
std::vector<std::uint64_t> widened(const std::vector<T>& v) {
  return {v.begin(), v.end()};
}

//! Bit patterns of `v`, so that NaNs and zeros of both signs compare as what they are.
std::vector<std::uint32_t> bits_of(const std::vector<float>& v) {
  std::vector<std::uint32_t> bits(v.size());
  std::memcpy(bits.data(), v.data(), v.size() * sizeof(float));
  return bits;
}

// argsort and sort --values: the stable order of float keys with NaNs and zeros of both signs,
// as indices of both widths and as (key, value) files; unstable records as a permutation.
TEST_F(Cli, ArgsortAndSortWithValues) {
  const std::size_t n = 3001;
  expect_success({"gen", "--out", path("keys.npy"), "--n", std::to_string(n), "--type", "f32",
                  "--dist", "nan", "--seed", "11"});
  const std::vector<float> input = read_all<float>(path("keys.npy"));
  std::vector<std::uint64_t> values(n);  // distinct: an odd multiplier is a bijection
  for (std::size_t i = 0; i < n; ++i)
    values[i] = i * 0x9e37'79b9'7f4a'7c15ull;
  {
    tools::output_file out(path("values.npy"));
    tools::write_keys<std::uint64_t>(out, tools::file_format::npy, values);
    out.commit();
  }
  for (const order direction : all_orders) {
    SCOPED_TRACE(std::string(to_string(direction)));
    const std::vector<std::uint64_t> want = stable_order(input, direction);
    std::vector<std::string> desc;
    if (direction == order::descending) desc.push_back("--desc");
    const auto with_desc = [&](std::vector<std::string> args) {
      args.insert(args.end(), desc.begin(), desc.end());
      return args;
    };
    expect_success(with_desc({"argsort", "--in", path("keys.npy"), "--out", path("idx.npy")}));
    EXPECT_EQ(widened(read_all<std::uint32_t>(path("idx.npy"))), want);
    expect_success(with_desc(
        {"argsort", "--in", path("keys.npy"), "--out", path("idx.bin"), "--index", "u64"}));
    EXPECT_EQ(read_all<std::uint64_t>(path("idx.bin"), "u64"), want);

    expect_success(with_desc({"sort", "--in", path("keys.npy"), "--out", path("k.npy"), "--values",
                              path("values.npy"), "--values-out", path("v.npy"), "--stable"}));
    std::vector<float> want_keys(n);
    std::vector<std::uint64_t> want_values(n);
    for (std::size_t i = 0; i < n; ++i) {
      want_keys[i] = input[want[i]];
      want_values[i] = values[want[i]];
    }
    EXPECT_EQ(bits_of(read_all<float>(path("k.npy"))), bits_of(want_keys));
    EXPECT_EQ(read_all<std::uint64_t>(path("v.npy")), want_values);

    expect_success(with_desc({"sort", "--in", path("keys.npy"), "--out", path("k.npy"), "--values",
                              path("values.npy"), "--values-out", path("v.npy")}));
    const std::vector<float> keys = read_all<float>(path("k.npy"));
    const std::vector<std::uint64_t> moved = read_all<std::uint64_t>(path("v.npy"));
    EXPECT_TRUE(matches_reference(keys, tools::reference_sort(input, direction)));
    std::vector<bool> seen(n);
    for (std::size_t i = 0; i < n; ++i) {  // values are i * odd: divide back by its inverse
      const std::uint64_t record = moved[i] * 0xf1de'83e1'9937'733dull;
      ASSERT_LT(record, n) << "value at " << i << " is no record's";
      ASSERT_FALSE(seen[record]) << "record " << record << " twice";
      seen[record] = true;
      EXPECT_EQ(bits_of({keys[i]}), bits_of({input[record]})) << "record " << record;
    }
  }
  expect_failure(
      {"sort", "--in", path("keys.npy"), "--out", path("x.npy"), "--values", path("values.npy")}, 2,
      "--values-out FILE is required");
  expect_failure({"sort", "--in", path("keys.npy"), "--out", path("x.npy"), "--values",
                  path("values.npy"), "--values-out", path("x.npy")},
                 2, "is --out's file too");
  expect_failure({"sort", "--in", path("keys.npy"), "--out", path("x.npy"), "--values",
                  path("idx.bin"), "--values-out", path("y.npy"), "--values-type", "u32"},
                 2, "one value a key");
}

// sort --rows and topk on 2-D .npy files (rows of keys) and on 1-D ones: each row against std::sort
// and std::partial_sort, outputs in the input's shape; topk's refusals.
TEST_F(Cli, SortsRowsAndSelectsTopK) {
  const std::size_t rows = 7, row_length = 1000;
  const std::vector<float> input = tools::generate<float>(rows * row_length, distribution::nan, 23);
  {
    tools::output_file out(path("m.npy"));
    tools::write_keys<float>(out, tools::file_format::npy, input, row_length);
    out.commit();
  }
  for (const order direction : all_orders) {
    SCOPED_TRACE(std::string(to_string(direction)));
    std::vector<std::string> sort_args = {"sort",
                                          "--in",
                                          path("m.npy"),
                                          "--out",
                                          path("s.npy"),
                                          "--rows",
                                          std::to_string(row_length)};
    if (direction == order::descending) sort_args.push_back("--desc");
    expect_success(sort_args);
    const tools::array_file sorted = tools::inspect_array_file(path("s.npy"), "");
    ASSERT_TRUE(sorted.row_length.has_value());
    EXPECT_EQ(*sorted.row_length, row_length);
    const std::vector<float> got = read_all<float>(path("s.npy"));
    for (std::size_t r = 0; r < rows; ++r) {
      const std::vector<float> row(input.begin() + std::ptrdiff_t(r * row_length),
                                   input.begin() + std::ptrdiff_t((r + 1) * row_length));
      EXPECT_TRUE(
          matches_reference(std::vector<float>(got.begin() + std::ptrdiff_t(r * row_length),
                                               got.begin() + std::ptrdiff_t((r + 1) * row_length)),
                            tools::reference_sort(row, direction)))
          << "row " << r;
    }
    for (const std::size_t k : {std::size_t{1}, std::size_t{33}, row_length}) {
      std::vector<std::string> topk_args = {
          "topk",  "--in",        path("m.npy"), "--k",        std::to_string(k),
          "--out", path("t.npy"), "--indices",   path("i.npy")};
      if (direction == order::ascending) topk_args.push_back("--smallest");
      expect_success(topk_args);
      const std::vector<float> keys = read_all<float>(path("t.npy"));
      const std::vector<std::uint64_t> indices = read_all<std::uint64_t>(path("i.npy"));
      EXPECT_EQ(*tools::inspect_array_file(path("i.npy"), "").row_length, k);
      EXPECT_TRUE(matches_topk(keys, indices, input, rows, row_length, k, direction)) << "k=" << k;
    }
  }
  // A 1-D file is one row; indices alone, as uint32; sort --rows keeps it 1-D.
  {
    tools::output_file out(path("v.npy"));
    tools::write_keys<float>(out, tools::file_format::npy, input);
    out.commit();
  }
  expect_success(
      {"topk", "--in", path("v.npy"), "--k", "5", "--indices", path("i.bin"), "--index", "u32"});
  EXPECT_TRUE(matches_topk(std::vector<float>{}, read_all<std::uint32_t>(path("i.bin"), "u32"),
                           input, 1, input.size(), 5, order::descending));
  expect_success({"sort", "--in", path("v.npy"), "--out", path("vs.npy"), "--rows", "7"});
  EXPECT_FALSE(tools::inspect_array_file(path("vs.npy"), "").row_length.has_value());
  expect_failure({"topk", "--in", path("m.npy"), "--k", "1001", "--out", path("x.npy")}, 2,
                 "--k 1001: " + path("m.npy") + " has rows of 1000 keys");
  expect_failure({"topk", "--in", path("m.npy"), "--k", "3"}, 2, "--out FILE or --indices FILE");
  expect_failure({"topk", "--in", path("m.npy"), "--out", path("x.npy")}, 2, "--k K is required");
  expect_failure({"topk", "--in", path("m.npy"), "--k", "3", "--out", path("x.npy"), "--indices",
                  path("x.npy")},
                 2, "is --out's file too");
}

// 1- and 2-byte keys through the file commands: int8 keys with uint32 values (stable), argsort
// of float16 keys, topk of each row of int16 keys; a values file of 1-byte values refused.
TEST_F(Cli, SmallKeysTakeEveryFileCommand) {
  const std::size_t n = 2000;
  expect_success({"gen", "--out", path("k8.npy"), "--n", std::to_string(n), "--type", "i8",
                  "--dist", "few", "--seed", "5"});
  const std::vector<std::int8_t> keys8 = read_all<std::int8_t>(path("k8.npy"));
  std::vector<std::uint32_t> positions(n);
  for (std::size_t i = 0; i < n; ++i)
    positions[i] = std::uint32_t(i);
  {
    tools::output_file out(path("p.npy"));
    tools::write_keys<std::uint32_t>(out, tools::file_format::npy, positions);
    out.commit();
  }
  expect_success({"sort", "--in", path("k8.npy"), "--out", path("s8.npy"), "--values",
                  path("p.npy"), "--values-out", path("v.npy"), "--stable", "--desc"});
  const std::vector<std::uint64_t> order8 = stable_order(keys8, order::descending);
  const std::vector<std::int8_t> sorted8 = read_all<std::int8_t>(path("s8.npy"));
  EXPECT_EQ(widened(read_all<std::uint32_t>(path("v.npy"))), order8);
  for (std::size_t i = 0; i < n; ++i)
    ASSERT_EQ(sorted8[i], keys8[order8[i]]) << "position " << i;
  expect_failure({"sort", "--in", path("p.npy"), "--out", path("x.npy"), "--values", path("k8.npy"),
                  "--values-out", path("y.npy")},
                 2, "values are of 4 or 8 bytes");

  expect_success({"gen", "--out", path("h.bin"), "--n", std::to_string(n), "--type", "f16",
                  "--dist", "nan", "--seed", "6"});
  const std::vector<__half> halves = read_all<__half>(path("h.bin"), "f16");
  expect_success({"argsort", "--in", path("h.bin"), "--type", "f16", "--out", path("hi.npy")});
  EXPECT_EQ(widened(read_all<std::uint32_t>(path("hi.npy"))),
            stable_order(halves, order::ascending));
  expect_success({"sort", "--in", path("h.bin"), "--type", "f16", "--out", path("hs.npy")});
  expect_success({"verify", "--in", path("hs.npy"), "--ref", path("h.bin"), "--type", "f16"});

  const std::size_t rows = 4, row_length = 500;
  const std::vector<std::int16_t> keys16 =
      tools::generate<std::int16_t>(rows * row_length, distribution::uniform, 8);
  {
    tools::output_file out(path("m16.npy"));
    tools::write_keys<std::int16_t>(out, tools::file_format::npy, keys16, row_length);
    out.commit();
  }
  expect_success({"topk", "--in", path("m16.npy"), "--k", "9", "--out", path("t.npy"), "--indices",
                  path("ti.npy")});
  EXPECT_TRUE(matches_topk(read_all<std::int16_t>(path("t.npy")),
                           read_all<std::uint64_t>(path("ti.npy")), keys16, rows, row_length, 9,
                           order::descending));
}

TEST_F(Cli, VerifyCatchesUnsortedAndAlteredFiles) {
  expect_success({"gen", "--out", path("in.bin"), "--n", "1000", "--type", "u32"});
  expect_success({"sort", "--in", path("in.bin"), "--out", path("out.bin"), "--type", "u32"});
  const auto verify = [&](std::string_view file, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"verify", "--in", path(file), "--type", "u32"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run(args);
  };
  EXPECT_EQ(verify("in.bin").exit_code, 1);
  EXPECT_NE(verify("in.bin").out.find("in.bin: NOT sorted (ascending) at index "),
            std::string::npos);
  EXPECT_EQ(verify("out.bin", {"--desc"}).exit_code, 1);

  std::string altered = read_file(path("out.bin"));
  altered.replace(altered.size() - 4, 4, "\xff\xff\xff\xff");  // the largest u32: still sorted
  write_file(path("altered.bin"), altered);
  EXPECT_EQ(verify("altered.bin").exit_code, 0);
  const run_result different = verify("altered.bin", {"--ref", path("in.bin")});
  EXPECT_EQ(different.exit_code, 1);
  EXPECT_NE(different.out.find("but its keys differ from those of"), std::string::npos)
      << different.out;

  write_file(path("shorter.bin"), altered.substr(0, altered.size() - 4));
  const run_result shorter = verify("shorter.bin", {"--ref", path("in.bin")});
  EXPECT_EQ(shorter.exit_code, 1);
  EXPECT_NE(shorter.out.find("999 u32 keys, not 1000 u32 keys"), std::string::npos) << shorter.out;

  // Equal in the sort order is not enough: -0.0 and +0.0 are different keys.
  write_file(path("plus_zero.bin"), std::string(4, '\0'));
  write_file(path("minus_zero.bin"), std::string("\0\0\0\x80", 4));
  EXPECT_EQ(run({"verify", "--in", path("plus_zero.bin"), "--ref", path("minus_zero.bin"), "--type",
                 "f32"})
                .exit_code,
            1);
}

// Past 2^26 keys verify --ref compares multiset fingerprints instead of sorting both files.
TEST_F(Cli, VerifyComparesLargeFilesByFingerprint) {
  const std::string n = std::to_string((std::size_t{1} << 26) + 1);
  expect_success({"gen", "--out", path("a.bin"), "--n", n, "--type", "i32", "--dist", "sorted"});
  const run_result same =
      run({"verify", "--in", path("a.bin"), "--ref", path("a.bin"), "--type", "i32"});
  EXPECT_EQ(same.exit_code, 0) << same.out;
  EXPECT_NE(same.out.find("(multiset fingerprint"), std::string::npos) << same.out;

  std::string altered = read_file(path("a.bin"));
  altered.replace(altered.size() - 4, 4, "\xff\xff\xff\x7f");  // the largest i32: still sorted
  write_file(path("b.bin"), altered);
  const run_result different =
      run({"verify", "--in", path("b.bin"), "--ref", path("a.bin"), "--type", "i32"});
  EXPECT_EQ(different.exit_code, 1) << different.out;
  EXPECT_NE(different.out.find("multiset fingerprints differ"), std::string::npos) << different.out;
}

TEST_F(Cli, SortRejectsBadInputsAndLeavesNothingBehind) {
  const std::string dict_tail = "'fortran_order': False, 'shape': (5,)}";
  write_file(path("keys.npy"), npy_with("{'descr': '<i4', " + dict_tail));
  write_file(path("odd.bin"), std::string(1001, '\0'));
  write_file(path("big_endian.npy"), npy_with("{'descr': '>i4', " + dict_tail));
  write_file(path("fortran.npy"),
             npy_with("{'descr': '<i4', 'fortran_order': True, 'shape': (5,)}"));
  write_file(path("matrix.npy"),
             npy_with("{'descr': '<i4', 'fortran_order': False, 'shape': (1, 5)}"));
  write_file(path("complex.npy"), npy_with("{'descr': '<c8', " + dict_tail));
  write_file(path("cut.npy"), read_file(path("keys.npy")).substr(0, 50));
  write_file(path("short.npy"), read_file(path("keys.npy")).substr(0, 128 + 19));
  write_file(path("text.npy"), "1 2 3\n");
  std::filesystem::create_directory(path("subdir"));
  const auto sort_to = [&](std::string_view in, std::string out = "") {
    return std::vector<std::string>{"sort", "--in", path(in), "--out",
                                    out.empty() ? path("out.npy") : out};
  };
  struct bad_case {
    std::vector<std::string> args;
    int exit_code;
    std::string message;
  };
  const bad_case cases[] = {
      {sort_to("missing.npy"), 1,
       path("missing.npy") + ": cannot open it: No such file or directory"},
      {{"sort", "--in", path("subdir"), "--out", path("out.bin"), "--type", "i32"},
       1,
       "subdir: is a directory"},
      {{"sort", "--in", path("odd.bin"), "--out", path("out.bin"), "--type", "i32"},
       1,
       "odd.bin: its 1001 bytes are not a whole number of 4-byte i32 keys"},
      {{"sort", "--in", path("odd.bin"), "--out", path("out.bin")},
       2,
       "--type is required for the raw file"},
      {sort_to("big_endian.npy"), 1, "big_endian.npy: dtype '>i4' is big-endian"},
      {sort_to("fortran.npy"), 1, "fortran.npy: fortran_order is True"},
      {sort_to("matrix.npy"), 2, "matrix.npy: a 2-D array (rows of 5 keys): sort --rows 5"},
      {{"sort", "--in", path("matrix.npy"), "--out", path("out.npy"), "--rows", "4"},
       2,
       "--rows 4: " + path("matrix.npy") + " has rows of 5 keys"},
      {{"sort", "--in", path("keys.npy"), "--out", path("out.npy"), "--rows", "2"},
       2,
       "keys are not whole rows of that many"},
      {{"argsort", "--in", path("matrix.npy"), "--out", path("out.npy")}, 2, "a 2-D array"},
      {sort_to("complex.npy"), 1, "complex.npy: unsupported dtype '<c8'"},
      {sort_to("cut.npy"), 1, "cut.npy: truncated header"},
      {sort_to("short.npy"), 1, "short.npy: data size mismatch"},
      {sort_to("text.npy"), 1, "text.npy: not a .npy file"},
      {{"sort", "--in", path("keys.npy"), "--out", path("out.npy"), "--type", "f32"},
       1,
       "keys.npy: holds i32 keys (dtype '<i4'), not f32"},
      {sort_to("keys.npy", path("no-such-dir/out.npy")), 1,
       "no-such-dir/out.npy: cannot create a file in directory"},
      {sort_to("keys.npy", path("subdir")), 1, "subdir: exists and is not a regular file"},
      {{"sort", "--in", path("keys.npy"), "--out", path("out.npy"), "--algo", "quick"},
       2,
       "--algo: unknown algorithm 'quick'"},
      {{"sort", "--in", path("keys.npy")}, 2, "--out FILE is required"},
      {{"sort", "--in", path("keys.npy"), "--out", path("out.npy"), "--type", "i128"},
       2,
       "--type: unknown key type 'i128'"},
  };
  for (const bad_case& c : cases) {
    SCOPED_TRACE(c.message);
    expect_failure(c.args, c.exit_code, c.message);
  }
  if (::geteuid() != 0) {  // root reads anything
    ::chmod(path("keys.npy").c_str(), 0);
    expect_failure(sort_to("keys.npy"), 1, "keys.npy: cannot open it: Permission denied");
  }
}

TEST_F(Cli, GenAndVerifyRejectBadArguments) {
  write_file(path("big_endian.npy"),
             npy_with("{'descr': '>f4', 'fortran_order': False, 'shape': (5,)}"));
  expect_failure({"gen", "--out", path("no-such-dir/a.npy"), "--n", "10", "--type", "i32"}, 1,
                 "cannot create a file in directory");
  expect_failure({"gen", "--out", path("a.npy"), "--type", "i32"}, 2, "--n N is required");
  expect_failure({"gen", "--out", path("a.npy"), "--n", "10"}, 2, "--type T is required");
  expect_failure({"gen", "--out", path("a.npy"), "--n", "10", "--type", "i32", "--dist", "zipf"}, 2,
                 "--dist: unknown distribution 'zipf'");
  expect_failure({"verify", "--in", path("missing.npy")}, 1, "missing.npy: cannot open it");
  expect_failure({"verify", "--in", path("big_endian.npy")}, 1, "big_endian.npy: dtype '>f4'");
  write_file(path("a.bin"), std::string(8, '\0'));  // opened first: a missing file says so
  expect_failure({"verify", "--in", path("a.bin")}, 2, "--type is required for the raw file");
}

// Checked before bench looks for a GPU, so these run everywhere.
TEST_F(Cli, BenchRejectsBadSizes) {
  expect_failure({"bench", "--n", "0"}, 2, "--n: '0' is not a whole number in 1..");
  expect_failure({"bench", "--n", "1e8"}, 2, "--n: '1e8' is not a whole number");
  expect_failure({"bench", "--n", "100,"}, 2, "--n");
}

TEST_F(Cli, FullDiskLeavesNoPartialOutput) {
  // A file size limit makes files past 32-64 KiB fail (ulimit -f counts 512- or 1024-byte blocks)
  // as a full disk does, at once, when the output is reserved; with SIGXFSZ ignored the call
  // fails with EFBIG instead of killing the run. Where the file system cannot reserve space, the
  // writes report it.
  const std::string_view small_disk = "ulimit -f 64 && trap '' XFSZ && exec ";
  expect_success({"gen", "--out", path("in.npy"), "--n", "100000", "--type", "i32"});
  write_file(path("out.npy"), "an earlier result");
  expect_failure({"sort", "--in", path("in.npy"), "--out", path("out.npy")}, 1, "File too large",
                 small_disk);
  expect_failure({"gen", "--out", path("more.bin"), "--n", "100000", "--type", "u64"}, 1,
                 "File too large", small_disk);
}

TEST_F(Cli, InterruptedRunLeavesNothingBehind) {
  // gen sorts 2^24 keys for --dist sorted, about a second: SIGTERM comes while its temporary
  // output file exists, and the signal handler removes it.
  const run_result r =
      run({"gen", "--out", path("big.npy"), "--n", "16777216", "--type", "i64", "--dist", "sorted"},
          "exec timeout -s TERM 0.3 ");
  EXPECT_EQ(r.exit_code, 124) << "not interrupted: " << r.err;
  EXPECT_TRUE(dir.names().empty());
}

// Issue 25, what a hostile user found: one test per item.

// 1. A file that begins with the .npy magic string is read as .npy whatever its name, with a note;
// never as raw keys with the header sorted in.
TEST_F(Cli, ReadsNpyContentsUnderAnyName) {
  expect_success({"gen", "--out", path("keys.npy"), "--n", "1000", "--type", "i32", "--seed", "3"});
  std::filesystem::copy_file(path("keys.npy"), path("keys.bin"));
  const std::vector<std::int32_t> expected =
      tools::reference_sort(read_all<std::int32_t>(path("keys.npy")), order::ascending);
  for (const std::vector<std::string>& type : {std::vector<std::string>{}, {"--type", "i32"}}) {
    std::vector<std::string> args = {"sort", "--in", path("keys.bin"), "--out", path("out.bin")};
    args.insert(args.end(), type.begin(), type.end());
    const run_result r = run(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find(path("keys.bin") + ": begins with the .npy magic string: read as a .npy"),
              std::string::npos)
        << r.err;
    EXPECT_TRUE(matches_reference(read_all<std::int32_t>(path("out.bin"), "i32"), expected));
  }
  expect_failure({"sort", "--in", path("keys.bin"), "--out", path("out.bin"), "--type", "f32"}, 1,
                 "keys.bin: holds i32 keys (dtype '<i4'), not f32");
}

// 2. Raw files of zero bytes hold zero keys; files whose size says nothing of their contents
// (pseudo-files, pipes, devices) are refused, not read as empty or waited on.
TEST_F(Cli, EmptyRawFilesHoldZeroKeys) {
  expect_success({"gen", "--out", path("empty.bin"), "--n", "0", "--type", "u64"});
  EXPECT_EQ(read_file(path("empty.bin")), "");
  expect_success({"sort", "--in", path("empty.bin"), "--out", path("sorted.bin"), "--type", "u64"});
  EXPECT_EQ(read_file(path("sorted.bin")), "");
  expect_success({"sort", "--in", path("empty.bin"), "--out", path("sorted.npy"), "--type", "u64"});
  EXPECT_TRUE(read_all<std::uint64_t>(path("sorted.npy")).empty());
  const run_result verified = run({"verify", "--in", path("sorted.bin"), "--type", "u64"});
  EXPECT_EQ(verified.exit_code, 0) << verified.err;
  EXPECT_NE(verified.out.find("sorted (ascending), 0 u64 keys"), std::string::npos) << verified.out;
  EXPECT_EQ(dir.names(), (std::set<std::string>{"empty.bin", "sorted.bin", "sorted.npy"}));
}

TEST_F(Cli, RefusesFilesOfUnknownSize) {
  expect_failure({"sort", "--in", "/proc/self/status", "--out", path("out.bin"), "--type", "u32"},
                 1, "/proc/self/status: reports a size of 0 bytes but has contents");
  ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0600), 0);
  expect_failure({"sort", "--in", path("fifo"), "--out", path("out.bin"), "--type", "u32"}, 1,
                 "fifo: is a pipe (FIFO)", "exec timeout 60 ");
  expect_failure({"verify", "--in", "/dev/null", "--type", "u32"}, 1,
                 "/dev/null: is a character device");
}

// 3. An option's value that looks like an option is refused (--out=VALUE takes anything).
TEST_F(Cli, RefusesOptionsAsValues) {
  expect_success({"gen", "--out", path("keys.npy"), "--n", "100", "--type", "i32"});
  const std::string in_dir = "cd '" + dir / "" + "' && exec ";
  expect_failure({"sort", "--in", path("keys.npy"), "--out", "--desc"}, 2,
                 "--out needs a value, not the option '--desc'", in_dir);
  expect_failure({"gen", "--out", path("a.bin"), "--n", "--type", "i32"}, 2,
                 "--n needs a value, not the option '--type'", in_dir);
  expect_failure({"sort", "--in", path("keys.npy"), "--out", "-h"}, 2,
                 "--out needs a value, not the option '-h'", in_dir);
  const run_result odd_name =
      run({"sort", "--in", path("keys.npy"), "--out=-odd.npy", "--desc"}, in_dir);
  EXPECT_EQ(odd_name.exit_code, 0) << odd_name.err;
  EXPECT_EQ(dir.names(), (std::set<std::string>{"-odd.npy", "keys.npy"}));
}

// 4. A run killed by SIGKILL leaves its temporary file behind; the next run writing the same
// output removes it, and only it: not the temporary file of a live process, not look-alikes.
TEST_F(Cli, NextRunRemovesStaleTemporaryFiles) {
  const std::string script =
      "'" + cli_path + "' gen --out '" + path("big.npy") +
      "' --n 16777216 --type i64 --dist sorted >/dev/null 2>&1 & pid=$!; "
      "while kill -0 $pid 2>/dev/null && ! ls -A '" +
      dir / "" +
      "' | grep -q '^[.]big[.]npy[.]tmp-'; do sleep 0.01; done; kill -KILL $pid; wait $pid";
  const int status = std::system(script.c_str());
  ASSERT_EQ(WEXITSTATUS(status), 128 + SIGKILL) << "gen ended before it could be killed";
  ASSERT_EQ(dir.names().size(), 1u);
  const std::string stale = *dir.names().begin();

  const pid_t dead = ::fork();  // a process that has exited: its pid names no live process
  if (dead == 0) ::_exit(0);
  ASSERT_GT(dead, 0);
  ::waitpid(dead, nullptr, 0);
  const std::string dead_temp = ".big.npy.tmp-" + std::to_string(dead) + "-a1B2c3";
  const std::set<std::string> kept = {
      ".big.npy.tmp-" + std::to_string(::getpid()) + "-a1B2c3",  // this process: alive
      ".big.npy.tmp-x1B2c3", ".big.npy.tmp-" + std::to_string(dead) + "-a1B2c3.bak",
      ".other.npy.tmp-" + std::to_string(dead) + "-a1B2c3",
      "big.npy.tmp-" + std::to_string(dead) + "-a1B2c3"};
  for (const std::string& name : kept) {
    write_file(path(name), "not ours");
  }
  write_file(path(dead_temp), "stale");

  const run_result r = run({"gen", "--out", path("big.npy"), "--n", "10", "--type", "i64"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("removed " + path(stale) + ", left behind by process"), std::string::npos)
      << r.err;
  std::set<std::string> expected = kept;
  expected.insert("big.npy");
  EXPECT_EQ(dir.names(), expected);
}

TEST_F(Cli, FileSizeLimitSignalLeavesNothingBehind) {
  // Past `ulimit -f`, SIGXFSZ ends the run (its default action) as SIGTERM does: the temporary
  // file goes first.
  const run_result r = run({"gen", "--out", path("big.bin"), "--n", "100000", "--type", "u64"},
                           "ulimit -c 0 && ulimit -f 64 && exec ");
  EXPECT_EQ(r.exit_code, 128 + SIGXFSZ) << r.err;
  EXPECT_TRUE(dir.names().empty());
}

// 5. As strict as NumPy's reader: a shape that is not a tuple is refused.
TEST_F(Cli, RefusesShapesThatAreNotTuples) {
  write_file(path("scalar_shape.npy"),
             npy_with("{'descr': '<i4', 'fortran_order': False, 'shape': (5)}"));
  expect_failure({"sort", "--in", path("scalar_shape.npy"), "--out", path("out.npy")}, 1,
                 "scalar_shape.npy: malformed header: the shape (5) is not a tuple");
}

// 6. Messages that say what is wrong.
TEST_F(Cli, MessagesSayWhatIsWrong) {
  std::filesystem::create_directory(path("subdir"));
  expect_failure({"sort", "--in", path("subdir"), "--out", path("out.bin")}, 1,
                 "subdir: is a directory");
  expect_failure({"verify", "--in", path("subdir")}, 1, "subdir: is a directory");

  // -0.0 and +0.0 are equal in the sort order but different keys: show both, bits too.
  write_file(path("plus_zero.bin"), std::string(4, '\0'));
  write_file(path("minus_zero.bin"), std::string("\0\0\0\x80", 4));
  const run_result zeros = run(
      {"verify", "--in", path("minus_zero.bin"), "--ref", path("plus_zero.bin"), "--type", "f32"});
  EXPECT_EQ(zeros.exit_code, 1);
  EXPECT_NE(zeros.out.find("key 0 is -0 (bits 0x80000000) here and 0 (bits 0x00000000) there"),
            std::string::npos)
      << zeros.out;

  expect_success({"gen", "--out", path("keys.npy"), "--n", "1000", "--type", "f32"});
  for (const std::string size : {"1.5G", "0.5K", "2T", "1536", "3.25MiB", "1k"}) {
    SCOPED_TRACE(size);
    expect_success(
        {"sort", "--in", path("keys.npy"), "--out", path("out.npy"), "--max-device-bytes", size});
  }
  const std::string units = "a number of bytes with an optional unit K, M, G or T";
  expect_failure(
      {"sort", "--in", path("keys.npy"), "--out", path("x.npy"), "--max-device-bytes", "1.5X"}, 2,
      "--max-device-bytes: '1.5X' is not " + units);
  expect_failure(
      {"sort", "--in", path("keys.npy"), "--out", path("x.npy"), "--max-device-bytes", "2GB"}, 2,
      "--max-device-bytes: '2GB' is not " + units);
  expect_failure(
      {"sort", "--in", path("keys.npy"), "--out", path("x.npy"), "--max-device-bytes", "1.5"}, 2,
      "--max-device-bytes: '1.5' is not a whole number of bytes");
  expect_failure(
      {"sort", "--in", path("keys.npy"), "--out", path("x.npy"), "--max-device-bytes", "20000000T"},
      2, "--max-device-bytes: '20000000T' is more than");

  // Out of host memory: said in words, not as "std::bad_alloc".
  expect_failure({"demo", "--log2n", "30"}, 1, "bitonic-sort: error: out of host memory",
                 "ulimit -v 4000000 && exec ");
}

// 7. Output that cannot be written is an error, on stdout too.
TEST_F(Cli, FailedWritesToStdoutAreErrors) {
  expect_success({"gen", "--out", path("keys.npy"), "--n", "100", "--type", "u32"});
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"verify", "--in", path("keys.npy")}, {"--help"}, {"--version"}}) {
    SCOPED_TRACE(args[0]);
    const run_result r = run(args, "", "/dev/full");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("bitonic-sort: error: cannot write to standard output: No space left"),
              std::string::npos)
        << r.err;
  }
}

// 8. Without a GPU, bench runs what runs on the CPU and says in one line what it skipped.
TEST_F(Cli, BenchWithoutGpuRunsTheCpuPeers) {
  if (bitonic::gpu_available()) GTEST_SKIP() << "a GPU is present: bench runs everything";
  const run_result host =
      run({"bench", "--host", "--n", "1000", "--runs", "1", "--csv", path("host.csv")});
  EXPECT_EQ(host.exit_code, 0) << host.err;
  EXPECT_NE(host.out.find("sort_host"), std::string::npos) << host.out;
  EXPECT_NE(host.out.find("std_sort"), std::string::npos) << host.out;
  EXPECT_NE(host.err.find("no CUDA device: sort_host sorts on the CPU reference executor"),
            std::string::npos)
      << host.err;
  EXPECT_NE(read_file(path("host.csv")).find(",sort_host,"), std::string::npos);

  const run_result all = run({"bench", "--n", "1000", "--runs", "1", "--type", "f32,u64"});
  EXPECT_EQ(all.exit_code, 0) << all.err;
  EXPECT_NE(all.out.find("qsort"), std::string::npos) << all.out;
  EXPECT_NE(all.err.find("no CUDA device: skipped global_step fused_steps shared_tiles "
                         "block_merge optimized automatic automatic_workspace "
                         "automatic_out_of_place cub_radix "
                         "cub_merge thrust_cmp "
                         "(GPU only)"),
            std::string::npos)
      << all.err;

  expect_failure({"bench", "--n", "1000", "--algo", "optimized,cub_radix"}, 1,
                 "no CUDA device: nothing to run (GPU only: optimized cub_radix)");

  // --dist: the keys' distribution, named in the table and in the CSV's last column.
  const run_result few = run({"bench", "--n", "1000", "--runs", "1", "--algo", "std_sort,qsort",
                              "--dist", "few", "--csv", path("few.csv")});
  EXPECT_EQ(few.exit_code, 0) << few.err;
  EXPECT_NE(few.out.find("i32, few keys, n = 1000"), std::string::npos) << few.out;
  const std::string csv = read_file(path("few.csv"));
  const std::string header = csv.substr(0, csv.find('\n'));
  EXPECT_TRUE(header.ends_with(",distribution")) << header;
  EXPECT_NE(csv.find(",qsort,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",few\n"), std::string::npos) << csv;
}

TEST_F(Cli, BenchRejectsUnknownDistributions) {
  expect_failure({"bench", "--dist", "gaussian"}, 2, "--dist: unknown distribution 'gaussian'");
  expect_failure({"bench", "--batched", "64", "--dist", "few"}, 2, "--dist");
}

// The batched mode times the rows --algo names among its own, and refuses others by name.
TEST_F(Cli, BenchBatchedTakesItsOwnRows) {
  expect_failure({"bench", "--batched", "64", "--algo", "bitonic_batched,cub_radix"}, 2,
                 "--algo: 'cub_radix' is not a row of --batched (bitonic_batched cub_segmented");
  expect_failure({"bench", "--batched", "64", "--host"}, 2, "it takes no --host");
}

// 9. An output that is a symbolic link is written through to its target; the link stays.
TEST_F(Cli, WritesThroughSymbolicLinks) {
  expect_success({"gen", "--out", path("keys.bin"), "--n", "1000", "--type", "u32"});
  const std::vector<std::uint32_t> input = read_all<std::uint32_t>(path("keys.bin"), "u32");
  std::filesystem::create_directory(path("data"));
  write_file(path("data/old.bin"), "old");
  std::filesystem::create_symlink("data/old.bin", path("link.bin"));
  expect_success({"sort", "--in", path("keys.bin"), "--out", path("link.bin"), "--type", "u32"});
  EXPECT_TRUE(std::filesystem::is_symlink(path("link.bin")));
  EXPECT_EQ(std::filesystem::read_symlink(path("link.bin")), "data/old.bin");
  EXPECT_TRUE(matches_reference(read_all<std::uint32_t>(path("data/old.bin"), "u32"),
                                tools::reference_sort(input, order::ascending)));

  // In place through the link; then a chain of links whose last one dangles: the file appears
  // where the chain points.
  expect_success(
      {"sort", "--in", path("link.bin"), "--out", path("link.bin"), "--type", "u32", "--desc"});
  EXPECT_TRUE(matches_reference(read_all<std::uint32_t>(path("data/old.bin"), "u32"),
                                tools::reference_sort(input, order::descending)));
  std::filesystem::create_symlink("link2.bin", path("chain.bin"));
  std::filesystem::create_symlink(path("data/new.bin"), path("link2.bin"));
  expect_success({"sort", "--in", path("keys.bin"), "--out", path("chain.bin"), "--type", "u32"});
  EXPECT_TRUE(std::filesystem::is_symlink(path("chain.bin")));
  EXPECT_TRUE(std::filesystem::is_symlink(path("link2.bin")));
  EXPECT_TRUE(
      std::filesystem::is_regular_file(std::filesystem::symlink_status(path("data/new.bin"))));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(path("data")), {}), 2);  // no temp
  EXPECT_EQ(dir.names(),
            (std::set<std::string>{"chain.bin", "data", "keys.bin", "link.bin", "link2.bin"}));

  std::filesystem::create_symlink("loop.bin", path("loop.bin"));
  expect_failure({"sort", "--in", path("keys.bin"), "--out", path("loop.bin"), "--type", "u32"}, 1,
                 "loop.bin: Too many levels of symbolic links");

  // A hard link is another name of the same file: the output replaces the file under the name
  // given, and the other names keep the old contents (README).
  write_file(path("a.bin"), "old");
  std::filesystem::create_hard_link(path("a.bin"), path("b.bin"));
  expect_success({"sort", "--in", path("keys.bin"), "--out", path("a.bin"), "--type", "u32"});
  EXPECT_EQ(read_file(path("b.bin")), "old");
  EXPECT_EQ(read_all<std::uint32_t>(path("a.bin"), "u32").size(), input.size());
}

// 11. --version, and options given twice are refused (lists that may repeat excepted).
TEST_F(Cli, PrintsItsVersionAndRefusesRepeatedOptions) {
  const run_result version = run({"--version"});
  EXPECT_EQ(version.exit_code, 0) << version.err;
  EXPECT_TRUE(std::regex_match(version.out, std::regex("bitonic-sort [0-9]+\\.[0-9]+\\.[0-9]+\n")))
      << version.out;
  expect_success({"gen", "--out", path("keys.npy"), "--n", "100", "--type", "i32"});
  expect_failure({"gen", "--out", path("a.bin"), "--n", "5", "--n", "6", "--type", "i32"}, 2,
                 "--n given twice");
  expect_failure({"sort", "--in", path("keys.npy"), "--out", path("b.npy"), "--desc", "--desc"}, 2,
                 "--desc given twice");
  expect_failure({"verify", "--in=" + path("keys.npy"), "--in", path("keys.npy")}, 2,
                 "--in given twice");
  expect_failure({"bench", "--runs", "1", "--runs", "2"}, 2, "--runs given twice");
}

}  // namespace
}  // namespace bitonic::test

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s [gtest options] PATH_OF_BITONIC_SORT\n", argv[0]);
    return 2;
  }
  bitonic::test::cli_path = std::filesystem::absolute(argv[1]).string();
  return RUN_ALL_TESTS();
}
