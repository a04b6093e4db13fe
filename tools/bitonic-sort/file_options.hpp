// What the file commands (sort, gen, verify, argsort) share: their options' checks (--dist also
// bench's), the opening of an input file, and the clock of their timing lines.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "bench/keys.hpp"
#include "bitonic/bitonic.hpp"
#include "tools/common/array_file.hpp"

namespace bitonic::cli {

using clock = std::chrono::steady_clock;

inline double seconds_since(clock::time_point start) {
  return std::chrono::duration<double>(clock::now() - start).count();
}

//! `name` if it is a key type (i32 u32 i64 u64 f32 f64 i8 u8 i16 u16 f16 bf16); usage_error for
//! --type otherwise.
std::string_view parse_key_type(std::string_view name);

//! `name` if it is a type of values (the 4- and 8-byte key types); usage_error for --values-type
//! otherwise.
std::string_view parse_value_type(std::string_view name);

//! The distribution `name` names (uniform sorted reverse organ equal few nan unit); usage_error for
//! --dist otherwise.
tools::distribution parse_distribution_name(std::string_view name);

//! `name` if it is an index type of argsort and topk (u32 u64); usage_error for --index otherwise.
std::string_view parse_index_type(std::string_view name);

//! Calls fn(std::uint32_t{}) for the index type "u32", fn(std::uint64_t{}) otherwise ("u64").
template <class Fn>
void with_index_type(std::string_view index_type, Fn&& fn) {
  if (index_type == "u32") {
    fn(std::uint32_t{});
  } else {
    fn(std::uint64_t{});
  }
}

//! usage_error "OPTION FILE is required" when `value` is empty.
void require(const std::string& value, std::string_view option);

//! The checked input file; raw files need the key type from --type. Opened first, so that a
//! missing file or a directory is named as such rather than asked a key type. 2-D .npy arrays
//! only where `rows_allowed` (sort --rows, topk); elsewhere a usage_error says what takes them.
tools::array_file open_input(const std::string& path, std::string_view key_type,
                             bool rows_allowed = false);

constexpr std::string_view to_string(order direction) {
  return direction == order::ascending ? "ascending" : "descending";
}

}  // namespace bitonic::cli
