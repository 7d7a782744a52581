// The streaming engine of the persistent kernels (config stream = 1): one producer warp fills
// shared-memory slots with the bulk copy engine, consumer warps decode and multiply from them.
//
// A slot holds *runs*: 8 consecutive weight rows of one matrix, whole rows, which are contiguous in
// memory, so one bulk copy moves a run (8 KB to 64 KB). Measured on the H200 (docs/PERF.md,
// session 3): issuing one copy costs the producer ~100 cycles, so per-row copies (16 per slot)
// made the producer the bottleneck; whole runs need 1-2 copies per slot. The consumers read the
// slot like tile.cuh's register ring reads global memory (same lane layout and k permutation, so
// compute_step is shared). Rows of a run sit at a pitch that is a multiple of 128 bytes, so the two
// rows a quarter-warp reads (lanes g = 2m, 2m + 1) come from two runs placed 64 bytes apart mod 128
// (kRunPad): no bank conflict.
// The block scales stay in global memory: each consumer lane fetches its own scale u16s one unit
// ahead into registers (ScaleRegs) or two units ahead with cp.async into shared memory;
// ScaleFeed picks one per config.
#pragma once

#include "mbarrier.cuh"
#include "params.h"
#include "tile.cuh"

namespace moegemv {

// The second run of a slot starts this far past the first run's end: 64 mod 128 bytes.
constexpr int kRunPad = 64;

// The full/empty barrier pairs of `n` slots at the start of shared memory.
struct Barriers {
  unsigned int base;  // shared address of full[0]; empty[i] follows the n full barriers
  int n;
  __device__ __forceinline__ unsigned int full(int i) const { return base + 8 * i; }
  __device__ __forceinline__ unsigned int empty(int i) const { return base + 8 * (n + i); }
  // One thread; `consumers`: warp arrivals that release a slot.
  __device__ __forceinline__ void init(int consumers) const {
    for (int i = 0; i < n; ++i) {
      ptx::mbar_init(full(i), 1);
      ptx::mbar_init(empty(i), consumers);
    }
    ptx::fence_barrier_init();
  }
};

// Position of the v-th use of a ring of D slots: the slot and the parity of its phase.
template <int D>
struct RingPos {
  int slot;
  unsigned int parity;
  __device__ __forceinline__ explicit RingPos(int v) : slot(v % D), parity((v / D) & 1) {}
};

// The producer's wait for a free slot (the first D uses pass at once: parity of the phase before).
template <int D>
__device__ __forceinline__ int wait_free(const Barriers& bars, int ring, int v) {
  const RingPos<D> pos(v);
  ptx::mbar_wait(bars.empty(ring * D + pos.slot), pos.parity ^ 1);
  return ring * D + pos.slot;
}

// Producer lane 0: fills a slot with `n` runs (src[i] -> slot + dst[i], bytes each). An invalid
// slot (skipped expert) copies nothing but still completes its phase, so producer and consumers
// count slots the same way whatever the routing.
template <int N>
__device__ __forceinline__ void fill_slot(unsigned int slot, unsigned int full, bool valid,
                                          const unsigned char* const (&src)[N],
                                          const unsigned int (&dst)[N], unsigned int bytes,
                                          unsigned long long pol) {
  ptx::mbar_arrive_expect_tx(full, valid ? N * bytes : 0);
  if (valid) {
#pragma unroll
    for (int i = 0; i < N; ++i) ptx::bulk_copy(slot + dst[i], src[i], bytes, full, pol);
  }
}

// The consumer's wait for a filled slot and its release (lane 0 arrives for the warp).
template <int D>
__device__ __forceinline__ int wait_filled(const Barriers& bars, int ring, int v) {
  const RingPos<D> pos(v);
  ptx::mbar_wait(bars.full(ring * D + pos.slot), pos.parity);
  return ring * D + pos.slot;
}
__device__ __forceinline__ void release(const Barriers& bars, int index) {
  __syncwarp();
  if (threadIdx.x % 32 == 0) ptx::mbar_arrive(bars.empty(index));
}

// A lane's block scales of up to kMax consecutive 128-element steps: step i's u16 of mma row g
// (low half) and of row g + 8 (high half), read straight from the swizzled global layout: k-blocks
// 2t, 2t+1 of step s are the u16 at byte 2(t & 1) of the u32 of 64-element atom 2s + t/2.
// Loaded into registers a unit ahead, then parked in the warp's shared scratch (one u32 per step
// per lane, lane-interleaved), so the step loop can index them at run time: a fully unrolled loop
// with register-indexed scales was ~20 KB of code per unit and ran 1.4x slower (PERF.md, v8).
// The two rows' u16 stay in registers of their own until the unit that uses them: joined into one
// u32 where they were loaded, the join waited for both loads right there, a unit early, and that
// wait held 28% of DeepSeek-V3 down's stall samples (session 19, ncu on an H100).
// kWord (the scale-after dot product, slot_after.cuh): per step one u32 instead, all 4 scales of
// atom 2s + (t & 1) of row g (t < 2) or g + 8 (t >= 2), in lo_row (hi_row unused).
template <int kMax, bool kWord = false>
struct ScaleRegs {
  unsigned int lo_row[kMax], hi_row[kMax];  // the u16 of mma rows g and g + 8, zero-extended

