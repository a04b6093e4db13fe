// The first sort of a process on a device that is nearly full (issue 25, item 10). CUDA loads
// kernels on their first use, which takes device memory: the call must either sort or throw a
// bitonic::error that says what to do, and leave the keys as they were. Its own binary, because
// the kernels must not have been loaded by an earlier test of the same process.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "bitonic/bitonic.hpp"
#include "common_test.hpp"
#include "device_memory.hpp"

namespace bitonic {
namespace {

//! Takes the device's free memory in 2 MiB pieces, then gives back `leave` of them.
class device_filler {
 public:
  explicit device_filler(std::size_t leave) {
    constexpr std::size_t piece = std::size_t{2} << 20;
    for (void* p = nullptr; cudaMalloc(&p, piece) == cudaSuccess;)
      pieces_.push_back(p);
    cudaGetLastError();  // the failure that ended the loop
    for (; leave > 0 && !pieces_.empty(); --leave) {
      cudaFree(pieces_.back());
      pieces_.pop_back();
    }
  }
  ~device_filler() {
    for (void* p : pieces_)
      cudaFree(p);
  }
  device_filler(const device_filler&) = delete;
  device_filler& operator=(const device_filler&) = delete;

 private:
  std::vector<void*> pieces_;
};

TEST(FirstCall, OnAFullDeviceSortsOrThrowsWithKeysUntouched) {
  using Key = std::int32_t;
  constexpr std::size_t n = std::size_t{1} << 24;  // past the L2: wants n keys of scratch
  const std::uint64_t seed = test::case_seed(n, tools::distribution::uniform);
  const std::vector<Key> input = tools::generate<Key>(n, tools::distribution::uniform, seed);
  test::device_array<Key> keys(n);
  keys.upload(input);
  bool sorted = false;
  {
    const device_filler full(1);
    try {
      sort(keys.get(), n);
      BITONIC_CUDA_CHECK(cudaDeviceSynchronize());
      sorted = true;
    } catch (const error& e) {
      const std::string message = e.what();
      std::printf("first call on a full device threw: %s\n", message.c_str());
      EXPECT_NE(message.find("memory"), std::string::npos) << message;
    }
  }
  if (sorted) {
    std::printf("first call on a full device sorted (in place)\n");
    EXPECT_TRUE(
        test::matches_reference(keys.download(), tools::reference_sort(input, order::ascending)));
  } else {
    EXPECT_EQ(keys.download(), input) << "the failed call moved keys";
  }
  // With the memory back, the same call works.
  keys.upload(input);
  sort(keys.get(), n);
  EXPECT_TRUE(
      test::matches_reference(keys.download(), tools::reference_sort(input, order::ascending)));
}

}  // namespace
}  // namespace bitonic
