// gate_up's per-warp partial sums in shared memory and SPEC section 4's epilogues (routed:
// FlashInfer's approximate sigmoid; shared: vLLM's exact silu_and_mul), shared by the tile kinds.
#pragma once

#include "params.h"
#include "ptx.cuh"
#include "tile.cuh"

namespace moegemv {

// smem: x row in the SmemB permutation (routed CTAs), then per-warp partial sums [16 rows][8 cols],
// then (RING) the routed tiles' weight rings, one per warp.
template <bool kDirect>
__device__ __forceinline__ float* gate_up_partials(unsigned char* smem, int h) {
  return reinterpret_cast<float*>(smem + (kDirect ? 0 : h * 2));
}

// The warp's share of [0, h): whole 256-element steps (the ring's), the last warp also takes
// the leftover 64-element chunks.
__device__ __forceinline__ void warp_range(int h, int warp, int warps, int& first, int& last) {
  split_chunks(h / 64, warp, warps, first, last);
  first *= 64;
  last *= 64;
}

// Lanes with t == 0 hold column 0, the rest hold columns 2t, 2t+1 (used by shared tiles).
__device__ __forceinline__ void store_partials(float* part, int warp, int g, int t,
                                               const float (&c)[4]) {
  float* p = part + warp * kTileRows * kMaxCols;
  p[g * kMaxCols + 2 * t] = c[0];
  p[g * kMaxCols + 2 * t + 1] = c[1];
  p[(g + 8) * kMaxCols + 2 * t] = c[2];
  p[(g + 8) * kMaxCols + 2 * t + 1] = c[3];
}

__device__ __forceinline__ float sum_partials(const float* part, int warps, int row, int col) {
  float acc = 0.0f;
  for (int w = 0; w < warps; ++w) acc = ptx::add_rn(acc, part[(w * kTileRows + row) * kMaxCols + col]);
  return ptx::mul_rn(acc, nvfp4::kAccUnscale);
}

// act = bf16(u * (g * rcp(1 + ex2(g * -log2(e))))), SPEC section 4, routed.
__device__ __forceinline__ unsigned short silu_mul_approx(float acc_u, float acc_g, float alpha) {
  const float u = ptx::mul_rn(acc_u, alpha);
  const float g = ptx::mul_rn(acc_g, alpha);
  const float a = ptx::ex2_approx_ftz(ptx::mul_rn(g, __uint_as_float(0xBFB8AA3Bu)));
  const float r = ptx::rcp_approx_ftz(ptx::add_rn(a, 1.0f));
  return ptx::f32_to_bf16(ptx::mul_rn(u, ptx::mul_rn(g, r)));
}

// vLLM silu_and_mul on bf16-rounded gate/up, exact SiLU (full-accuracy expf, div.rn).
__device__ __forceinline__ unsigned short silu_mul_exact(float acc_u, float acc_g, float gs) {
  const float gb = ptx::bf16_to_f32(ptx::f32_to_bf16(ptx::mul_rn(acc_g, gs)));
  const float ub = ptx::bf16_to_f32(ptx::f32_to_bf16(ptx::mul_rn(acc_u, gs)));
  const float s = ptx::bf16_to_f32(ptx::f32_to_bf16(ptx::div_rn(gb, ptx::add_rn(1.0f, expf(-gb)))));
  return ptx::f32_to_bf16(ptx::mul_rn(s, ub));
}

}  // namespace moegemv
