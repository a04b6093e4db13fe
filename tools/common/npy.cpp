#include "npy.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstdio>
#include <limits>
#include <optional>
#include <vector>

namespace bitonic::tools::npy {
namespace {

static_assert(std::endian::native == std::endian::little,
              "keys are copied between files and memory as they are: little-endian hosts only");

constexpr std::string_view magic = "\x93NUMPY";
constexpr std::uint64_t alignment = 64;  // numpy pads headers so that the data is 64-byte aligned
constexpr std::string_view supported_dtypes = "<i4 <u4 <i8 <u8 <f4 <f8 |i1 |u1 <i2 <u2 <f2";

struct dtype {
  std::string_view key_type;  //!< tools::type_name's spelling
  std::string_view code;      //!< numpy's, without the byte order
  std::uint64_t bytes;
};
constexpr dtype dtypes[] = {{"i32", "i4", 4}, {"u32", "u4", 4}, {"i64", "i8", 8}, {"u64", "u8", 8},
                            {"f32", "f4", 4}, {"f64", "f8", 8}, {"i8", "i1", 1},  {"u8", "u1", 1},
                            {"i16", "i2", 2}, {"u16", "u2", 2}, {"f16", "f2", 2}};

//! `text` fit for an error message: at most 100 characters, unprintable bytes as \xNN.
std::string printable(std::string_view text) {
  std::string out;
  for (const char c : text.substr(0, 100)) {
    if (c >= 0x20 && c < 0x7f) {
      out += c;
    } else {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", static_cast<unsigned char>(c));
      out += escaped;
    }
  }
  return text.size() > 100 ? out + "..." : out;
}

std::string_view trim_padding(std::string_view text) {
  return text.substr(0, text.find_last_not_of(" \n") + 1);
}

//! Where the dict begins and the whole header ends, from the preamble.
struct preamble {
  unsigned major = 0;  //!< the format version's
  std::uint64_t dict_offset = 0;
  std::uint64_t header_end = 0;
};

preamble read_preamble(std::string_view start, std::uint64_t file_size) {
  const auto truncated = [&](std::uint64_t needed) {
    return format_error("truncated header: the file has " + std::to_string(file_size) +
                        " bytes, its header needs " + std::to_string(needed));
  };
  if (!start.starts_with(magic)) {
    if (magic.starts_with(start)) throw truncated(magic.size() + 4);
    throw format_error("not a .npy file: it does not begin with the magic string \\x93NUMPY");
  }
  if (start.size() < magic.size() + 2) throw truncated(magic.size() + 4);
  const unsigned major = static_cast<unsigned char>(start[magic.size()]);
  const unsigned minor = static_cast<unsigned char>(start[magic.size() + 1]);
  if (major < 1 || major > 3 || minor != 0) {
    throw format_error("unsupported .npy format version " + std::to_string(major) + "." +
                       std::to_string(minor) + " (supported: 1.0, 2.0, 3.0)");
  }
  const std::size_t length_bytes = major == 1 ? 2 : 4;
  preamble p;
  p.major = major;
  p.dict_offset = magic.size() + 2 + length_bytes;
  if (start.size() < p.dict_offset) throw truncated(p.dict_offset);
  std::uint64_t length = 0;
  for (std::size_t i = 0; i < length_bytes; ++i) {
    length |= std::uint64_t{static_cast<unsigned char>(start[magic.size() + 2 + i])} << (8 * i);
  }
  if (length > max_header_bytes) {
    throw format_error("header of " + std::to_string(length) + " bytes: longer than the " +
                       std::to_string(max_header_bytes) + " this reader accepts");
  }
  p.header_end = p.dict_offset + length;
  if (p.header_end > file_size) throw truncated(p.header_end);
  return p;
}

//! The fields of the header dict, as written.
struct header_fields {
  std::string_view descr;
  bool fortran_order = false;
  std::vector<std::uint64_t> shape;
};

std::string format_shape(const std::vector<std::uint64_t>& shape) {
  std::string text = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    text += (i ? ", " : "") + std::to_string(shape[i]);
  }
  return text + (shape.size() == 1 ? ",)" : ")");
}

//! Reads the Python dict literal of a header: string keys, and the three kinds of values numpy
//! writes (a string, True/False, a tuple of integers).
class dict_reader {
 public:
  //! `python2_longs`: dimensions may end in "L" (numpy reads it in versions 1.0 and 2.0, which
  //! Python 2 wrote).
  dict_reader(std::string_view text, bool python2_longs)
      : text_(text), python2_longs_(python2_longs) {}

