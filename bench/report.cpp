#include "bench/report.hpp"

#include <ctime>
#include <stdexcept>

namespace bitonic::bench {
namespace {

constexpr std::string_view csv_header =
    "device,date,key_type,value_type,log2n,n,algorithm,internal_ms,total_ms,keys_per_s,"
    "distribution";

std::string format(const char* fmt, double value) {
  char text[64];
  std::snprintf(text, sizeof text, fmt, value);
  return text;
}

std::optional<double> internal_of(std::span<const result_row> rows, std::string_view name) {
  for (const result_row& r : rows) {
    if (r.algorithm == name) return r.internal_ms;
  }
  return std::nullopt;
}

std::string check_text(const result_row& r) {
  if (!r.error.empty()) return "ERROR";
  switch (r.check) {
    case check_state::ok:
      return "ok";
    case check_state::reference:
      return "reference";
    case check_state::mismatch:
      return "FAILED at " + std::to_string(r.mismatch_at);
    case check_state::not_run:
      break;
  }
  return "-";
}

}  // namespace

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\n") == std::string_view::npos) return std::string(text);
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + '"';
}

std::string format_rate(double per_second) {
  if (per_second >= 1e9) return format("%.2f G", per_second / 1e9);
  if (per_second >= 1e6) return format("%.1f M", per_second / 1e6);
  return format("%.1f k", per_second / 1e3);
}

std::string iso_date() {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char text[16];
  std::strftime(text, sizeof text, "%Y-%m-%d", &local);
  return text;
}

// Wide enough for the longest label, "automatic_out_of_place (optimized)".
constexpr const char* table_row = "%-35s %12s %12s %9s %10s %9s %11s %7s %8s  %s\n";

void print_table(std::FILE* out, const size_context& size, std::span<const result_row> rows) {
  const bool power_of_two = size.n == std::size_t{1} << size.log2n;
  std::string sorted = std::string(size.key_type);
  if (size.value_type == "argsort" || size.value_type == "argsort64") {
    sorted += size.value_type == "argsort" ? " argsort (u32 indices)" : " argsort (u64 indices)";
  } else if (size.value_type != "none") {
    sorted += " keys + " + std::string(size.value_type) + " values";
  }
  if (size.distribution != "uniform") sorted += ", " + std::string(size.distribution) + " keys";
  std::fprintf(out, "\n%s, n = %s%zu, %.*s: median of %u runs (CPU peers: %u)\n", sorted.c_str(),
               power_of_two ? ("2^" + std::to_string(size.log2n) + " = ").c_str() : "", size.n,
               int(size.device.size()), size.device.data(), size.runs, size.cpu_runs);
  std::fprintf(out, table_row, "algorithm", "internal ms", "total ms", "ns/key", "keys/s",
               "x qsort", "x std::sort", "passes", "GB/s", "check");
  const std::optional<double> qsort_ms = internal_of(rows, "qsort");
  const std::optional<double> std_ms = internal_of(rows, "std_sort");
  const auto cell = [](const char* fmt, std::optional<double> v) {
    return v ? format(fmt, *v) : std::string("-");
  };
  for (const result_row& r : rows) {
    const std::optional<double> t = r.internal_ms;
    const auto per = [&](std::optional<double> peer) -> std::optional<double> {
      if (!t || !peer || *t <= 0) return std::nullopt;
      return *peer / *t;
    };
    const std::optional<double> passes =
        r.passes ? std::optional<double>(double(*r.passes)) : std::nullopt;
    const std::optional<double> gbps =
        passes && t && *t > 0
            ? std::optional(*passes * 2.0 * double(size.n * size.key_bytes) / (*t * 1e6))
            : std::nullopt;
    std::fprintf(out, table_row, r.label.c_str(), cell("%.4f", t).c_str(),
                 cell("%.4f", r.total_ms).c_str(),
                 cell("%.3f", t ? std::optional(*t * 1e6 / double(size.n)) : std::nullopt).c_str(),
                 t && *t > 0 ? format_rate(double(size.n) / (*t / 1e3)).c_str() : "-",
                 cell("%.1f", per(qsort_ms)).c_str(), cell("%.1f", per(std_ms)).c_str(),
                 cell("%.0f", passes).c_str(), cell("%.0f", gbps).c_str(), check_text(r).c_str());
  }
  std::fflush(out);
}

csv_writer::csv_writer(const std::string& path) : out_(path, std::ios::trunc), path_(path) {
  if (!out_) throw std::runtime_error("cannot open " + path + " for writing");
  out_ << csv_header << '\n';
}

void csv_writer::write(const size_context& size, std::span<const result_row> rows) {
  for (const result_row& r : rows) {
    const auto ms = [](std::optional<double> v) { return v ? format("%.6g", *v) : std::string(); };
    const std::optional<double> t = r.internal_ms;
    out_ << csv_field(size.device) << ',' << size.date << ',' << size.key_type << ','
         << size.value_type << ',' << size.log2n << ',' << size.n << ',' << r.algorithm << ','
         << ms(t) << ',' << ms(r.total_ms) << ','
         << (t && *t > 0 ? format("%.0f", double(size.n) / (*t / 1e3)) : std::string()) << ','
         << size.distribution << '\n';
  }
  out_.flush();
  if (!out_) throw std::runtime_error("writing " + path_ + " failed");
}

}  // namespace bitonic::bench
