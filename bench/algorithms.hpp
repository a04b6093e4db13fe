// The algorithms the benchmark knows by name: the library's variants and the peers it is measured
// against. Names are those of the CSV and of --algo.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "bitonic/bitonic.hpp"

namespace bitonic::bench {

enum class algorithm_kind {
  variant,    //!< bitonic::sort with one bitonic::algorithm (records: sort_pairs or argsort)
  gpu_peer,   //!< CUB radix, CUB merge, Thrust
  cpu_peer,   //!< std::sort, qsort on the host (records: std::stable_sort)
  host_sort,  //!< bitonic::sort_host: pageable host keys in and out, timed on the host clock
};

//! What the benchmark sorts: keys alone (none), or records (bench --values): key-value pairs with
//! uint32 or uint64 values, or an argsort producing uint32 indices (argsort) or uint64 ones
//! (argsort64: what torch.argsort returns, and Python's bitonic.argsort by default).
enum class value_mode { none, u32, u64, argsort, argsort64 };

//! As the CSV's value_type column and --values spell them.
constexpr std::string_view to_string(value_mode mode) {
  constexpr std::string_view names[] = {"none", "u32", "u64", "argsort", "argsort64"};
  return names[static_cast<int>(mode)];
}

constexpr bool is_argsort(value_mode mode) {
  return mode == value_mode::argsort || mode == value_mode::argsort64;
}

//! The mode called `name` ("none", "u32", "u64", "argsort", "argsort64"), if any.
std::optional<value_mode> parse_value_mode(std::string_view name);

struct algorithm_id {
  std::string_view name;
  algorithm_kind kind;
  bitonic::algorithm variant = bitonic::algorithm::automatic;  //!< for kind == variant
  //! For kind == variant: the sort gets a workspace allocated once before the timings, as CUB's
  //! sorts get their temporary storage; otherwise it is the default call (scratch, where needed,
  //! from the library's own pool).
  bool workspace = false;
  //! For kind == variant in the records mode: options.stable (sort_pairs keeps equal keys' order).
  bool stable = false;
  //! For kind == variant (keys mode): the out-of-place sort(d_in, d_out, n) from the input into a
  //! buffer of the sorter's own, as a user keeping the input calls it (CUB's SortKeys does so).
  bool out_of_place = false;

  friend bool operator==(const algorithm_id&, const algorithm_id&) = default;
};

//! The library's variants, automatic with a workspace, then the peers, in the order tables list
//! them.
std::span<const algorithm_id> all_algorithms();

//! The library's variants alone (what the demo runs).
std::span<const algorithm_id> variants();

//! The algorithm called `name`, if any.
std::optional<algorithm_id> find_algorithm(std::string_view name);

//! The rows of the records mode (bench --values): automatic is the library's sort_pairs or argsort
//! as a user calls it, automatic_workspace the same on a workspace allocated once,
//! automatic_stable the default call with options.stable, then the GPU peers (cub_radix,
//! cub_merge and thrust, whose sort_by_key without a comparator takes Thrust's radix path) and
//! std_sort, a stable sort of the records on the host.
std::span<const algorithm_id> record_algorithms();

//! The records-mode row called `name`, if any.
std::optional<algorithm_id> find_record_algorithm(std::string_view name);

//! Appends `name` to `names`, a list of names separated by spaces (usage and error messages).
void append_name(std::string& names, std::string_view name);

}  // namespace bitonic::bench