  header_fields read() {
    std::optional<std::string_view> descr;
    std::optional<bool> fortran_order;
    std::optional<std::vector<std::uint64_t>> shape;
    expect('{');
    while (!accept('}')) {
      const std::string_view key = string_literal();
      expect(':');
      if (key == "descr") {
        if (descr) fail("duplicate key 'descr'");
        if (accept('[')) throw format_error("unsupported structured dtype (a list of fields)");
        descr = string_literal();
      } else if (key == "fortran_order") {
        if (fortran_order) fail("duplicate key 'fortran_order'");
        fortran_order = boolean();
      } else if (key == "shape") {
        if (shape) fail("duplicate key 'shape'");
        shape = tuple();
      } else {
        fail("unknown key '" + printable(key) + "'");
      }
      if (accept('}')) break;
      expect(',');
    }
    skip_space();
    if (pos_ != text_.size()) fail("unexpected text after the dict");
    for (const auto& [present, name] : {std::pair{descr.has_value(), "descr"},
                                        {fortran_order.has_value(), "fortran_order"},
                                        {shape.has_value(), "shape"}}) {
      if (!present) fail(std::string("no '") + name + "' key");
    }
    return {*descr, *fortran_order, *shape};
  }

 private:
  std::string_view text_;
  bool python2_longs_;
  std::size_t pos_ = 0;

  [[noreturn]] void fail(const std::string& what) const {
    throw format_error("malformed header: " + what + " (at offset " + std::to_string(pos_) +
                       " of the dict \"" + printable(trim_padding(text_)) + "\")");
  }

  void skip_space() {
    while (pos_ < text_.size() && std::string_view(" \t\r\n").find(text_[pos_]) != text_.npos) {
      ++pos_;
    }
  }

  bool accept(char c) {
    skip_space();
    if (pos_ == text_.size() || text_[pos_] != c) return false;
    ++pos_;
    return true;
  }

  void expect(char c) {
    if (!accept(c))
      fail(pos_ == text_.size() ? "the dict ends early" : std::string("expected '") + c + "'");
  }

  std::string_view string_literal() {
    skip_space();
    if (pos_ == text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) {
      fail("expected a quoted string");
    }
    const char quote = text_[pos_];
    const std::size_t end = text_.find(quote, pos_ + 1);
    if (end == text_.npos) fail("unterminated string");
    const std::string_view value = text_.substr(pos_ + 1, end - pos_ - 1);
    if (value.find('\\') != value.npos) fail("escapes in strings are not supported");
    pos_ = end + 1;
    return value;
  }

  bool boolean() {
    skip_space();
    for (const auto& [word, value] :
         {std::pair{std::string_view("True"), true}, {"False", false}}) {
      if (text_.substr(pos_).starts_with(word)) {
        pos_ += word.size();
        return value;
      }
    }
    fail("expected True or False");
  }

  //! A Python tuple of integers: "(2, 3)", "(5,)", "()". "(5)" is the integer 5 in Python, not a
  //! tuple, and numpy's reader refuses it; so do leading zeros ("05" is no Python integer).
  std::vector<std::uint64_t> tuple() {
    std::vector<std::uint64_t> items;
    expect('(');
    const std::size_t start = pos_ - 1;
    bool trailing_comma = false;
    while (!accept(')')) {
      skip_space();
      std::uint64_t value = 0;
      const char* first = text_.data() + pos_;
      const auto [end, ec] = std::from_chars(first, text_.data() + text_.size(), value);
      if (ec == std::errc::result_out_of_range) fail("dimension too large");
      if (ec != std::errc{}) fail("expected a dimension (a non-negative integer)");
      const std::string_view digits(first, static_cast<std::size_t>(end - first));
      if (digits.size() > 1 && digits.front() == '0' && value != 0) {
        fail("leading zeros in the dimension " + std::string(digits) + " (not a Python integer)");
      }
      pos_ += digits.size();
      if (python2_longs_ && pos_ < text_.size() && text_[pos_] == 'L') ++pos_;
      items.push_back(value);
      trailing_comma = false;
      if (accept(')')) break;
      expect(',');
      trailing_comma = true;
    }
    if (items.size() == 1 && !trailing_comma) {
      const std::string shape(text_.substr(start, pos_ - start));
      fail("the shape " + shape + " is not a tuple; a 1-D shape is written (" +
           std::to_string(items[0]) + ",)");
    }
    return items;
  }
};

const dtype& parse_descr(std::string_view descr) {
  std::string_view code = descr;
  char byte_order = '=';  // no byte order character: numpy reads the code as native
  if (!code.empty() && std::string_view("<>=|").find(code.front()) != code.npos) {
    byte_order = code.front();
    code.remove_prefix(1);
  }
  const auto match = std::find_if(std::begin(dtypes), std::end(dtypes),
                                  [&](const dtype& d) { return d.code == code; });
  const std::string quoted = "dtype '" + printable(descr) + "'";
  if (match == std::end(dtypes)) {
    throw format_error("unsupported " + quoted + " (supported: " + std::string(supported_dtypes) +
                       ")");
  }
  if (byte_order == '>') {
    throw format_error(quoted +
                       " is big-endian; only little-endian arrays are supported (numpy: "
                       "a.astype('<" +
                       std::string(code) + "'))");
  }
  if (byte_order == '|' && match->bytes != 1) {
    throw format_error(quoted + ": byte order '|' (not applicable) is invalid for " +
                       std::to_string(match->bytes) + "-byte keys; expected '<" +
                       std::string(code) + "'");
  }
  return *match;
}

}  // namespace

