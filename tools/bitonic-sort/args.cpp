#include "args.hpp"

#include <cctype>
#include <charconv>

namespace bitonic::cli {

std::vector<std::string_view> parse_options(std::span<const std::string_view> args,
                                            std::span<const option> options,
                                            std::size_t max_positional) {
  std::vector<std::string_view> positional;
  std::vector<bool> given(options.size(), false);
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view arg = args[i];
    if (arg == "--help" || arg == "-h") throw help_requested{};
    if (!arg.starts_with("-") || arg == "-") {  // "-" names stdin/stdout for later commands
      if (positional.size() == max_positional) {
        throw usage_error("unexpected argument '" + std::string(arg) + "'");
      }
      positional.push_back(arg);
      continue;
    }
    const std::size_t eq = arg.find('=');
    const std::string_view name = arg.substr(0, eq);
    const option* match = nullptr;
    for (const option& o : options) {
      if (o.name == name) match = &o;
    }
    if (match == nullptr) throw usage_error("unknown option '" + std::string(name) + "'");
    // The last of two values silently winning hides a mistake in a long command line.
    if (given[match - options.data()] && !match->repeatable) {
      throw usage_error(std::string(name) + " given twice");
    }
    given[match - options.data()] = true;
    if (!match->takes_value) {
      if (eq != std::string_view::npos) {
        throw usage_error(std::string(name) + " takes no value");
      }
      match->apply({});
    } else if (eq != std::string_view::npos) {
      match->apply(arg.substr(eq + 1));
    } else if (i + 1 < args.size()) {
      const std::string_view value = args[++i];
      if (value.size() > 1 && value.starts_with("-")) {  // "--out --desc": the value was forgotten
        throw usage_error(std::string(name) + " needs a value, not the option '" +
                          std::string(value) + "' (for a value that begins with '-', write " +
                          std::string(name) + "=VALUE)");
      }
      match->apply(value);
    } else {
      throw usage_error(std::string(name) + " needs a value");
    }
  }
  return positional;
}

std::uint64_t parse_uint(std::string_view option, std::string_view text, std::uint64_t min,
                         std::uint64_t max) {
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || value < min || value > max) {
    throw usage_error(std::string(option) + ": '" + std::string(text) +
                      "' is not a whole number in " + std::to_string(min) + ".." +
                      std::to_string(max));
  }
  return value;
}

std::uint64_t parse_bytes(std::string_view option, std::string_view text) {
  const auto refuse = [&](std::string_view why) {
    throw usage_error(std::string(option) + ": '" + std::string(text) + "' " + std::string(why));
  };
  const auto digits_only = [](std::string_view s) {
    return s.find_first_not_of("0123456789") == std::string_view::npos;
  };
  std::string_view number = text;
  unsigned shift = 0;
  const bool binary_suffix = number.ends_with("iB");  // "GiB": the same as "G"
  if (binary_suffix) number.remove_suffix(2);
  constexpr std::string_view units = "KMGT";
  const std::size_t unit =
      number.empty() ? units.npos : units.find(static_cast<char>(std::toupper(number.back())));
  if (unit != units.npos) {
    shift = 10 * static_cast<unsigned>(unit + 1);
    number.remove_suffix(1);
  }
  const std::size_t dot = number.find('.');
  const std::string_view whole = number.substr(0, dot);
  const std::string_view fraction = dot == number.npos ? "" : number.substr(dot + 1);
  if ((binary_suffix && shift == 0) || !digits_only(whole) || !digits_only(fraction) ||
      (whole.empty() && fraction.empty())) {
    refuse(
        "is not a number of bytes with an optional unit K, M, G or T (powers of 1024: 1.5G is "
        "1610612736 bytes)");
  }
  if (!fraction.empty() && shift == 0) refuse("is not a whole number of bytes");

  const auto too_large = [&] { refuse("is more than 2^64 - 1 bytes"); };
  std::uint64_t value = 0;
  if (!whole.empty() &&
      std::from_chars(whole.data(), whole.data() + whole.size(), value).ec != std::errc{}) {
    too_large();
  }
  if (value > (UINT64_MAX >> shift)) too_large();
  value <<= shift;
  // fraction * 2^shift, rounded down, one binary digit at a time (exact, no overflow).
  const std::string_view kept = fraction.substr(0, 18);  // 10^18 < 2^63; further digits: < 1 byte
  std::uint64_t numerator = 0, denominator = 1;
  for (const char c : kept) {
    numerator = numerator * 10 + static_cast<std::uint64_t>(c - '0');
    denominator *= 10;
  }
  std::uint64_t part = 0;
  for (unsigned bit = 0; bit < shift; ++bit) {
    numerator *= 2;
    part = part * 2 + (numerator >= denominator ? 1 : 0);
    if (numerator >= denominator) numerator -= denominator;
  }
  if (value > UINT64_MAX - part) too_large();
  value += part;
  if (value == 0) refuse("is less than 1 byte");
  return value;
}

log2_range parse_log2_range(std::string_view option, std::string_view text, unsigned max) {
  const std::size_t colon = text.find(':');
  log2_range range;
  range.first = unsigned(parse_uint(option, text.substr(0, colon), 0, max));
  range.last = colon == std::string_view::npos
                   ? range.first
                   : unsigned(parse_uint(option, text.substr(colon + 1), 0, max));
  if (range.last < range.first) {
    throw usage_error(std::string(option) + ": '" + std::string(text) + "' is an empty range");
  }
  return range;
}

std::vector<std::string_view> split_list(std::string_view option, std::string_view text) {
  std::vector<std::string_view> items;
  while (true) {
    const std::size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    if (item.empty()) throw usage_error(std::string(option) + ": empty item in a comma list");
    items.push_back(item);
    if (comma == std::string_view::npos) return items;
    text.remove_prefix(comma + 1);
  }
}

}  // namespace bitonic::cli
