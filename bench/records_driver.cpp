// The records mode of the benchmark (bench --values): for one key type, every selected row at
// every size, side by side in one process, each result checked as a permutation of the records
// and against std::sort, printed as a table per size and written as CSV rows.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <future>
#include <memory>
#include <numeric>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "bench/driver_parts.hpp"
#include "bench/keys.hpp"
#include "bench/records.hpp"

namespace bitonic::bench {
namespace {

template <class Key, class Value>
std::size_t held_bytes(const std::vector<record_measurement<Key, Value>>& outputs) {
  std::size_t records = 0;
  for (const auto& o : outputs)
    records += o.keys.size();
  return records * (sizeof(Key) + sizeof(Value));
}

template <class Key, class Value>
class record_run {
 public:
  record_run(const config& cfg, std::string_view device, std::string_view date, csv_writer* csv)
      : cfg_(cfg), device_(device), date_(date), csv_(csv) {
    for (const algorithm_id& a : cfg.algorithms)
      sorters_.push_back(make_gpu_record_sorter<Key, Value>(a, cfg.values));
    // Only GPU sorters need the device's stream and buffers (and without a GPU none are run).
    if (std::any_of(sorters_.begin(), sorters_.end(), [](const auto& s) { return s != nullptr; })) {
      workspace_.emplace();
    }
  }

  //! Measures, checks and reports one size; true when everything passed.
  bool size(std::size_t n) {
    const auto log2n = unsigned(n <= 1 ? 0 : std::bit_width(n - 1));  // ceil(log2 n)
    const std::string where = std::string(tools::type_name<Key>()) + " " +
                              std::string(to_string(cfg_.values)) + " n=" + std::to_string(n);
    progress(where, "generating %zu %s keys (seed %llu), their indices as values\n", n,
             std::string(tools::to_string(cfg_.dist)).c_str(),
             static_cast<unsigned long long>(cfg_.seed));
    input_ = tools::generate<Key>(n, cfg_.dist, cfg_.seed);
    values_.resize(n);
    std::iota(values_.begin(), values_.end(), Value{0});
    if (workspace_) workspace_->load(input_, values_);

    const std::size_t count = cfg_.algorithms.size();
    std::vector<result_row> rows(count);
    std::vector<record_measurement<Key, Value>> outputs(count);
    for (std::size_t i = 0; i < count; ++i) {
      rows[i].algorithm = cfg_.algorithms[i].name;
      rows[i].label = std::string(cfg_.algorithms[i].name);
    }
    progress(where, "computing the std::sort reference of the keys\n");
    const std::vector<Key> reference = tools::reference_sort(input_, bitonic::order::ascending);
    for (std::size_t i = 0; i < count; ++i) {
      measure(i, rows, outputs, where);
      if (held_bytes(outputs) > free_host_memory() / 4) {  // huge sizes: check early, free memory
        progress(where, "checking the results so far\n");
        check_outputs(rows, outputs, reference, where);
      }
    }
    progress(where, "checking the results: permutations of the records, keys as std::sort\n");
    check_outputs(rows, outputs, reference, where);

    size_context context{device_,   date_,        tools::type_name<Key>(), log2n, n, sizeof(Key),
                         cfg_.runs, cfg_.cpu_runs};
    context.value_type = to_string(cfg_.values);
    context.distribution = tools::to_string(cfg_.dist);
    print_table(stdout, context, rows);
    if (csv_ != nullptr) csv_->write(context, rows);
    return std::none_of(rows.begin(), rows.end(), [](const result_row& r) { return r.failed(); });
  }

 private:
  // Times row i; an exception fails this row only (its cells stay empty).
  void measure(std::size_t i, std::span<result_row> rows,
               std::vector<record_measurement<Key, Value>>& outputs, std::string_view where) {
    result_row& row = rows[i];
    progress(where, "%s ... ", row.label.c_str());
    try {
      record_measurement<Key, Value> m =
          sorters_[i] ? workspace_->measure(*sorters_[i], input_, values_, cfg_.values, cfg_.runs)
                      : measure_cpu_records<Key, Value>(input_, values_, cfg_.cpu_runs);
      row.internal_ms = m.internal_ms;
      row.total_ms = m.total_ms;
      outputs[i] = std::move(m);
      std::fprintf(stderr, "internal %.4f ms, total %.4f ms\n", row.internal_ms.value(),
                   row.total_ms.value());
    } catch (const std::exception& e) {
      row.error = e.what();
      std::fprintf(stderr, "\n*** ERROR: %.*s %s failed: %s\n\n", int(where.size()), where.data(),
                   row.label.c_str(), e.what());
    }
  }