bool has_magic(std::string_view start) {
  return start.starts_with(magic);
}

std::uint64_t header_length(std::string_view start, std::uint64_t file_size) {
  return read_preamble(start, file_size).header_end;
}

array_header parse_header(std::string_view header, std::uint64_t file_size) {
  const preamble p = read_preamble(header.substr(0, preamble_bytes), file_size);
  if (header.size() < p.header_end) {
    throw format_error("truncated header: " + std::to_string(header.size()) + " of its " +
                       std::to_string(p.header_end) + " bytes");
  }
  const header_fields fields =
      dict_reader(header.substr(p.dict_offset, p.header_end - p.dict_offset), p.major <= 2).read();
  const dtype& type = parse_descr(fields.descr);
  if (fields.fortran_order) {
    throw format_error("fortran_order is True: only C-order arrays are supported");
  }
  if (fields.shape.size() != 1 && fields.shape.size() != 2) {
    throw format_error("shape " + format_shape(fields.shape) + " has " +
                       std::to_string(fields.shape.size()) +
                       " dimensions: only 1-D and 2-D arrays are supported (numpy: a.ravel())");
  }
  std::optional<std::uint64_t> row_length;
  std::uint64_t count = fields.shape[0];
  if (fields.shape.size() == 2) {
    row_length = fields.shape[1];
    if (*row_length != 0 && count > std::numeric_limits<std::uint64_t>::max() / *row_length) {
      throw format_error("shape " + format_shape(fields.shape) + " overflows 64 bits");
    }
    count *= *row_length;
  }
  const std::uint64_t data_bytes = file_size - p.header_end;
  if (count > data_bytes / type.bytes || count * type.bytes != data_bytes) {
    throw format_error("data size mismatch: shape " + format_shape(fields.shape) + " of dtype '" +
                       printable(fields.descr) + "' needs " + std::to_string(count) + " x " +
                       std::to_string(type.bytes) + " bytes, the file holds " +
                       std::to_string(data_bytes) + " bytes after its header");
  }
  return {type.key_type, count, row_length, p.header_end};
}

std::string frame_header(std::string_view dict, unsigned major) {
  const std::size_t length_bytes = major == 1 ? 2 : 4;
  const std::size_t dict_offset = magic.size() + 2 + length_bytes;
  const std::size_t header_end =
      (dict_offset + dict.size() + 1 + alignment - 1) / alignment * alignment;
  const std::size_t length = header_end - dict_offset;
  if (length_bytes == 2 && length > 0xffff) {
    throw std::length_error("npy::frame_header: dict too long for version 1.0");
  }
  std::string header(magic);
  header += static_cast<char>(major);
  header += '\0';
  for (std::size_t i = 0; i < length_bytes; ++i) {
    header += static_cast<char>((length >> (8 * i)) & 0xff);
  }
  header += dict;
  header.append(header_end - header.size() - 1, ' ');
  return header + '\n';
}

std::string make_header(std::string_view key_type, std::uint64_t count,
                        std::optional<std::uint64_t> row_length) {
  std::string shape = std::to_string(count) + ",";
  if (row_length) {
    const std::uint64_t rows = *row_length == 0 ? 0 : count / *row_length;
    shape = std::to_string(rows) + ", " + std::to_string(*row_length);
  }
  return frame_header(
      "{'descr': '" + descr_of(key_type) + "', 'fortran_order': False, 'shape': (" + shape + "), }",
      1);
}

std::string descr_of(std::string_view key_type) {
  for (const dtype& d : dtypes) {
    if (d.key_type == key_type) return std::string(d.bytes == 1 ? "|" : "<").append(d.code);
  }
  if (key_type == "bf16") {
    throw format_error("bf16 keys have no NumPy dtype (NumPy has no bfloat16): use a raw file");
  }
  throw std::invalid_argument("npy::descr_of: unknown key type '" + std::string(key_type) + "'");
}

}  // namespace bitonic::tools::npy
