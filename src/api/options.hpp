// Checks and resolution of the public options, shared by the GPU and CPU entry points.
#pragma once

#include <cstddef>

#include "bitonic/bitonic.hpp"
#include "network/key_order.hpp"
#include "plan/plan.hpp"

namespace bitonic::api {

//! Throws bitonic::error if an enum in `opt` holds a value outside its enumerators.
void validate(const options& opt, const char* caller);

//! Throws bitonic::error naming `caller` if h_keys is null while n > 0.
void require_host_keys(const void* h_keys, std::size_t n, const char* caller);

//! Throws bitonic::error naming `caller` ("<caller>: <what> overlap") when the byte ranges
//! [a, a + a_bytes) and [b, b + b_bytes) share a byte (empty ranges share none).
void require_apart(const void* a, std::size_t a_bytes, const void* b, std::size_t b_bytes,
                   const char* caller, const char* what);

//! The keys of num_arrays arrays of array_size (batched sorts), or bitonic::error naming
//! `caller` when that overflows size_t.
std::size_t batch_keys(std::size_t num_arrays, std::size_t array_size, const char* caller);

//! The checks of a top-k call before its arrays: options, an algorithm with a batched form,
//! k <= n, batch * n within size_t, an output (any_output) where batch * k > 0 keys are to be
//! written. Returns batch * n.
std::size_t topk_keys(std::size_t batch, std::size_t n, std::size_t k, const options& opt,
                      bool any_output, const char* caller);

//! bitonic::error naming `caller` unless opt.algo has a batched form (automatic or optimized).
void require_batched_algorithm(const options& opt, const char* caller);

//! opt.algo, or the automatic choice for n keys of key_bytes bytes.
algorithm concrete_algorithm(const options& opt, std::size_t n, std::size_t key_bytes);

//! The current CUDA device's shape for plans of keys of key_bytes bytes (its L2 and SMs).
plan::device_shape current_device_shape(std::size_t key_bytes);

//! Calls `fn(less)` with the comparator object of the requested order.
template <class Fn>
void with_order(order direction, Fn&& fn) {
  if (direction == order::ascending) {
    fn(ascending_less{});
  } else {
    fn(descending_less{});
  }
}

}  // namespace bitonic::api
