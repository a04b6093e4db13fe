// The NumPy .npy format, as far as the CLI needs it: 1-D and 2-D (rows of keys), C-order,
// little-endian arrays of the library's key types (dtypes <i4 <u4 <i8 <u8 <f4 <f8). Pure parsing
// and formatting of headers; reading and writing files is array_file.hpp's job. Not part of the
// library.
//
// A file is the magic "\x93NUMPY", a version (major, minor byte), the header's length (2 bytes
// little-endian in version 1.0, 4 bytes in 2.0 and 3.0), then the header: a Python dict literal
// such as {'descr': '<i4', 'fortran_order': False, 'shape': (10,), } padded with spaces and a
// final '\n', then the array's bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace bitonic::tools::npy {

//! A malformed or unsupported .npy header; the message says what is wrong (not which file).
class format_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

//! Enough leading bytes of a file for header_length (magic, version and length of any version).
inline constexpr std::size_t preamble_bytes = 12;

//! Headers longer than this are refused before they are read (numpy's own limit is 10,000 bytes).
inline constexpr std::uint64_t max_header_bytes = std::uint64_t{1} << 20;

//! What a header says about the array that follows it.
struct array_header {
  std::string_view key_type;  //!< "i32", ..., as tools::type_name spells it
  std::uint64_t count = 0;    //!< the keys in the file
  //! 2-D arrays (shape (rows, row_length)): the keys of a row; empty for 1-D arrays.
  std::optional<std::uint64_t> row_length;
  std::uint64_t data_offset = 0;  //!< where the first key begins: the length of the whole header
};

//! The length of the whole header (preamble, dict and padding) of a file of `file_size` bytes that
//! begins with `start` (its first preamble_bytes bytes, or all of a shorter file). Throws
//! format_error on a wrong magic string, an unknown version or a header that the file cannot hold.
std::uint64_t header_length(std::string_view start, std::uint64_t file_size);

//! Whether a file that begins with `start` is a .npy file by its first bytes (the magic string).
bool has_magic(std::string_view start);

//! Parses a whole header (header_length bytes from the start of a file of `file_size` bytes) and
//! checks that the data after it holds exactly the keys of its shape. As strict as NumPy's reader
//! (numpy.lib.format.read_array_header): a dict of exactly the keys descr, fortran_order and
//! shape, in any order, with any whitespace and an optional trailing comma; the shape a tuple of
//! integers ("(N,)", not "(N)"), with Python 2's long suffix "L" in versions 1.0 and 2.0 only;
//! padding and the final '\n' are not required (numpy writes them; its reader does not ask).
//! Throws format_error on anything else, and on what the CLI does not support: big-endian or
//! other dtypes, Fortran order, shapes of other than one or two dimensions.
array_header parse_header(std::string_view header, std::uint64_t file_size);

//! The header of an array of `count` keys of `key_type` ("i32", ...) as numpy writes it: version
//! 1.0, padded so that the data starts at a multiple of 64 bytes. 1-D without `row_length`, else
//! 2-D of shape (count / row_length, row_length) (count must be a multiple of it; (0, 0) for 0).
std::string make_header(std::string_view key_type, std::uint64_t count,
                        std::optional<std::uint64_t> row_length = std::nullopt);

//! `dict` framed as a header of version `major`.0: magic, version, length, `dict`, then spaces and
//! a '\n' up to a multiple of 64 bytes. make_header's framing; the tests build odd headers with it.
std::string frame_header(std::string_view dict, unsigned major);

//! The dtype string numpy writes for a key type: "<i4" for "i32", ...
std::string descr_of(std::string_view key_type);

}  // namespace bitonic::tools::npy
