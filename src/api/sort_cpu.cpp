// bitonic::sort_on_cpu: the plan of the requested algorithm run by the CPU executor.
#include <cstdint>
#include <string>

#include "api/options.hpp"
#include "bitonic/bitonic.hpp"
#include "cpu/execute.hpp"
#include "plan/plan.hpp"

namespace bitonic {

template <class Key>
void sort_on_cpu(Key* h_keys, std::size_t n, const options& opt) {
  api::validate(opt, "bitonic::sort_on_cpu");
  if (n == 0) return;
  if (h_keys == nullptr) {
    throw error("bitonic::sort_on_cpu: h_keys is null but n = " + std::to_string(n));
  }
  const plan::plan p =
      plan::make_plan(api::concrete_algorithm(opt, n, sizeof(Key)), n, sizeof(Key));
  api::with_order(opt.direction, [&](auto less) { cpu::execute(p, h_keys, less); });
}

template void sort_on_cpu<std::int32_t>(std::int32_t*, std::size_t, const options&);
template void sort_on_cpu<std::uint32_t>(std::uint32_t*, std::size_t, const options&);
template void sort_on_cpu<std::int64_t>(std::int64_t*, std::size_t, const options&);
template void sort_on_cpu<std::uint64_t>(std::uint64_t*, std::size_t, const options&);
template void sort_on_cpu<float>(float*, std::size_t, const options&);
template void sort_on_cpu<double>(double*, std::size_t, const options&);

}  // namespace bitonic
