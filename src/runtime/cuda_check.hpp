// Turning CUDA status codes into bitonic::error with the failing call's name.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "bitonic/bitonic.hpp"

namespace bitonic::runtime {

[[noreturn]] inline void throw_cuda_error(cudaError_t status, const char* call) {
  throw error(std::string("bitonic: ") + call + " failed: " + cudaGetErrorName(status) + ": " +
              cudaGetErrorString(status));
}

//! Throws bitonic::error naming `call` unless `status` is cudaSuccess.
inline void check_cuda(cudaError_t status, const char* call) {
  if (status != cudaSuccess) throw_cuda_error(status, call);
}

}  // namespace bitonic::runtime

#define BITONIC_CUDA_CHECK(call) ::bitonic::runtime::check_cuda((call), #call)
