// Decode probe: runs the kernels' own dequantization on given words and scales so that a test
// can check it against the CPU, exhaustively (all 16 codes x all 256 e4m3 bytes).
#pragma once

#include "nvfp4.cuh"
#include "params.h"

namespace moegemv {

// out[8i + e] = element e of words[i] as decoded: w * s * 2^-kDecodeShift in bf16, where s is
// the low byte of scales[i]; out_hi the same with the high byte.
__device__ __forceinline__ void decode_probe(const unsigned int* words, const unsigned short* scales,
                                             int n, unsigned short* out, unsigned short* out_hi) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned int s0, s1;
  nvfp4::scale_pair_bf16x2(scales[i], s0, s1);
  const unsigned int q = words[i];
  unsigned int r[4], h[4];
  nvfp4::dequant_word(q, s0, r);
  nvfp4::dequant_word(q, s1, h);
#pragma unroll
  for (int p = 0; p < 4; ++p) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int e = 8 * i + decode_pair_element(p, half);
      out[e] = static_cast<unsigned short>(r[p] >> (16 * half));
      out_hi[e] = static_cast<unsigned short>(h[p] >> (16 * half));
    }
  }
}

}  // namespace moegemv