  // lo / hi: the scale u32 of atom 0 of the lane's two rows (nvfp4::swizzle_row_offset), plus the
  // atoms before the rows' first step 0; steps [first, first + n).
  __device__ __forceinline__ void load(const unsigned char* lo, const unsigned char* hi, int first,
                                       int n, int t) {
#pragma unroll
    for (int i = 0; i < kMax; ++i) {
      if (i < n) {
        if constexpr (kWord) {
          lo_row[i] = ptx::ld_nc_u32((t < 2 ? lo : hi) + (2 * (first + i) + (t & 1)) * 512);
          hi_row[i] = 0;
        } else {
          const int off = (2 * (first + i) + (t >> 1)) * 512 + (t & 1) * 2;
          lo_row[i] = ptx::ld_nc_u16(lo + off);
          hi_row[i] = ptx::ld_nc_u16(hi + off);
        }
      }
    }
  }
  // Step i as slot_dot reads it: {lo row u16, hi row u16}.
  __device__ __forceinline__ unsigned int joined(int i) const { return lo_row[i] | (hi_row[i] << 16); }
  // scratch: this lane's first word (warp scratch + lane); word i at scratch[32 * i].
  __device__ __forceinline__ void park(unsigned int* scratch, int n) const {
#pragma unroll
    for (int i = 0; i < kMax; ++i)
      if (i < n) scratch[32 * i] = joined(i);
  }
};

// slot_dot's view of a lane's scales: step i as {lo row u16, hi row u16}.
template <int kMax>
struct HeldScales {  // ScaleRegs' registers, for a slot_dot whose steps are all constant indices
  unsigned int lo_row[kMax], hi_row[kMax];
  __device__ __forceinline__ unsigned int operator()(int i) const {
    return lo_row[i] | (hi_row[i] << 16);
  }
};
struct ParkedScales {  // ScaleRegs::park's words
  const unsigned int* p;
  __device__ __forceinline__ unsigned int operator()(int i) const { return p[32 * i]; }
};
struct RingScales {  // a buffer of ScaleFeed's ring
  const unsigned int* p;  // the buffer's word 4g + (t & 2)
  unsigned int sel;       // t even: the words' low halves, odd: their high halves
  __device__ __forceinline__ RingScales(const unsigned int* buffer, int lane)
      : p(buffer + (lane & ~1)), sel((lane & 1) ? 0x7632u : 0x5410u) {}
  __device__ __forceinline__ unsigned int operator()(int i) const {
    const uint2 v = *reinterpret_cast<const uint2*>(p + 32 * i);
    return ptx::prmt(v.x, v.y, sel);
  }
};

// A consumer warp's block scales, kAhead units ahead of their use. 1: ScaleRegs (registers, parked
// at the unit's start). 2: fetched straight into shared memory with cp.async (no registers held
// while in flight), in a ring of kBufs buffers of kMax steps x 32 u32; per step, lane (g, t)
// fetches the u32 of atom 2s + t/2 of its lo row (t even) or hi row (t odd), and lanes t and t ^ 1
// then read the same two adjacent words, each taking its half (RingScales). Measured why (session
// 6, ncu): loaded a unit ahead into registers, the down's scales still arrived late (10.6% of its
// stall samples), since one unit's copies are queued before them.
// Per unit v, in order: ready(v), then fetch(v + kAhead).
template <int kAhead, int kMax, bool kWord = false>
struct ScaleFeed {
  static_assert(!kWord || kAhead == 1, "the scale-after form's u32 per step travel in registers");
  static constexpr int kBufs = scale_feed_buffers(kAhead);
  unsigned int* words;  // the warp's scratch: buffer b, step i, lane l at [(b * kMax + i) * 32 + l]
  ScaleRegs<kMax, kWord> regs;

