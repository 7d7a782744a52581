#pragma once
// Shared by every test file with [gpu] tests. Catch2 v2 has no SKIP: a [gpu] test on a machine
// without a usable CUDA device WARNs (visible in the output) and returns, so it passes vacuously.
#include <catch2/catch.hpp>

#include "runtime/driver.hpp"

#define MOEGEMV_REQUIRE_GPU()                                                                   \
  do {                                                                                          \
    if (!::moegemv::driver::available()) {                                                      \
      WARN("no CUDA device: skipping [gpu] test: " << ::moegemv::driver::unavailable_reason()); \
      return;                                                                                   \
    }                                                                                           \
  } while (false)
