// DIAGNOSTIC ONLY (MOEGEMV_TUNE gu_timeline=1 / dc_timeline=1, never a default): per CTA, the
// %globaltimer when it starts, when its griddepcontrol.wait returns and when its last warp ends,
// and its SM, in a module global that `moegemv bench --timeline` reads back after a replay. It
// shows how the two kernels of a pair overlap under PDL, per SM, without Nsight Systems.
// Layout: CTA b (< kTimelineCtas) at moegemv_timeline[4b ..]: start, waited, end, smid.
#pragma once

#include "params.h"

#ifndef MOEGEMV_TIMELINE
#define MOEGEMV_TIMELINE 0
#endif

#if MOEGEMV_TIMELINE
extern "C" {
__device__ unsigned long long moegemv_timeline[moegemv::kTimelineCtas * 4];
}
#endif

namespace moegemv::timeline {

#if MOEGEMV_TIMELINE
__device__ __forceinline__ unsigned long long now() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ __forceinline__ unsigned long long* slot() {
  return blockIdx.x < kTimelineCtas ? moegemv_timeline + 4 * blockIdx.x : nullptr;
}
#endif

// After griddepcontrol.wait (ptx::griddep_wait): thread 0 stamps.
__device__ __forceinline__ void waited() {
#if MOEGEMV_TIMELINE == 1
  if (threadIdx.x == 0 && slot()) slot()[1] = now();
#endif
}

// MOEGEMV_TIMELINE = N > 1: one thread (thread 0 unless `stamp` names another) stamps the second
// time at mark point N of the kernel instead of at the PDL wait (`bench --timeline` still calls it
// "PDL wait returns"); the streaming down's points, all of consumer warp 0 (segment 0) but 7:
// 2 its first token's act staged, 3 its first slot filled, 4 its first unit's sums handed to the
// combiner, 5 its first unit's dot product done (before the hand-over), 6 its last unit's sums
// handed over, 7 the combiner's first unit's output stored.
template <int N>
__device__ __forceinline__ void mark(bool stamp = threadIdx.x == 0) {
#if MOEGEMV_TIMELINE > 1
  if (MOEGEMV_TIMELINE == N && stamp && slot()) slot()[1] = now();
#else
  (void)stamp;
#endif
}

// MOEGEMV_TIMELINE = 8..11 (the streaming down's waits): one thread sums the cycles it spends in
// one kind of wait over all its units and, at its end, stores start + that sum in ns (scaled by its
// own ns per cycle over its life) as the second stamp; `bench --timeline` prints it per CTA as
// "second stamp - start". 8: consumer warp 0's waits for a filled slot; 9: the producer's for a
// free slot (the in-order producer); 10: consumer warp 0's for a free partial-sum slot (the
// combiner); 11: the combiner's for the consumers' sums.
template <int N>
struct WaitSum {
#if MOEGEMV_TIMELINE >= 8
  long long waited = 0, entered = 0, c0 = 0;
  unsigned long long g0 = 0;
  bool on;
  __device__ __forceinline__ explicit WaitSum(bool stamp) : on(MOEGEMV_TIMELINE == N && stamp && slot()) {
    if (on) c0 = clock64(), g0 = now();
  }
  __device__ __forceinline__ void enter() {
    if (on) entered = clock64();
  }
  __device__ __forceinline__ void leave() {
    if (on) waited += clock64() - entered;
  }
  __device__ __forceinline__ ~WaitSum() {
    if (!on) return;
    const long long cycles = clock64() - c0;
    const double ns = static_cast<double>(now() - g0);
    slot()[1] = slot()[0] + (cycles > 0 ? static_cast<unsigned long long>(waited * ns / cycles) : 0ull);
  }
#else
  __device__ __forceinline__ explicit WaitSum(bool) {}
  __device__ __forceinline__ void enter() {}
  __device__ __forceinline__ void leave() {}
#endif
};

// Constructed first in the kernel: the start; destroyed on every way out of it: each warp's lane
// 0 raises the end to its own time, so the CTA's end is its last warp's.
struct Scope {
#if MOEGEMV_TIMELINE
  __device__ __forceinline__ Scope() {
    if (threadIdx.x == 0 && slot()) {
      unsigned int sm;
      asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
      slot()[0] = now();
      slot()[1] = 0;
      slot()[3] = sm;
    }
  }
  __device__ __forceinline__ ~Scope() {
    if (threadIdx.x % 32 == 0 && slot()) atomicMax(slot() + 2, now());
  }
#endif
};

}  // namespace moegemv::timeline
