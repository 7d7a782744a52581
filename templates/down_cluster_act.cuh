// dc_cluster=C (MOEGEMV_TUNE; the streaming down's M = 1 kernel, session 44): the C CTAs of a
// thread-block cluster share one read of the token's act rows. At M = 1 every CTA of the down
// stages the whole row of its one token after the PDL wait, so all of them ask L2 for the same
// lines at once (`moegemv bench --hot` measures what that costs). Here segment s's warps of
// cluster rank r load only the row's groups g with g % C == r and store each, permuted (and
// scaled in the scale-after form) as the kernel's own staging would, into the same place of every
// CTA of the cluster with st.async, which completes 16 bytes of transactions on that CTA's
// barrier for segment s. Each CTA's segment warps then wait on their own barrier: one arrival
// (expecting the row's bytes) and the C CTAs' stores complete it, so the segments stay
// independent and no cluster barrier is on the path after the PDL wait.
//
// Why only at M = 1: the barrier is used once (phase 0) and a row is never overwritten while a
// peer may still store into it. Every CTA must stage its share and wait on its barriers, so every
// CTA needs a unit (the launch's grid <= units) and none leaves before the stores into it have
// landed (its waits see all of them). The barriers are initialized before a cluster barrier that
// comes before the PDL wait, so no peer stores into an uninitialized one.
#pragma once

#include "cluster.cuh"
#include "mbarrier.cuh"
#include "tile.cuh"

namespace moegemv {

// One mbarrier per segment, after the PartialBars (down_stream_barrier_bytes leaves room).
struct ClusterActBars {
  unsigned int base;
  __device__ __forceinline__ unsigned int bar(int seg) const { return base + 8 * seg; }
  __device__ __forceinline__ void init(int segments) const {  // one thread, before bars.init
    for (int s = 0; s < segments; ++s) ptx::mbar_init(bar(s), 1);
  }
};

// Segment seg's threads [0, threads) of this CTA: their share of the row's len / 8 groups (src(g):
// group g's address) into dst of every CTA of the cluster, post(group) stored; then thread 0
// arrives on this CTA's barrier expecting the row's bytes (none where kStage is false: the
// diagnostic knock 512) and all of them wait for it.
template <int C, bool kStage, class Src, class Post>
__device__ __forceinline__ void stage_cluster_row(int tid, int threads, int len, Src src,
                                                  ptx::U32x4* dst, unsigned int bar, Post post) {
  static_assert(C >= 2 && C <= 8, "2..8 CTAs per cluster");
  if constexpr (kStage) {
    const int rank = static_cast<int>(cluster::rank()), mine = (len / 8 - rank + C - 1) / C;
    auto share = [&](int i) { return src(rank + C * i); };  // this rank's i-th group
    auto put = [&](int i, ptx::U32x4 v) {                    // into every CTA of the cluster
      const ptx::U32x4 w = post(v);
      const unsigned int local = ptx::shared_addr(dst + rank + C * i);
#pragma unroll
      for (int c = 0; c < C; ++c)
        cluster::store_async_v4(cluster::map(local, c), w, cluster::map(bar, c));
    };
    // A share is len / 8 / C groups (16 for a 512-long row at C = 4): 2 loads per thread at once.
    stage_groups_put<2>(tid, threads, mine, share, put);
  }
  if (tid == 0) ptx::mbar_arrive_expect_tx(bar, kStage ? static_cast<unsigned int>(len) * 2 : 0u);
  cluster::wait_acquire(bar, 0);
}

// A row of len elements staged by threads [0, threads): over the cluster as above (C > 1), or by
// this CTA alone (C = 1: stage_groups_by; kStage and bar unused).
template <int C, bool kStage, class Src, class Post>
__device__ __forceinline__ void stage_row_over(int tid, int threads, int len, Src src,
                                               ptx::U32x4* dst, unsigned int bar, Post post) {
  if constexpr (C > 1) stage_cluster_row<C, kStage>(tid, threads, len, src, dst, bar, post);
  else stage_groups_by(tid, threads, len / 8, src, dst, post);
}

}  // namespace moegemv
