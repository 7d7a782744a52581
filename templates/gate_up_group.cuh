// Routed gate_up pairs that share an expert (MOEGEMV_GU_GROUP, session 11). The grid has one CTA
// per (pair, tile), so at M > 1 an expert routed to several tokens is read once per pair, from
// DRAM each time (Nsight Compute, docs/PERF.md session 11 run 7: DeepSeek-V3 at M=16 reads 1.2x
// its unique bytes, GLM-4.5 1.44x). Here the CTA of the group's first pair computes every member
// as an mma column (tile.cuh's TileDot with B from global memory, as the shared tiles do for
// tokens), so the weights are read and decoded once; the other members' CTAs leave. Singletons
// keep the routed path. The sums per member are the classic tile's, a different fp32 order from
// the split tile's: it misses SPEC 8's act bound on somewhat more outputs (docs/CORRECTNESS.md,
// session 11), as the classic tile's shapes always have.
#pragma once

#include "gate_up_sums.cuh"
#include "params.h"
#include "ptx.cuh"
#include "tile.cuh"

namespace moegemv {

// The pairs routed to one expert, as a bit set in shared memory.
struct ExpertGroup {
  const unsigned int* bits;  // kGroupMaxPairs / 32 words
  int first;                 // the lowest member pair
  int count;

  // All threads of the CTA (two barriers): the pairs q < pairs with ids[q] == e.
  __device__ __forceinline__ void find(const int* ids, int pairs, int e, unsigned int* words) {
    constexpr int kWords = kGroupMaxPairs / 32;
    for (int i = threadIdx.x; i < kWords; i += blockDim.x) words[i] = 0;
    __syncthreads();
    for (int q = threadIdx.x; q < pairs; q += blockDim.x)
      if (ids[q] == e) atomicOr(&words[q / 32], 1u << (q % 32));
    __syncthreads();
    bits = words;
    first = -1;
    count = 0;
#pragma unroll
    for (int i = 0; i < kWords; ++i) {
      const unsigned int b = words[i];
      if (first < 0 && b != 0) first = 32 * i + __ffs(static_cast<int>(b)) - 1;
      count += __popc(b);
    }
  }

  // Member n's pair (0 <= n < count), in ascending pair order.
  __device__ __forceinline__ int member(int n) const {
    for (int i = 0;; ++i) {
      unsigned int b = bits[i];
      const int c = __popc(b);
      if (n < c) {
        for (; n > 0; --n) b &= b - 1;  // drop the n lowest members of this word
        return 32 * i + __ffs(static_cast<int>(b)) - 1;
      }
      n -= c;
    }
  }
};

// The group's act rows of one 8-feature tile: rows are the tile's up (g) and gate (g + 8) rows of
// the expert, up to kMaxCols members per pass as mma columns (x of member n's token).
template <int H, int I, int K, int W, int PIPE>
__device__ __forceinline__ void gate_up_group(const GateUpParams& p, const ExpertGroup& group,
                                              int e, int tile, const TileRows& rows, float* part) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const unsigned long long pol = ptx::evict_first_policy();
  int first, last;
  warp_range(H, warp, W, first, last);
  for (int c0 = 0; c0 < group.count; c0 += kMaxCols) {
    TileDot<PIPE, GlobalB> dot;
    dot.start(rows, first, last, t, pol);
    const int n = c0 + g;  // this lane supplies mma column g
    const GlobalB b{n < group.count ? p.x + static_cast<long long>(group.member(n) / K) * H : nullptr};
    float c[4] = {0.f, 0.f, 0.f, 0.f};
    dot.finish(rows, t, pol, b, c);
    if (c0 > 0) __syncthreads();  // the previous pass's partial sums are read
    store_partials(part, warp, g, t, c);
    __syncthreads();
    if (threadIdx.x < kTileFeatures * kMaxCols) {
      const int f = threadIdx.x / kMaxCols, col = threadIdx.x % kMaxCols;
      if (c0 + col < group.count) {
        const int pair = group.member(c0 + col);
        p.act[static_cast<long long>(pair) * I + tile * kTileFeatures + f] = silu_mul_approx(
            sum_partials(part, W, f, col), sum_partials(part, W, f + 8, col), p.alpha[e]);
      }
    }
  }
}

// The same as a call (not inlined): the classic tile's kernels (2-warp CTAs at 10 per SM, the M = 1
// kernel) keep their register budget for the routed path; inlined, the group path made them spill
// 40-136 bytes (session 11, cuobjdump). Off by default there: run 10 measured it slower.
template <int H, int I, int K, int W, int PIPE>
__device__ __noinline__ void gate_up_group_call(const GateUpParams& p, const ExpertGroup& group,
                                                int e, int tile, const TileRows& rows, float* part) {
  gate_up_group<H, I, K, W, PIPE>(p, group, e, tile, rows, part);
}

}  // namespace moegemv
