// The file commands' shared option checks and input opening (file_options.hpp).
#include "file_options.hpp"

#include <cstdio>

#include "args.hpp"
#include "bench/keys.hpp"

namespace bitonic::cli {

std::string_view parse_key_type(std::string_view name) {
  if (!tools::with_any_key_type(name, [](auto) {})) {
    throw usage_error("--type: unknown key type '" + std::string(name) +
                      "' (i32 u32 i64 u64 f32 f64 i8 u8 i16 u16 f16 bf16)");
  }
  return name;
}

std::string_view parse_value_type(std::string_view name) {
  if (!tools::with_key_type(name, [](auto) {})) {
    throw usage_error("--values-type: '" + std::string(name) +
                      "' is not a type of 4 or 8 bytes (i32 u32 i64 u64 f32 f64)");
  }
  return name;
}

tools::distribution parse_distribution_name(std::string_view name) {
  const auto d = tools::parse_distribution(name);
  if (!d) throw usage_error("--dist: unknown distribution '" + std::string(name) + "'");
  return *d;
}

std::string_view parse_index_type(std::string_view name) {
  if (name != "u32" && name != "u64") {
    throw usage_error("--index: '" + std::string(name) + "' is not u32 or u64");
  }
  return name;
}

void require(const std::string& value, std::string_view option) {
  if (value.empty()) throw usage_error(std::string(option) + " FILE is required");
}

tools::array_file open_input(const std::string& path, std::string_view key_type,
                             bool rows_allowed) {
  tools::array_file file;
  try {
    file = tools::inspect_array_file(path, key_type);
  } catch (const tools::key_type_missing&) {
    throw usage_error("--type is required for the raw file '" + path +
                      "' (only .npy files name their key type)");
  }
  if (file.row_length && !rows_allowed) {
    throw usage_error(path + ": a 2-D array (rows of " + std::to_string(*file.row_length) +
                      " keys): sort --rows " + std::to_string(*file.row_length) +
                      " sorts each row and topk takes rows; this command takes 1-D arrays (numpy: "
                      "a.ravel())");
  }
  if (file.format != tools::format_of(path)) {  // a .npy file under another name
    std::fprintf(stderr,
                 "bitonic-sort: note: %s: begins with the .npy magic string: read as a .npy file "
                 "of %llu %s keys, not as raw keys\n",
                 path.c_str(), static_cast<unsigned long long>(file.count), file.key_type.data());
  }
  return file;
}

}  // namespace bitonic::cli
