// The results of one size: the readable table on stdout and the CSV rows.
#pragma once

#include <cstddef>
#include <cstdio>
#include <fstream>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace bitonic::bench {

enum class check_state { not_run, ok, reference, mismatch };

//! One algorithm at one size. Times are absent where not measured (the algorithm failed).
struct result_row {
  std::string_view algorithm;  //!< the CSV name
  std::string label;           //!< the table name
  std::optional<double> internal_ms, total_ms;
  std::optional<std::size_t> passes;  //!< the library's variants: passes over memory of the plan
  check_state check = check_state::not_run;
  std::size_t mismatch_at = 0;
  std::string error;  //!< why the algorithm could not be measured; empty when it was

  bool failed() const { return !error.empty() || check == check_state::mismatch; }
};

//! What every row of one size shares.
struct size_context {
  std::string_view device, date, key_type;
  unsigned log2n = 0;  //!< ceil(log2 n)
  std::size_t n = 0, key_bytes = 0;
  unsigned runs = 0, cpu_runs = 0;
  std::string_view value_type = "none";  //!< records mode (--values): "u32", "u64" or "argsort"
  std::string_view distribution = "uniform";  //!< the keys' (--dist)
};

//! "1.23 G", "456.7 M", ...: a rate for people.
std::string format_rate(double per_second);

//! `text` as one CSV field (quoted when it holds a comma, a quote or a newline).
std::string csv_field(std::string_view text);

//! Today's date in the local time zone, YYYY-MM-DD.
std::string iso_date();

//! The table of one size: times, ns per key, keys/s (internal), speed-ups over qsort and
//! std::sort where those were measured, and for the library's variants their passes over memory
//! and the effective bandwidth they imply (passes * 2 * n * key size / internal time).
void print_table(std::FILE* out, const size_context& size, std::span<const result_row> rows);

//! The benchmark CSV, one row per (size, algorithm), written as the sizes finish so that an
//! interrupted run keeps what it measured.
class csv_writer {
 public:
  //! Creates or truncates `path` and writes the header; throws std::runtime_error if it cannot.
  explicit csv_writer(const std::string& path);
  void write(const size_context& size, std::span<const result_row> rows);

 private:
  std::ofstream out_;
  std::string path_;
};

}  // namespace bitonic::bench
