// The .npy reader and writer and the array files of the CLI (tools/common): numpy's exact header,
// round trips of every key type in both formats, header versions and variants, every malformed or
// unsupported header, sizes that do not match, and outputs that are written in full or not at all.
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/scratch_files.hpp"
#include "common_test.hpp"
#include "tools/common/array_file.hpp"
#include "tools/common/npy.hpp"

namespace bitonic::test {
namespace {

namespace npy = tools::npy;
using tools::file_format;

constexpr std::string_view valid_dict = "{'descr': '<i4', 'fortran_order': False, 'shape': (5,), }";

//! A .npy file of version 1.0 with header `dict` and `data_bytes` bytes of data.
std::string npy_file(std::string_view dict, std::size_t data_bytes = 20) {
  return npy::frame_header(dict, 1) + std::string(data_bytes, '\0');
}

//! What parse_header says about a whole file: its error message, or nullopt if it parses.
std::optional<std::string> header_error(std::string_view file) {
  try {
    npy::parse_header(file, file.size());
  } catch (const npy::format_error& e) {
    return e.what();
  }
  return std::nullopt;
}

//! The message of the file_error that `call` throws (empty if none).
template <class Fn>
std::string file_error_of(Fn&& call) {
  try {
    call();
  } catch (const tools::file_error& e) {
    return e.what();
  }
  return "";
}

TEST(NpyHeader, IsNumpysByteForByte) {
  // np.save("a.npy", np.arange(3, dtype="<i4")) with numpy 2.4 writes exactly this header.
  const std::string dict = "{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }";
  const std::string expected = std::string("\x93NUMPY\x01\x00\x76\x00", 10) + dict +
                               std::string(128 - 10 - dict.size() - 1, ' ') + "\n";
  EXPECT_EQ(npy::make_header("i32", 3), expected);
  for (const std::uint64_t count : {0ull, 1ull, 123456789ull, 1ull << 40}) {
    const std::string header = npy::make_header("f64", count);
    EXPECT_EQ(header.size() % 64, 0u) << count;
    EXPECT_EQ(header.back(), '\n');
    const npy::array_header parsed = npy::parse_header(header, header.size() + count * 8);
    EXPECT_EQ(parsed.key_type, "f64");
    EXPECT_EQ(parsed.count, count);
    EXPECT_EQ(parsed.data_offset, header.size());
  }
}

// 2-D arrays (rows of keys): numpy's header for np.zeros((2, 3), "<f4"), read back with the row
// length; a column and rows of no keys too.
TEST(NpyHeader, TwoDimensionalArrays) {
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  const std::string expected = std::string("\x93NUMPY\x01\x00\x76\x00", 10) + dict +
                               std::string(128 - 10 - dict.size() - 1, ' ') + "\n";
  EXPECT_EQ(npy::make_header("f32", 6, 3), expected);
  for (const auto& [count, row_length] : {std::pair{6ull, 3ull}, std::pair{5ull, 1ull},
                                          std::pair{0ull, 0ull}, std::pair{0ull, 7ull}}) {
    const std::string header = npy::make_header("i32", count, row_length);
    const npy::array_header parsed = npy::parse_header(header, header.size() + count * 4);
    EXPECT_EQ(parsed.count, count);
    ASSERT_TRUE(parsed.row_length.has_value());
    EXPECT_EQ(*parsed.row_length, row_length);
  }
  EXPECT_FALSE(npy::parse_header(npy::make_header("i32", 6), npy::make_header("i32", 6).size() + 24)
                   .row_length.has_value());
}

TEST(NpyHeader, ReadsVersions1To3) {
  for (const unsigned major : {1u, 2u, 3u}) {
    const std::string file = npy::frame_header(valid_dict, major) + std::string(20, '\0');
    const npy::array_header parsed = npy::parse_header(file, file.size());
    EXPECT_EQ(parsed.count, 5u) << major;
    EXPECT_EQ(parsed.data_offset % 64, 0u) << major;
    EXPECT_EQ(
        npy::header_length(std::string_view(file).substr(0, npy::preamble_bytes), file.size()),
        parsed.data_offset);
  }
}

TEST(NpyHeader, AcceptsWhatNumpyAccepts) {
  const std::string_view dicts[] = {
      "{'shape': (5,), 'fortran_order': False, 'descr': '<i4'}",  // any order, no trailing comma
      R"({"descr":"<i4","fortran_order":False,"shape":(5,)})",    // double quotes, no spaces
      "{ 'descr' : '=i4' ,\n 'fortran_order' : False ,\t'shape' : ( 5 , ) , }",  // native order
      "{'descr': 'i4', 'fortran_order': False, 'shape': (5,)}",                  // no byte order
      "{'descr': '<i4', 'fortran_order': False, 'shape': (5L,), }",              // Python 2's long
  };
  for (const std::string_view dict : dicts) {
    const std::string file = npy_file(dict);
    const auto error = header_error(file);
    ASSERT_FALSE(error) << dict << ": " << *error;
    const npy::array_header parsed = npy::parse_header(file, file.size());
    EXPECT_EQ(parsed.key_type, "i32") << dict;
    EXPECT_EQ(parsed.count, 5u) << dict;
  }
}

TEST(NpyHeader, NeedsNoPaddingAsNumpysReader) {
  // numpy writes headers padded to 64 bytes and ending in '\n', but its reader requires neither.
  const std::string dict(valid_dict);
  const std::string file =
      std::string("\x93NUMPY\x01\x00", 8) + char(dict.size()) + '\0' + dict + std::string(20, '\0');
  const npy::array_header parsed = npy::parse_header(file, file.size());
  EXPECT_EQ(parsed.count, 5u);
  EXPECT_EQ(parsed.data_offset, 10 + dict.size());
}

TEST(NpyHeader, MapsEveryDtype) {
  const std::pair<std::string_view, std::string_view> dtypes[] = {
      {"<i4", "i32"}, {"<u4", "u32"}, {"<i8", "i64"}, {"<u8", "u64"},
      {"<f4", "f32"}, {"<f8", "f64"}, {"|i1", "i8"},  {"|u1", "u8"},
      {"<i2", "i16"}, {"<u2", "u16"}, {"<f2", "f16"}};
  for (const auto& [descr, key_type] : dtypes) {
    EXPECT_EQ(npy::descr_of(key_type), descr);
    const std::string file =
        npy_file("{'descr': '" + std::string(descr) + "', 'fortran_order': False, 'shape': (2,)}",
                 2 * (descr.back() - '0'));
    EXPECT_EQ(npy::parse_header(file, file.size()).key_type, key_type) << descr;
  }
  // One-byte dtypes with a byte order ('<i1', as some writers spell them) read the same; bfloat16
  // has no NumPy dtype: writing it is a format_error that says so.
  const std::string little = npy_file("{'descr': '<i1', 'fortran_order': False, 'shape': (2,)}", 2);
  EXPECT_EQ(npy::parse_header(little, little.size()).key_type, "i8");
  EXPECT_THROW(npy::descr_of("bf16"), npy::format_error);
}

struct bad_file {
  std::string_view what;
  std::string file;
  std::string_view message;  //!< a part of the error message
};

TEST(NpyHeader, RejectsMalformedAndUnsupportedFiles) {
  const auto with_dtype = [](std::string_view descr) {
    return npy_file("{'descr': '" + std::string(descr) +
                    "', 'fortran_order': False, 'shape': (5,)}");
  };
  const auto with_shape = [](std::string_view shape) {
    return npy_file("{'descr': '<i4', 'fortran_order': False, 'shape': " + std::string(shape) +
                    "}");
  };
  std::string wrong_magic = npy_file(valid_dict);
  wrong_magic[5] = 'Z';
  std::string version_4 = npy_file(valid_dict), version_1_1 = npy_file(valid_dict);
  version_4[6] = 4;
  version_1_1[7] = 1;
  const std::string huge_header = std::string("\x93NUMPY\x02\x00\xff\xff\xff\x7f", 12) + "{}";
  const std::string valid = npy_file(valid_dict);
  const std::string header = npy::frame_header(valid_dict, 1);

  const bad_file cases[] = {
      {"empty file", "", "truncated header"},
      {"shorter than the magic", "\x93NUM", "truncated header"},
      {"no length", std::string("\x93NUMPY\x01\x00\x76", 9), "truncated header"},
      {"header cut short", header.substr(0, 40), "truncated header"},
      {"wrong magic", wrong_magic, "not a .npy file"},
      {"text file", "descr,shape\n1,2\n", "not a .npy file"},
      {"version 4.0", version_4, "unsupported .npy format version 4.0"},
      {"version 1.1", version_1_1, "unsupported .npy format version 1.1"},
      {"huge header", huge_header, "longer than"},
      {"big-endian", with_dtype(">i4"), "big-endian"},
      {"'|' byte order", with_dtype("|i4"), "byte order '|'"},
      {"'|' byte order of 2 bytes", with_dtype("|i2"), "byte order '|'"},
      {"complex", with_dtype("<c8"), "unsupported dtype '<c8'"},
      {"bool", with_dtype("|b1"), "unsupported dtype"},
      {"float128", with_dtype("<f16"), "unsupported dtype"},
      {"dtype name", with_dtype("float32"), "unsupported dtype"},
      {"structured dtype",
       npy_file("{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (5,)}"), "structured"},
      {"Fortran order", npy_file("{'descr': '<i4', 'fortran_order': True, 'shape': (5,)}"),
       "fortran_order is True"},
      {"3-D", with_shape("(1, 1, 5)"), "shape (1, 1, 5) has 3 dimensions"},
      {"2-D of other keys", with_shape("(2, 3)"), "data size mismatch"},
      {"2-D past 64 bits", with_shape("(4294967296, 4294967296)"), "overflows 64 bits"},
      {"0-D", with_shape("()"), "0 dimensions"},
      {"not a tuple", with_shape("(5)"), "the shape (5) is not a tuple"},
      {"not a tuple at all", with_shape("5"), "expected '('"},
      {"leading zero", with_shape("(05,)"), "leading zeros"},
      {"lower-case long", with_shape("(5l,)"), "expected ','"},
      {"long in version 3.0",
       npy::frame_header("{'descr': '<i4', 'fortran_order': False, 'shape': (5L,)}", 3) +
           std::string(20, '\0'),
       "expected ','"},
      {"negative dimension", with_shape("(-5,)"), "expected a dimension"},
      {"huge dimension", with_shape("(123456789012345678901234567890,)"), "dimension too large"},
      {"missing shape", npy_file("{'descr': '<i4', 'fortran_order': False}"), "no 'shape' key"},
      {"missing descr", npy_file("{'fortran_order': False, 'shape': (5,)}"), "no 'descr' key"},
      {"unknown key",
       npy_file("{'descr': '<i4', 'fortran_order': False, 'shape': (5,), 'extra': 1}"),
       "unknown key 'extra'"},
      {"duplicate key",
       npy_file("{'descr': '<i4', 'descr': '<i4', 'fortran_order': False, 'shape': (5,)}"),
       "duplicate key 'descr'"},
      {"unterminated dict", npy_file("{'descr': '<i4', 'fortran_order': False"),
       "the dict ends early"},
      {"unterminated string", npy_file("{'descr': '<i4}"), "unterminated string"},
      {"unbalanced quotes", npy_file("{'descr: '<i4'}"), "expected ':'"},
      {"lower-case bool", npy_file("{'descr': '<i4', 'fortran_order': false, 'shape': (5,)}"),
       "expected True or False"},
      {"not a dict", npy_file("[1, 2, 3]"), "expected '{'"},
      {"text after the dict", npy_file(std::string(valid_dict) + " x"), "unexpected text"},
      {"missing comma", npy_file("{'descr': '<i4' 'fortran_order': False, 'shape': (5,)}"),
       "expected ','"},
      {"data short by a byte", valid.substr(0, valid.size() - 1), "data size mismatch"},
      {"data a key too long", valid + std::string(4, '\0'), "data size mismatch"},
      {"shape beyond any file", with_shape("(4611686018427387904,)"), "data size mismatch"},
  };
  for (const bad_file& c : cases) {
    const auto error = header_error(c.file);
    ASSERT_TRUE(error) << c.what << ": accepted";
    EXPECT_NE(error->find(c.message), std::string::npos)
        << c.what << ": \"" << *error << "\" does not say \"" << c.message << '"';
  }
}

template <class Key>
class ArrayFileRoundTrip : public ::testing::Test {};
TYPED_TEST_SUITE(ArrayFileRoundTrip, key_types, key_type_names);

TYPED_TEST(ArrayFileRoundTrip, KeepsEveryBitInBothFormats) {
  using Key = TypeParam;
  scratch_dir dir;
  for (const file_format format : {file_format::npy, file_format::raw}) {
    for (const std::size_t n : {0, 1, 1000}) {
      // NaNs of both signs, infinities and signed zeros for floats; extremes for integers.
      const std::vector<Key> keys = tools::generate<Key>(n, distribution::nan, n);
      const std::string path = dir / (format == file_format::npy ? "keys.npy" : "keys.bin");
      tools::output_file out(path);
      tools::write_keys<Key>(out, format, keys);
      out.commit();

      const std::string_view type_given = format == file_format::raw ? tools::type_name<Key>() : "";
      const tools::array_file file = tools::inspect_array_file(path, type_given);
      EXPECT_EQ(file.format, format);
      EXPECT_EQ(file.key_type, tools::type_name<Key>());
      ASSERT_EQ(file.count, n);
      EXPECT_EQ(file.data_offset, format == file_format::npy ? 128u : 0u);
      const tools::key_array<Key> read = tools::read_keys<Key>(file);
      for (std::size_t i = 0; i < n; ++i) {
        ASSERT_EQ(tools::key_bits(read.span()[i]), tools::key_bits(keys[i])) << "index " << i;
      }
    }
  }
  EXPECT_EQ(dir.names(), (std::set<std::string>{"keys.bin", "keys.npy"}));
}

TEST(ArrayFile, FormatFollowsTheExtension) {
  EXPECT_EQ(tools::format_of("a.npy"), file_format::npy);
  EXPECT_EQ(tools::format_of("dir/A.NPY"), file_format::npy);
  EXPECT_EQ(tools::format_of("a.bin"), file_format::raw);
  EXPECT_EQ(tools::format_of("npy"), file_format::raw);
  EXPECT_EQ(tools::format_of("a.npy.gz"), file_format::raw);
}

TEST(ArrayFile, NpyContentsAreNpyUnderAnyName) {
  scratch_dir dir;
  write_file(dir / "keys.bin", npy_file(valid_dict));
  const tools::array_file file = tools::inspect_array_file(dir / "keys.bin", "");
  EXPECT_EQ(file.format, file_format::npy);
  EXPECT_EQ(file.key_type, "i32");
  EXPECT_EQ(file.count, 5u);
  write_file(dir / "raw.bin", std::string(8, '\0'));
  EXPECT_THROW(tools::inspect_array_file(dir / "raw.bin", ""), tools::key_type_missing);
  EXPECT_EQ(tools::inspect_array_file(dir / "raw.bin", "u64").format, file_format::raw);
  write_file(dir / "empty.bin", "");
  EXPECT_EQ(tools::inspect_array_file(dir / "empty.bin", "u32").count, 0u);
}

TEST(ArrayFile, ErrorsNameTheFileAndTheProblem) {
  scratch_dir dir;
  const std::string raw = dir / "odd.bin", npy = dir / "keys.npy", bad = dir / "bad.npy";
  write_file(raw, std::string(1001, '\0'));
  write_file(npy, npy_file(valid_dict));
  write_file(bad, npy_file("{'descr': '>i4', 'fortran_order': False, 'shape': (5,)}"));
  const auto inspect = [](const std::string& path, std::string_view type) {
    return file_error_of([&] { tools::inspect_array_file(path, type); });
  };
  EXPECT_EQ(inspect(dir / "missing.npy", ""),
            dir / "missing.npy" + ": cannot open it: No such file or directory");
  EXPECT_EQ(inspect(dir / ".", "i32"), dir / "." + ": is a directory");
  EXPECT_EQ(inspect(raw, "i32"),
            raw + ": its 1001 bytes are not a whole number of 4-byte i32 keys");
  EXPECT_NE(inspect(raw, "u64").find("8-byte u64 keys"), std::string::npos);
  EXPECT_EQ(inspect(npy, "f32"), npy + ": holds i32 keys (dtype '<i4'), not f32");
  EXPECT_EQ(inspect(bad, "").rfind(bad + ": dtype '>i4' is big-endian", 0), 0u);
  EXPECT_EQ(inspect(npy, "i32"), "");
  if (::geteuid() != 0) {  // root reads anything
    ::chmod(npy.c_str(), 0);
    EXPECT_EQ(inspect(npy, ""), npy + ": cannot open it: Permission denied");
  }
}

TEST(OutputFile, LeavesNothingBehindWithoutCommit) {
  scratch_dir dir;
  const std::string existing = dir / "existing.npy";
  write_file(existing, "old");
  {
    tools::output_file out(existing);
    out.write("new", 3);
    EXPECT_EQ(dir.names().size(), 2u);  // the destination and the temporary file beside it
  }
  {
    tools::output_file out(dir / "new.npy");
    out.write("new", 3);
  }
  EXPECT_EQ(dir.names(), std::set<std::string>{"existing.npy"});
  EXPECT_EQ(read_file(existing), "old");
}

TEST(OutputFile, CommitReplacesTheDestinationAndKeepsItsMode) {
  scratch_dir dir;
  const std::string existing = dir / "existing.bin", fresh = dir / "fresh.bin";
  write_file(existing, "old contents");
  ::chmod(existing.c_str(), 0640);
  for (const std::string& path : {existing, fresh}) {
    tools::output_file out(path);
    out.write("new", 3);
    out.commit();
    EXPECT_EQ(read_file(path), "new");
  }
  EXPECT_EQ(dir.names(), (std::set<std::string>{"existing.bin", "fresh.bin"}));
  const mode_t umask = ::umask(0);
  ::umask(umask);
  struct stat st {};
  ASSERT_EQ(::stat(existing.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
  ASSERT_EQ(::stat(fresh.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0666u & ~umask);
}

TEST(OutputFile, ReportsFailedWritesAndLeavesNothingBehind) {
  // A file size limit fails writes as a full disk does (EFBIG instead of ENOSPC), for this
  // process only and only around the writes; SIGXFSZ ignored so that the write call reports it.
  scratch_dir dir;
  const std::string path = dir / "out.bin";
  const std::string keys(8192, 'k');
  std::string message;
  struct rlimit saved {};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
  const auto saved_handler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = saved;
  small.rlim_cur = 4096;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  message = file_error_of([&] {
    tools::output_file out(path);
    out.write(keys.data(), keys.size());
    out.commit();
  });
  const std::string reserve_message =
      file_error_of([&] { tools::output_file(path).reserve(8192); });
  ::setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, saved_handler);
  EXPECT_EQ(message, path + ": write failed: File too large");
  if (!reserve_message.empty()) {  // empty where the file system cannot reserve space
    EXPECT_EQ(reserve_message, path + ": cannot reserve 8192 bytes: File too large");
  }
  EXPECT_TRUE(dir.names().empty());
}

TEST(OutputFile, RefusesDestinationsItCannotReplace) {
  scratch_dir dir;
  EXPECT_EQ(file_error_of([&] { tools::output_file out(dir / "no-such-dir/out.npy"); }),
            dir / "no-such-dir/out.npy" + ": cannot create a file in directory '" +
                dir / "no-such-dir" + "': No such file or directory");
  EXPECT_EQ(file_error_of([&] { tools::output_file out(dir / "."); }),
            dir / "." + ": exists and is not a regular file (not replacing it)");
  EXPECT_TRUE(dir.names().empty());
}

}  // namespace
}  // namespace bitonic::test
