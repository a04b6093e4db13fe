#include "bench/driver.hpp"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <future>
#include <memory>
#include <optional>
#include <stdexcept>
#include <thread>

#include "bench/driver_parts.hpp"
#include "bench/keys.hpp"
#include "bench/measure.hpp"
#include "bench/report.hpp"
#include "bench/sorters.hpp"
#include "bitonic/cuda_helpers.hpp"

namespace bitonic::bench {
namespace {

template <class Key>
std::size_t held_bytes(const std::vector<std::vector<Key>>& outputs) {
  std::size_t keys = 0;
  for (const auto& o : outputs)
    keys += o.size();
  return keys * sizeof(Key);
}

// Compares the outputs measured so far with the reference and frees them. first_mismatch also
// compares the multisets (it sorts two copies of the keys), which takes seconds at 2^27, so the
// checks run in parallel, as many as cores and free memory allow, between timings, never beside
// them.
template <class Key>
void check_outputs(std::span<result_row> rows, std::vector<std::vector<Key>>& outputs,
                   const std::vector<Key>& reference, std::string_view where) {
  std::vector<std::size_t> pending;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].internal_ms && rows[i].check == check_state::not_run) pending.push_back(i);
  }
  const std::size_t copies_bytes = std::max<std::size_t>(1, 2 * reference.size() * sizeof(Key));
  const std::size_t workers = std::clamp<std::size_t>(
      free_host_memory() / 2 / copies_bytes, 1, std::max(1u, std::thread::hardware_concurrency()));
  for (std::size_t begin = 0; begin < pending.size(); begin += workers) {
    std::vector<std::pair<std::size_t, std::future<std::optional<std::size_t>>>> batch;
    for (std::size_t j = begin; j < std::min(pending.size(), begin + workers); ++j) {
      const std::size_t i = pending[j];
      batch.emplace_back(i, std::async(std::launch::async, [&, i] {
                           return tools::first_mismatch(outputs[i], reference);
                         }));
    }
    for (auto& [i, result] : batch) {
      const std::optional<std::size_t> at = result.get();
      rows[i].check = at ? check_state::mismatch : check_state::ok;
      if (!at) continue;
      rows[i].mismatch_at = *at;
      std::string detail = "the result holds other keys than the input (lost or altered keys)";
      const bitonic::ascending_less less;
      if (*at < reference.size() &&
          (less(outputs[i][*at], reference[*at]) || less(reference[*at], outputs[i][*at]))) {
        detail = "got " + key_text(outputs[i][*at]) + ", expected " + key_text(reference[*at]);
      }
      std::fprintf(stderr, "\n*** MISMATCH: %.*s %.*s differs from std::sort at index %zu: %s\n\n",
                   int(where.size()), where.data(), int(rows[i].algorithm.size()),
                   rows[i].algorithm.data(), *at, detail.c_str());
    }
  }
  for (auto& o : outputs)
    std::vector<Key>().swap(o);  // free before the next size
}

template <class Key>
class type_run {
 public:
  type_run(const config& cfg, std::string_view device, std::string_view date, csv_writer* csv)
      : cfg_(cfg), device_(device), date_(date), csv_(csv) {
    for (const algorithm_id& a : cfg.algorithms)
      sorters_.push_back(make_gpu_sorter<Key>(a));
    // Only GPU sorters need the device's stream and buffers (and without a GPU none are run).
    if (std::any_of(sorters_.begin(), sorters_.end(), [](const auto& s) { return s != nullptr; })) {
      workspace_.emplace();
    }
  }

  //! Measures, checks and reports one size; true when everything passed.
  bool size(std::size_t n) {
    const auto log2n = unsigned(n <= 1 ? 0 : std::bit_width(n - 1));  // ceil(log2 n)
    const std::string where = std::string(tools::type_name<Key>()) + " n=" + std::to_string(n);
    progress(where, "generating %zu %s keys (seed %llu)\n", n,
             std::string(tools::to_string(cfg_.dist)).c_str(),
             static_cast<unsigned long long>(cfg_.seed));
    input_ = tools::generate<Key>(n, cfg_.dist, cfg_.seed);
    if (workspace_) workspace_->load(input_);

    const std::size_t count = cfg_.algorithms.size();
    std::vector<result_row> rows(count);
    std::vector<std::vector<Key>> outputs(count);
    for (std::size_t i = 0; i < count; ++i)
      rows[i] = row_for(cfg_.algorithms[i], n);

    // std::sort's own result is the reference when it is measured; otherwise compute it.
    std::vector<Key> reference;
    const auto std_sort_at = index_of("std_sort");
    if (std_sort_at) measure(*std_sort_at, rows, outputs, where);
    if (std_sort_at && rows[*std_sort_at].error.empty()) {
      reference = std::move(outputs[*std_sort_at]);
      rows[*std_sort_at].check = check_state::reference;
    } else {
      progress(where, "computing the std::sort reference\n");
      reference = tools::reference_sort(input_, bitonic::order::ascending);
    }
    for (std::size_t i = 0; i < count; ++i) {
      if (i != std_sort_at) measure(i, rows, outputs, where);
      if (held_bytes(outputs) > free_host_memory() / 4) {  // huge sizes: check early, free memory
        progress(where, "checking the results so far against std::sort\n");
        check_outputs<Key>(rows, outputs, reference, where);
      }
    }
    progress(where, "checking the results against std::sort\n");
    check_outputs<Key>(rows, outputs, reference, where);

    size_context context{device_,   date_,        tools::type_name<Key>(), log2n, n, sizeof(Key),
                         cfg_.runs, cfg_.cpu_runs};
    context.distribution = tools::to_string(cfg_.dist);
    print_table(stdout, context, rows);
    if (csv_ != nullptr) csv_->write(context, rows);
    return std::none_of(rows.begin(), rows.end(), [](const result_row& r) { return r.failed(); });
  }

