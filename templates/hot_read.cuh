// DIAGNOSTIC ONLY (`moegemv bench --hot`, session 43): what do many CTAs pay for reading the same
// few KB? Every CTA of an M = 1 kernel stages its token's whole activation row (gate_up: x at its
// start; the down: act after its PDL wait), so at M = 1 all of them ask L2 for the same lines at
// once. Each CTA stages hot16 16-byte groups into shared memory with the kernels' own load
// (ld.global.nc), CTA b from copy b % copies (1: every CTA the same lines; gridDim.x: each its
// own), after issuing its first cold16 groups of weights of its own (evict-first, as the GEMVs
// read weights) so that both are in flight together, as at a gate_up CTA's start.
// hot_read_cluster: the same, but the CTAs of a cluster share one read of the hot bytes: each
// loads every size()-th group and stores it into every CTA's shared memory of the cluster, then
// the cluster syncs (what a down that shares its act row over a cluster would pay instead).
#pragma once

#include "cluster.cuh"
#include "params.h"
#include "ptx.cuh"

namespace moegemv {

template <bool kCluster>
__device__ __forceinline__ void hot_read(const HotReadParams& p) {
  extern __shared__ ptx::U32x4 hot_staged[];
  constexpr int kColdAhead = 4;  // cold groups per thread issued before the hot ones
  const ptx::U32x4* hot = static_cast<const ptx::U32x4*>(p.hot) +
                          static_cast<unsigned long long>(blockIdx.x % p.copies) * p.hot16;
  // kCluster: this CTA's share of the groups, each stored into all the cluster's CTAs.
  const unsigned int ctas = kCluster ? cluster::size() : 1, share = kCluster ? cluster::rank() : 0;
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
  const unsigned int step = ctas * blockDim.x;  // group g0 + i * step: this thread's i-th
  for (unsigned int g0 = share * blockDim.x + threadIdx.x; g0 < p.hot16; g0 += kBatch * step) {
    ptx::U32x4 v[kBatch];
#pragma unroll
    for (int i = 0; i < kBatch; ++i)
      if (g0 + i * step < p.hot16) v[i] = ptx::ld_nc_v4(hot + g0 + i * step);
#pragma unroll
    for (int i = 0; i < kBatch; ++i) {
      if (g0 + i * step >= p.hot16) continue;
      if constexpr (kCluster) {
        const unsigned int local = ptx::shared_addr(hot_staged + g0 + i * step);
        for (unsigned int c = 0; c < ctas; ++c) cluster::store_v4(cluster::map(local, c), v[i]);
      } else {
        hot_staged[g0 + i * step] = v[i];
      }
    }
  }
  unsigned int acc = 0;
#pragma unroll
  for (int i = 0; i < kColdAhead; ++i) acc ^= ahead[i].x ^ ahead[i].y ^ ahead[i].z ^ ahead[i].w;
  for (unsigned int g = threadIdx.x + kColdAhead * blockDim.x; g < p.cold16; g += blockDim.x) {
    const ptx::U32x4 v = ptx::ld_stream_v4(cold + g, policy);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if constexpr (kCluster) cluster::sync();  // also: no CTA leaves while others store into it
  else __syncthreads();
  const ptx::U32x4 s = hot_staged[threadIdx.x % p.hot16];
  acc ^= s.x ^ s.y ^ s.z ^ s.w;
  if (acc == 0x9E3779B9u) *p.sink = acc;  // practically never true; keeps the loads alive
}

}  // namespace moegemv
