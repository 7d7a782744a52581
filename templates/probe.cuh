// Decode probe: runs the kernels' own dequantization on given words and scales so that a test
// can check it against the CPU, exhaustively (all 16 codes x all 256 e4m3 bytes).
#pragma once

#include "nvfp4.cuh"
#include "params.h"

namespace moegemv {

// out[8i + 2p] = element p, out[8i + 2p + 1] = element p + 4 of words[i], each = w * s * 2^-7 in
// bf16 where s is the low byte of scales[i] (the high byte's result is checked to be the same
// function by decoding once more with it).
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
    out[8 * i + 2 * p] = static_cast<unsigned short>(r[p] & 0xFFFFu);
    out[8 * i + 2 * p + 1] = static_cast<unsigned short>(r[p] >> 16);
    out_hi[8 * i + 2 * p] = static_cast<unsigned short>(h[p] & 0xFFFFu);
    out_hi[8 * i + 2 * p + 1] = static_cast<unsigned short>(h[p] >> 16);
  }
}

}  // namespace moegemv
