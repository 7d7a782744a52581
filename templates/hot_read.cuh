// DIAGNOSTIC ONLY (`moegemv bench --hot`, session 43): what do many CTAs pay for reading the same
// few KB? Every CTA of an M = 1 kernel stages its token's whole activation row (gate_up: x at its
// start; the down: act after its PDL wait), so at M = 1 all of them ask L2 for the same lines at
// once. Each CTA stages hot16 16-byte groups into shared memory with the kernels' own load
// (ld.global.nc), CTA b from copy b % copies (1: every CTA the same lines; gridDim.x: each its
// own), after issuing its first cold16 groups of weights of its own (evict-first, as the GEMVs
// read weights) so that both are in flight together, as at a gate_up CTA's start.
#pragma once

#include "params.h"
#include "ptx.cuh"

namespace moegemv {

__device__ __forceinline__ void hot_read(const HotReadParams& p) {
  extern __shared__ ptx::U32x4 hot_staged[];
  constexpr int kColdAhead = 4;  // cold groups per thread issued before the hot ones
  const ptx::U32x4* hot = static_cast<const ptx::U32x4*>(p.hot) +
                          static_cast<unsigned long long>(blockIdx.x % p.copies) * p.hot16;
  const ptx::U32x4* cold = static_cast<const ptx::U32x4*>(p.cold) +
                           static_cast<unsigned long long>(blockIdx.x) * p.cold16;
  const unsigned long long policy = ptx::evict_first_policy();
  ptx::U32x4 ahead[kColdAhead];
#pragma unroll
  for (int i = 0; i < kColdAhead; ++i) {
    const unsigned int g = threadIdx.x + i * blockDim.x;
    ahead[i] = g < p.cold16 ? ptx::ld_stream_v4(cold + g, policy) : ptx::U32x4{0, 0, 0, 0};
  }
  constexpr int kBatch = 8;  // as stage_groups_by: a batch of loads, then their stores
  for (unsigned int g0 = threadIdx.x; g0 < p.hot16; g0 += kBatch * blockDim.x) {
    ptx::U32x4 v[kBatch];
#pragma unroll
    for (int i = 0; i < kBatch; ++i)
      if (g0 + i * blockDim.x < p.hot16) v[i] = ptx::ld_nc_v4(hot + g0 + i * blockDim.x);
#pragma unroll
    for (int i = 0; i < kBatch; ++i)
      if (g0 + i * blockDim.x < p.hot16) hot_staged[g0 + i * blockDim.x] = v[i];
  }
  unsigned int acc = 0;
#pragma unroll
  for (int i = 0; i < kColdAhead; ++i) acc ^= ahead[i].x ^ ahead[i].y ^ ahead[i].z ^ ahead[i].w;
  for (unsigned int g = threadIdx.x + kColdAhead * blockDim.x; g < p.cold16; g += blockDim.x) {
    const ptx::U32x4 v = ptx::ld_stream_v4(cold + g, policy);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  __syncthreads();
  const ptx::U32x4 s = hot_staged[threadIdx.x % p.hot16];
  acc ^= s.x ^ s.y ^ s.z ^ s.w;
  if (acc == 0x9E3779B9u) *p.sink = acc;  // practically never true; keeps the loads alive
}

}  // namespace moegemv