  // Unit v's scales (lo / hi as for ScaleRegs::load; fetch: its expert is usable). With the ring,
  // one commit group per call, also when nothing is fetched, so every lane counts groups alike.
  __device__ __forceinline__ void fetch(int v, const unsigned char* lo, const unsigned char* hi,
                                        bool fetch, int first, int n, int lane) {
    if constexpr (kAhead == 1) {
      if (fetch) regs.load(lo, hi, first, n, lane % 4);
    } else {
      if (fetch) {
        const int t = lane % 4;
        const unsigned char* src = ((t & 1) ? hi : lo) + (2 * first + (t >> 1)) * 512;
        const unsigned int dst = ptx::shared_addr(words + (v % kBufs) * kMax * 32 + lane);
#pragma unroll
        for (int i = 0; i < kMax; ++i)
          if (i < n) ptx::cp_async4(dst + 128 * i, src + 1024 * i);
      }
      ptx::cp_async_commit();
    }
  }
  // Unit v's scales in shared memory for the lanes that read them (valid: its expert is usable).
  __device__ __forceinline__ void ready(bool valid, int n, int lane) {
    if constexpr (kAhead == 1) {
      if (valid) regs.park(words + lane, n);
    } else {
      ptx::cp_async_wait<kAhead - 1>();  // unit v's group has landed (later ones may not)
      __syncwarp();  // ... for every lane, and the warp is done with the buffer refilled next
    }
  }
  // kAhead 1: the registers of the unit fetched last, unparked (take them before the next fetch;
  // only a slot_dot with a compile-time step count may index them).
  __device__ __forceinline__ HeldScales<kMax> held() const {
    HeldScales<kMax> h;
#pragma unroll
    for (int i = 0; i < kMax; ++i) h.lo_row[i] = regs.lo_row[i], h.hi_row[i] = regs.hi_row[i];
    return h;
  }
  __device__ __forceinline__ auto view(int v, int lane) const {
    if constexpr (kAhead == 1) return ParkedScales{words + lane};
    else return RingScales(words + (v % kBufs) * kMax * 32, lane);
  }
};

// Consumer: steps [first, first + n) of a filled slot into c. lo / hi: this lane's weight rows
// (mma rows g and g + 8) at element 0; scales: the lane's scales (ParkedScales, RingScales); b:
// the B groups of element 0 (SmemB permutation). kTwoAcc: two accumulators halve the dependent
// mma chain (4 registers more: the down kernel with 2 warps per segment spills with them).
// Unrolled (v32, session 10): the steps' shared-memory addresses become immediate offsets
// (the down 1-3.6% faster on DeepSeek-V3, GLM-4.5, Llama-4; docs/PERF.md). kN > 0: n is kN, a
// compile-time constant, so the loop unrolls whole (no remainder, constant scale indices).
template <bool kTwoAcc = true, int kN = 0, class Scales>
__device__ __forceinline__ void slot_dot(const unsigned char* lo, const unsigned char* hi,
                                         const Scales& scales, const ptx::U32x4* b_groups,
                                         int first, int n, int t, float (&c)[4]) {
  const SmemB b{b_groups};
  auto step = [&](int i, float (&acc)[4]) {
    const int s = first + i;
    Step<SmemB> st;
    st.lo = *reinterpret_cast<const ptx::U32x4*>(lo + 64 * s + 16 * t);
    st.hi = *reinterpret_cast<const ptx::U32x4*>(hi + 64 * s + 16 * t);
    const unsigned int sc = scales(i);
    st.s_lo = static_cast<unsigned short>(sc & 0xFFFFu);
    st.s_hi = static_cast<unsigned short>(sc >> 16);
    compute_step(st, 16 * s + 4 * t, b, acc);
  };
  if constexpr (kN > 0) {
    float d[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
    for (int i = 0; i < kN; ++i) {
      if (kTwoAcc && (i & 1)) step(i, d);
      else step(i, c);
    }
    if constexpr (kTwoAcc) {
#pragma unroll
      for (int k = 0; k < 4; ++k) c[k] = ptx::add_rn(c[k], d[k]);
    }
    return;
  }
  if constexpr (!kTwoAcc) {
#pragma unroll 4
    for (int i = 0; i < n; ++i) step(i, c);
    return;
  }
  float d[4] = {0.f, 0.f, 0.f, 0.f};
  int i = 0;
#pragma unroll 2
  for (; i + 1 < n; i += 2) {
    step(i, c);
    step(i + 1, d);
  }
  if (i < n) step(i, c);
#pragma unroll
  for (int k = 0; k < 4; ++k) c[k] = ptx::add_rn(c[k], d[k]);
}

// Even split of `n` steps over `parts` warps.
__device__ __forceinline__ void split_steps(int n, int i, int parts, int& first, int& count) {
  first = i * n / parts;
  count = (i + 1) * n / parts - first;
}

// The contiguous range of work units of this CTA.
__device__ __forceinline__ void cta_units(int units, int& begin, int& end) {
  begin = static_cast<int>((static_cast<long long>(blockIdx.x) * units) / gridDim.x);
  end = static_cast<int>((static_cast<long long>(blockIdx.x + 1) * units) / gridDim.x);
}

}  // namespace moegemv
