#include "args.hpp"

#include <charconv>

namespace bitonic::cli {

std::vector<std::string_view> parse_options(std::span<const std::string_view> args,
                                            std::span<const option> options,
                                            std::size_t max_positional) {
  std::vector<std::string_view> positional;
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
  unsigned shift = 0;
  if (!text.empty()) {
    switch (text.back()) {
      case 'K':
        shift = 10;
        break;
      case 'M':
        shift = 20;
        break;
      case 'G':
        shift = 30;
        break;
      default:
        break;
    }
  }
  if (shift != 0) text.remove_suffix(1);
  return parse_uint(option, text, 1, UINT64_MAX >> shift) << shift;
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
