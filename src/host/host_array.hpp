// Host scratch of the CPU roads of the host entry points (records_host, topk_host).
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <string>

#include "bitonic/bitonic.hpp"

namespace bitonic::host {

//! An uninitialised host array of n T, or bitonic::error naming `caller` when memory is short.
template <class T>
std::unique_ptr<T[]> host_array(std::size_t n, const char* caller) {
  std::unique_ptr<T[]> a(new (std::nothrow) T[n]);
  if (!a) {
    throw error(std::string(caller) + ": not enough host memory for " + std::to_string(n) +
                " elements of " + std::to_string(sizeof(T)) + " bytes");
  }
  return a;
}

}  // namespace bitonic::host
