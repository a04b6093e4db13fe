// Entry point of the GPU tests: without a usable device there is nothing to test, so say so in
// one line and exit with the code that ctest's SKIP_RETURN_CODE turns into "skipped".
#include <gtest/gtest.h>

#include <cstdio>

#include "bitonic/bitonic.hpp"

int main(int argc, char** argv) {
  constexpr int skipped = 77;
  if (!bitonic::gpu_available()) {
    std::puts("no CUDA device: GPU tests skipped");
    return skipped;
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
