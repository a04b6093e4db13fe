// A tiny command-line option parser: every command lists the options it accepts, anything else is
// a usage error. Options are "--name VALUE", "--name=VALUE" or flags; "--help" anywhere asks for
// the usage text. An option may be given once (unless it is a list that may repeat), and a VALUE
// after a space may not begin with '-': "--out --desc" is a missing value, not a file "--desc"
// ("--out=--desc" names that file).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace bitonic::cli {

//! A bad command line: main prints the message and the usage on stderr and exits with 2.
class usage_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

//! "--help" or "-h" was given: main prints the usage on stdout and exits with 0.
struct help_requested {};

struct option {
  std::string_view name;  //!< with the dashes: "--runs"
  //! Called with the option's value (empty for a flag); throws usage_error on a bad value.
  std::function<void(std::string_view value)> apply;
  bool takes_value = true;
  bool repeatable = false;  //!< a list that each use extends ("--algo a --algo b")
};

//! Applies `args` to `options` in order and returns the positional arguments. Throws
//! usage_error on an unknown option, a missing value, an option given twice that may not repeat,
//! or more than `max_positional` positionals.
std::vector<std::string_view> parse_options(std::span<const std::string_view> args,
                                            std::span<const option> options,
                                            std::size_t max_positional = 0);

//! `text` as an unsigned integer in [min, max]; usage_error naming `option` otherwise.
std::uint64_t parse_uint(std::string_view option, std::string_view text, std::uint64_t min,
                         std::uint64_t max);

//! `text` as a byte count: a number with an optional unit K, M, G or T, powers of 1024, optionally
//! written KiB ... TiB; with a unit, a fraction too ("1.5G": 1610612736 bytes, rounded down to
//! whole bytes). At least 1 byte.
std::uint64_t parse_bytes(std::string_view option, std::string_view text);

//! "A:B" or "A": an inclusive range of log2 sizes within [0, max].
struct log2_range {
  unsigned first = 0, last = 0;
};
log2_range parse_log2_range(std::string_view option, std::string_view text, unsigned max);

//! The items of a comma list ("a,b,c"); usage_error on an empty item.
std::vector<std::string_view> split_list(std::string_view option, std::string_view text);

}  // namespace bitonic::cli
