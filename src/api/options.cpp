#include "api/options.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <string>

#include "kernels/device_fit.hpp"
#include "kernels/tuning.hpp"
#include "plan/plan.hpp"
#include "runtime/device.hpp"
#include "runtime/per_device.hpp"

namespace bitonic {

std::string_view to_string(algorithm algo) noexcept {
  switch (algo) {
    case algorithm::automatic:
      return "automatic";
    case algorithm::global_step:
      return "global_step";
    case algorithm::fused_steps:
      return "fused_steps";
    case algorithm::shared_tiles:
      return "shared_tiles";
    case algorithm::block_merge:
      return "block_merge";
    case algorithm::optimized:
      return "optimized";
  }
  return "unknown";
}

// optimized is the fastest variant at every size measured (docs/results/) and for every key
// type; past one L2 block it uses n keys of scratch memory where the device has them (else it
// sorts in place).
algorithm resolve_automatic(std::size_t /*n*/, std::size_t /*key_bytes*/) noexcept {
  return algorithm::optimized;
}

std::size_t memory_passes(algorithm algo, std::size_t n, std::size_t key_bytes) {
  if (key_bytes != 4 && key_bytes != 8) {
    throw error("bitonic::memory_passes: key_bytes must be 4 or 8, not " +
                std::to_string(key_bytes));
  }
  const options opt{order::ascending, algo};
  api::validate(opt, "bitonic::memory_passes");
  const plan::device_shape device =
      gpu_available() ? api::current_device_shape(key_bytes) : plan::device_shape{};
  return plan::memory_passes(plan::make_plan(api::concrete_algorithm(opt, n, key_bytes), n,
                                             key_bytes, device, plan::scratch_use::allowed));
}

namespace api {

void validate(const options& opt, const char* caller) {
  if (opt.direction != order::ascending && opt.direction != order::descending) {
    throw error(std::string(caller) + ": options.direction holds an unknown order value");
  }
  if (to_string(opt.algo) == "unknown") {
    throw error(std::string(caller) + ": options.algo holds an unknown algorithm value");
  }
}

void require_apart(const void* a, std::size_t a_bytes, const void* b, std::size_t b_bytes,
                   const char* caller, const char* what) {
  const auto x = reinterpret_cast<std::uintptr_t>(a), y = reinterpret_cast<std::uintptr_t>(b);
  if (a_bytes != 0 && b_bytes != 0 && x < y + b_bytes && y < x + a_bytes) {
    throw error(std::string(caller) + ": " + what + " overlap");
  }
}

std::size_t batch_keys(std::size_t num_arrays, std::size_t array_size, const char* caller) {
  if (array_size != 0 && num_arrays > std::numeric_limits<std::size_t>::max() / array_size) {
    throw error(std::string(caller) + ": " + std::to_string(num_arrays) + " arrays of " +
                std::to_string(array_size) + " keys overflow size_t");
  }
  return num_arrays * array_size;
}

void require_batched_algorithm(const options& opt, const char* caller) {
  if (opt.algo != algorithm::automatic && opt.algo != algorithm::optimized) {
    throw error(std::string(caller) + ": only the optimized kernels sort batches (options::algo " +
                "automatic or optimized, not " + std::string(to_string(opt.algo)) + ")");
  }
}

std::size_t topk_keys(std::size_t batch, std::size_t n, std::size_t k, const options& opt,
                      bool any_output, const char* caller) {
  validate(opt, caller);
  require_batched_algorithm(opt, caller);
  if (k > n) {
    throw error(std::string(caller) + ": k = " + std::to_string(k) +
                " is more than the n = " + std::to_string(n) + " keys of an array");
  }
  const std::size_t keys = batch_keys(batch, n, caller);
  if (!any_output && batch * k != 0) {  // batch * k <= keys: no overflow
    throw error(std::string(caller) + ": both outputs are null");
  }
  return keys;
}

void require_host_keys(const void* h_keys, std::size_t n, const char* caller) {
  if (n > 0 && h_keys == nullptr) {
    throw error(std::string(caller) + ": h_keys is null but n = " + std::to_string(n));
  }
}

namespace {
plan::device_shape read_device_shape(std::size_t key_bytes) {
  plan::device_shape shape{plan::cache_block_log2(runtime::l2_cache_bytes(), key_bytes),
                           runtime::multiprocessor_count(), kernels::cluster_sort_stages(key_bytes),
                           kernels::resident_tiles(key_bytes)};
  shape.split_min_log2 = tuning::sample_split_min_log2(key_bytes);
  shape.refine_min_log2 = tuning::sample_refine_min_log2(key_bytes);
  return shape;
}
}  // namespace

plan::device_shape current_device_shape(std::size_t key_bytes) {
  // Read once per device for both key sizes: the sort asks on every call.
  static runtime::per_device<std::array<plan::device_shape, 2>> known;
  return known.get([] {
    return std::array{read_device_shape(4), read_device_shape(8)};
  })[key_bytes == 4 ? 0 : 1];
}

algorithm concrete_algorithm(const options& opt, std::size_t n, std::size_t key_bytes) {
  return opt.algo == algorithm::automatic ? resolve_automatic(n, key_bytes) : opt.algo;
}

}  // namespace api
}  // namespace bitonic
