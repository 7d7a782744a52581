// Decode probe: runs the kernels' own dequantization on given words and scales so that a test
// can check it against the CPU, exhaustively (all 16 codes x all 256 e4m3 bytes). The scale-after
// probe: the mma on raw (subnormal) weights the scale-after forms rely on.
#pragma once

#include "nvfp4.cuh"
#include "params.h"
#include "slot_after.cuh"

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

// The scale-after forms' assumption (slot_after.cuh, tile_after.cuh): the tensor core multiplies
// the raw weights, bf16 SUBNORMALS (e2m1 * 2^-132), exactly. One warp per 32 lanes runs
// safter_word, the forms' own code, on its lanes' words and x groups (permuted and staged
// x 2^kSafterActShift as the kernels do) into a zero D, and stores D.
__device__ __forceinline__ void safter_probe(const SafterProbeParams& p) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;  // whole warps: the grid has no partial one
  const ptx::U32x4 x = safter_scale_act(permute_group(*reinterpret_cast<const ptx::U32x4*>(p.x + 8 * i)));
  float d[4] = {0.f, 0.f, 0.f, 0.f};
  safter_word(d, p.lo[i], p.hi[i], x);
#pragma unroll
  for (int j = 0; j < 4; ++j) p.out[4 * i + j] = d[j];
}

}  // namespace moegemv
