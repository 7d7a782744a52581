// TEST PROBE (session 44): the cluster-shared staging of dc_cluster (down_cluster_act.cuh) alone,
// so that a [gpu] test can tell it from the rest of the down. Every CTA of a cluster of C stages
// one row of `groups` 16-byte groups twice: shared over the cluster (stage_cluster_row: its share
// loaded, stored into every CTA with st.async, then its barrier waited on) and by itself alone
// (stage_groups_by, the kernels' own staging); it writes both to out, which must agree.
#pragma once

#include "down_cluster_act.cuh"
#include "params.h"

namespace moegemv {

template <int C>
__device__ __forceinline__ void cluster_stage_probe(const ClusterProbeParams& p) {
  // [0, 8): the barrier; from 16: the row staged over the cluster, then the row staged alone.
  extern __shared__ __align__(16) unsigned char probe_smem[];
  const unsigned int bar = ptx::shared_addr(probe_smem);
  ptx::U32x4* shared_row = reinterpret_cast<ptx::U32x4*>(probe_smem + 16);
  ptx::U32x4* own_row = shared_row + p.groups;
  if (threadIdx.x == 0) {
    ptx::mbar_init(bar, 1);
    ptx::fence_barrier_init();
  }
  __syncthreads();
  cluster::sync();  // every peer's barrier initialized before any store into it
  const unsigned short* row = static_cast<const unsigned short*>(p.src);
  auto src = [&](int g) { return row + 8 * g; };
  const int groups = static_cast<int>(p.groups), threads = static_cast<int>(blockDim.x);
  stage_cluster_row<C, true>(threadIdx.x, threads, 8 * groups, src, shared_row, bar, KeepGroup{});
  stage_groups_by(threadIdx.x, threads, groups, src, own_row);
  __syncthreads();
  ptx::U32x4* out = static_cast<ptx::U32x4*>(p.out) + 2ull * blockIdx.x * groups;
  for (int g = threadIdx.x; g < groups; g += threads) {
    out[g] = shared_row[g];
    out[groups + g] = own_row[g];
  }
}

}  // namespace moegemv