  // Checks the results measured so far and frees them; in parallel, as many as cores and free
  // memory allow (the key check sorts two copies of the keys where their bits differ from
  // std::sort's), between timings, never beside them.
  void check_outputs(std::span<result_row> rows,
                     std::vector<record_measurement<Key, Value>>& outputs,
                     const std::vector<Key>& reference, std::string_view where) {
    std::vector<std::size_t> pending;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (rows[i].internal_ms && rows[i].check == check_state::not_run) pending.push_back(i);
    }
    // Per check: two copies of the keys' bits and one byte per index seen.
    const std::size_t check_bytes =
        std::max<std::size_t>(1, reference.size() * (2 * sizeof(Key) + 1));
    const std::size_t workers = std::clamp<std::size_t>(
        free_host_memory() / 2 / check_bytes, 1, std::max(1u, std::thread::hardware_concurrency()));
    for (std::size_t begin = 0; begin < pending.size(); begin += workers) {
      std::vector<std::pair<std::size_t, std::future<std::optional<record_mismatch>>>> batch;
      for (std::size_t j = begin; j < std::min(pending.size(), begin + workers); ++j) {
        const std::size_t i = pending[j];
        batch.emplace_back(i, std::async(std::launch::async, [&, i] {
                             return first_record_mismatch(outputs[i], input_, reference);
                           }));
      }
      for (auto& [i, result] : batch) {
        const std::optional<record_mismatch> wrong = result.get();
        rows[i].check = wrong ? check_state::mismatch : check_state::ok;
        if (!wrong) continue;
        rows[i].mismatch_at = wrong->at;
        std::fprintf(stderr, "\n*** MISMATCH: %.*s %.*s is wrong at index %zu: %s\n\n",
                     int(where.size()), where.data(), int(rows[i].algorithm.size()),
                     rows[i].algorithm.data(), wrong->at, wrong->detail.c_str());
      }
    }
    for (auto& o : outputs)
      o = record_measurement<Key, Value>();  // free before the next size
  }

  const config& cfg_;
  std::string_view device_, date_;
  csv_writer* csv_;
  std::optional<gpu_record_workspace<Key, Value>> workspace_;
  std::vector<std::unique_ptr<gpu_record_sorter<Key, Value>>> sorters_;  // null for std_sort
  std::vector<Key> input_;
  std::vector<Value> values_;  // the index of each record
};

template <class Key, class Value>
std::size_t run_sizes(const config& cfg, std::span<const std::size_t> sizes,
                      std::string_view device, std::string_view date, csv_writer* csv) {
  record_run<Key, Value> runner(cfg, device, date, csv);
  std::size_t failures = 0;
  for (const std::size_t n : sizes) {
    if (!runner.size(n)) ++failures;
  }
  return failures;
}

}  // namespace

template <class Key>
std::size_t run_records(const config& cfg, std::span<const std::size_t> sizes,
                        std::string_view device, std::string_view date, csv_writer* csv) {
  switch (cfg.values) {
    case value_mode::u32:
    case value_mode::argsort:  // uint32 indices
      return run_sizes<Key, std::uint32_t>(cfg, sizes, device, date, csv);
    case value_mode::u64:
    case value_mode::argsort64:  // uint64 indices
      return run_sizes<Key, std::uint64_t>(cfg, sizes, device, date, csv);
    case value_mode::none:
      break;
  }
  throw std::logic_error("run_records: the keys-only benchmark has no records");
}

#define INSTANTIATE(Key)                                                             \
  template std::size_t run_records<Key>(const config&, std::span<const std::size_t>, \
                                        std::string_view, std::string_view, csv_writer*);
BITONIC_FOR_EACH_KEY(INSTANTIATE)

}  // namespace bitonic::bench