 private:
  std::optional<std::size_t> index_of(std::string_view name) const {
    for (std::size_t i = 0; i < cfg_.algorithms.size(); ++i) {
      if (cfg_.algorithms[i].name == name) return i;
    }
    return std::nullopt;
  }

  static result_row row_for(const algorithm_id& a, std::size_t n) {
    result_row row;
    row.algorithm = a.name;
    row.label = std::string(a.name);
    if (a.kind == algorithm_kind::variant) {
      row.passes = memory_passes(a.variant, n, sizeof(Key));
      if (a.variant == bitonic::algorithm::automatic) {
        row.label += " (" + std::string(to_string(resolve_automatic(n, sizeof(Key)))) + ")";
      }
    }
    return row;
  }

  // Times algorithm i; an exception fails this algorithm only (its cells stay empty).
  void measure(std::size_t i, std::span<result_row> rows, std::vector<std::vector<Key>>& outputs,
               std::string_view where) {
    result_row& row = rows[i];
    progress(where, "%s ... ", row.label.c_str());
    try {
      const algorithm_id& algo = cfg_.algorithms[i];
      const unsigned host_runs = algo.kind == algorithm_kind::host_sort ? cfg_.runs : cfg_.cpu_runs;
      measurement<Key> m = sorters_[i] ? workspace_->measure(*sorters_[i], input_, cfg_.runs)
                                       : measure_cpu<Key>(cpu_sorter<Key>(algo), input_, host_runs);
      row.internal_ms = m.internal_ms;
      row.total_ms = m.total_ms;
      outputs[i] = std::move(m.output);
      std::fprintf(stderr, "internal %.4f ms, total %.4f ms (best %.4f)\n", m.internal_ms,
                   m.total_ms, m.best_total_ms);
    } catch (const std::exception& e) {
      row.error = e.what();
      std::fprintf(stderr, "\n*** ERROR: %.*s %s failed: %s\n\n", int(where.size()), where.data(),
                   row.label.c_str(), e.what());
    }
  }

  const config& cfg_;
  std::string_view device_, date_;
  csv_writer* csv_;
  std::optional<gpu_workspace<Key>> workspace_;
  std::vector<std::unique_ptr<gpu_sorter<Key>>> sorters_;  // null for the CPU peers
  std::vector<Key> input_;
};

}  // namespace

void keep_cpu_algorithms(std::vector<algorithm_id>& algorithms) {
  std::string skipped;
  bool host_sort = false;
  std::erase_if(algorithms, [&](const algorithm_id& a) {
    host_sort = host_sort || a.kind == algorithm_kind::host_sort;
    if (a.kind == algorithm_kind::cpu_peer || a.kind == algorithm_kind::host_sort) return false;
    append_name(skipped, a.name);
    return true;
  });
  if (algorithms.empty()) {
    throw std::runtime_error("no CUDA device: nothing to run (GPU only: " + skipped + ")");
  }
  std::string line = "no CUDA device:";
  if (!skipped.empty()) line += " skipped " + skipped + " (GPU only);";
  if (host_sort) line += " sort_host sorts on the CPU reference executor;";
  line.back() = '\n';
  std::fputs(line.c_str(), stderr);
}

int run(const config& given) {
  config cfg = given;
  const bool records = cfg.values != value_mode::none;
  if (cfg.algorithms.empty() && records) {
    cfg.algorithms.assign(record_algorithms().begin(), record_algorithms().end());
  } else if (cfg.algorithms.empty()) {  // everything but the host-to-host mode (bench --host)
    for (const algorithm_id& a : all_algorithms()) {
      if (a.kind != algorithm_kind::host_sort) cfg.algorithms.push_back(a);
    }
  }
  const bool gpu = bitonic::gpu_available();
  if (!gpu) keep_cpu_algorithms(cfg.algorithms);
  const std::string device = gpu ? current_device_name() : "no CUDA device (CPU only)";
  const std::string date = iso_date();
  std::unique_ptr<csv_writer> csv;
  if (!cfg.csv_path.empty()) csv = std::make_unique<csv_writer>(cfg.csv_path);

  std::vector<std::size_t> sizes = cfg.sizes;
  if (sizes.empty()) {
    for (unsigned log2n = cfg.log2_first; log2n <= cfg.log2_last; ++log2n)
      sizes.push_back(std::size_t{1} << log2n);
  }
  std::size_t failures = 0;
  for (std::string_view type : cfg.key_types) {
    const bool known = tools::with_key_type(type, [&](auto key) {
      using Key = decltype(key);
      if (records) {
        failures += run_records<Key>(cfg, sizes, device, date, csv.get());
        return;
      }
      type_run<Key> runner(cfg, device, date, csv.get());
      for (const std::size_t n : sizes) {
        if (!runner.size(n)) ++failures;
      }
    });
    if (!known) throw std::invalid_argument("unknown key type " + std::string(type));
  }
  if (failures > 0) {
    std::fprintf(stderr,
                 "\n*** bench FAILED: %zu size(s) with an algorithm that failed or "
                 "disagreed with std::sort (see above)\n",
                 failures);
    return 1;
  }
  return 0;
}

}  // namespace bitonic::bench
