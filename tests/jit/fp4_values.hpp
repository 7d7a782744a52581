#pragma once
// Exact values of the NVFP4 element and scale formats in double, for the [codegen] emulations of
// the scale-after forms (test_slot_after.cpp, test_split_after.cpp; test_jit does not link nvfp4/).
#include <cmath>

inline double e2m1_value(int code) {
  static const double kMagnitude[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
  return (code & 8 ? -1 : 1) * kMagnitude[code & 7];
}

inline double e4m3_value(int byte) {  // finite, positive bytes only (0x01..0x7E)
  const int e = (byte >> 3) & 15, m = byte & 7;
  return e == 0 ? std::ldexp(m, -9) : std::ldexp(8 + m, e - 10);
}
