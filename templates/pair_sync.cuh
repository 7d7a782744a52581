// moe_block's per-pair dependency between gate_up and the streaming down (SPEC 4-5 unchanged:
// the same act, read as soon as it is written). Each gate_up CTA counts its finished tile: the
// routed ones per (token, k) pair, the shared ones per chunk of kMaxCols tokens (params.h,
// pair_sync_words). The streaming down, resident beside gate_up under PDL, waits per segment for
// its count to be whole instead of for all of gate_up, so the segments whose pairs are done run
// under gate_up's tail (with per-warp act staging, MOEGEMV_DC_WSTAGE; else it waits for all). Null counters (gate_up and down_combine launched on their own): nothing.
//
// Reuse: the down's last CTA clears the counters. The next gate_up counts only after its own
// griddepcontrol.wait (this down completed) and triggers its dependents only after it, so the
// next down never sees this block's counts.
#pragma once

#include "mbarrier.cuh"
#include "params.h"
#include "ptx.cuh"

namespace moegemv {

// gate_up, all threads of the CTA, after the tile's act (or sact) stores: the barrier orders them
// before thread 0's release, whose fence covers what the barrier made visible to it (the usual
// CTA-to-grid signal; session 9 run 3 had each writer fence too, costing each CTA a second fence).
__device__ __forceinline__ void pair_sync_publish(unsigned int* sync, int index) {
  if (sync == nullptr) return;
  __syncthreads();
  if (threadIdx.x == 0) ptx::red_release_gpu_add(sync + index, 1);
}

// Streaming down: one mbarrier per segment (count 1), a phase per token of the CTA. The combiner
// warp polls (lane s: segment s's count; one warp-wide acquire load per round, so the L2 line of
// the counters sees one poller per CTA, not one per warp: session 9 run 2, one per warp made
// Qwen3-Next's block 40% slower) and arrives on segment s's barrier once its count is whole; the
// segment's consumer warps wait on it (acquire: with the combiner's gpu-scope acquire before,
// their coherent loads, ptx::ld_v4, see the tiles' act).
struct PairReady {
  unsigned int base;  // shared address of kSegs mbarriers
  __device__ __forceinline__ unsigned int bar(int seg) const { return base + 8 * seg; }
};

template <int I, int SI, int K>
__device__ __forceinline__ void pair_sync_poll(const unsigned int* sync, int m, int tok,
                                               const PairReady& ready) {
  constexpr int kSegs = K + (SI > 0 ? 1 : 0);
  static_assert(kSegs <= 32, "a lane per segment");
  const int lane = threadIdx.x % 32;
  const bool routed = lane < K;
  const unsigned int* count =
      sync + (routed ? pair_sync_routed(tok * K + lane) : pair_sync_shared(m, K, tok / kMaxCols));
  const unsigned int whole = (routed ? I : SI) / kTileFeatures;
  bool done = lane >= kSegs;
  for (;;) {
    if (!done && ptx::ld_acquire_gpu(count) >= whole) {
      ptx::mbar_arrive(ready.bar(lane));
      done = true;
    }
    if (__all_sync(0xFFFFFFFFu, done)) break;
    asm volatile("nanosleep.u32 128;" ::: "memory");
  }
}

// Streaming down, one warp of each CTA (the combiner), after the CTA's last unit (so after all its
// warps' waits): the grid's last CTA to get here clears the block's counters.
template <int K>
__device__ __forceinline__ void pair_sync_finish(unsigned int* sync, int m) {
  if (sync == nullptr) return;
  const int lane = threadIdx.x % 32;
  unsigned int last = 0;
  __threadfence();  // the CTA's polls before its count
  if (lane == 0) last = atomicAdd(sync, 1u) == gridDim.x - 1 ? 1u : 0u;
  if (!__shfl_sync(0xFFFFFFFFu, last, 0)) return;
  __threadfence();
  for (int i = 1 + lane; i < pair_sync_words(m, K); i += 32) sync[i] = 0;
  if (lane == 0) sync[0] = 0;
}

}  // namespace moegemv
