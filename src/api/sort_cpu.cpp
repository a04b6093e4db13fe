// bitonic::sort_on_cpu: the plan of the requested algorithm run by the CPU executor (a stable sort
// of float keys: std::stable_sort, the reference the GPU's is tested against).
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "api/options.hpp"
#include "bitonic/bitonic.hpp"
#include "cpu/execute.hpp"
#include "plan/plan.hpp"

namespace bitonic {

template <class Key>
void sort_on_cpu(Key* h_keys, std::size_t n, const options& opt) {
  api::validate(opt, "bitonic::sort_on_cpu");
  api::require_host_keys(h_keys, n, "bitonic::sort_on_cpu");
  if (n == 0) return;
  if (std::is_floating_point_v<Key> && opt.stable) {  // equivalent floats can differ in bits
    api::with_order(opt.direction, [&](auto less) { std::stable_sort(h_keys, h_keys + n, less); });
    return;
  }
  const plan::plan p =
      plan::make_plan(api::concrete_algorithm(opt, n, sizeof(Key)), n, sizeof(Key));
  api::with_order(opt.direction, [&](auto less) { cpu::execute(p, h_keys, less); });
}

#define BITONIC_INSTANTIATE(Key) template void sort_on_cpu<Key>(Key*, std::size_t, const options&);
BITONIC_FOR_EACH_KEY(BITONIC_INSTANTIATE)
#undef BITONIC_INSTANTIATE

}  // namespace bitonic
