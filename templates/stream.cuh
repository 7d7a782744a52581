// The streaming engine of the persistent kernels (config stream = 1): one producer warp fills
// shared-memory slots with the bulk copy engine, consumer warps decode and multiply from them.
//
// A *piece* is 16 mma rows x KC bytes of NVFP4 weights plus their block scales. The producer's
// lanes 0..15 each issue one bulk copy (one row's KC contiguous bytes) and all 32 lanes copy the
// rows' scale u32s (one per row per 64 elements) with cp.async; both complete on the slot's
// `full` mbarrier (1 expect_tx arrival + 32 cp.async arrivals per phase). Consumers wait on
// `full`, read the slot like tile.cuh's register ring reads global memory (same lane layout and
// k permutation, so compute_step is shared), and release it through `empty`.
//
// Slot layout: row r at r * pitch; the pitch is padded to 64 mod 128 bytes so the two rows a
// quarter-warp reads with 16-byte loads use different banks. Then the scales as u32
// [atom = 64 elements][16 rows]: a lane's two scale bytes of a step are one u16, and the 32
// lanes of a warp read 2 atoms x 8 rows with no bank conflict.
#pragma once

#include "mbarrier.cuh"
#include "params.h"
#include "tile.cuh"

namespace moegemv {

template <int KC>
struct Slot {
  static_assert(KC % 64 == 0, "pieces are whole 128-element steps");
  static constexpr int kPitch = stream_pitch(KC);
  static constexpr int kAtoms = KC / 32;
  static constexpr int kSteps = KC / 64;
  static constexpr int kWeightBytes = 16 * kPitch;
  static constexpr int kBytes = stream_slot_bytes(KC);
};

// The full/empty barrier pairs of `n` slots at the start of shared memory.
struct Barriers {
  unsigned int base;  // shared address of full[0]; empty[i] follows the n full barriers
  int n;
  __device__ __forceinline__ unsigned int full(int i) const { return base + 8 * i; }
  __device__ __forceinline__ unsigned int empty(int i) const { return base + 8 * (n + i); }
  // One thread; `consumers`: arrivals that release a slot.
  __device__ __forceinline__ void init(int consumers) const {
    for (int i = 0; i < n; ++i) {
      ptx::mbar_init(full(i), 33);
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

// Producer warp: fills one slot with mma row (lane % 16)'s piece. w: that row's first weight
// byte, sf: its scale u32 of the piece's first 64 elements (section 2: the next is 512 bytes on).
// An invalid piece (skipped expert) copies nothing but still completes the phase, so producer and
// consumers count slots the same way whatever the routing.
template <int KC>
__device__ __forceinline__ void fill_slot(unsigned int slot, unsigned int full, int lane, bool valid,
                                          const unsigned char* w, const unsigned char* sf,
                                          unsigned long long pol) {
  using S = Slot<KC>;
  if (lane == 0) ptx::mbar_arrive_expect_tx(full, valid ? 16 * KC : 0);
  __syncwarp();
  if (valid) {
    const int r = lane % 16;
    if (lane < 16) ptx::bulk_copy(slot + r * S::kPitch, w, KC, full, pol);
#pragma unroll 4
    for (int a = lane / 16; a < S::kAtoms; a += 2)
      ptx::cp_async4_ca(slot + S::kWeightBytes + (a * 16 + r) * 4, sf + a * 512);
  }
  ptx::cp_async_arrive_noinc(full);
}

// The producer's wait for a free slot (the first D uses pass at once: parity of the phase before).
template <int D>
__device__ __forceinline__ void wait_free(const Barriers& bars, int ring, int v) {
  const RingPos<D> pos(v);
  ptx::mbar_wait(bars.empty(ring * D + pos.slot), pos.parity ^ 1);
}

// Consumer: steps [first, last) of a filled slot into c. b: the B groups of the piece's first
// element (SmemB permutation). Two accumulators halve the dependent mma chain.
template <int KC>
__device__ __forceinline__ void slot_dot(const unsigned char* slot, const ptx::U32x4* b_groups,
                                         int first, int last, int g, int t, float (&c)[4]) {
  using S = Slot<KC>;
  const unsigned char* w_lo = slot + g * S::kPitch + 16 * t;
  const unsigned char* w_hi = w_lo + 8 * S::kPitch;
  // u16 index of (atom 2s + t/2, row g, byte 2(t&1)) minus 64 s.
  const unsigned short* sf =
      reinterpret_cast<const unsigned short*>(slot + S::kWeightBytes) + ((t >> 1) * 16 + g) * 2 + (t & 1);
  const SmemB b{b_groups};
  float d[4] = {0.f, 0.f, 0.f, 0.f};
  auto step = [&](int s, float (&acc)[4]) {
    Step<SmemB> st;
    st.lo = *reinterpret_cast<const ptx::U32x4*>(w_lo + 64 * s);
    st.hi = *reinterpret_cast<const ptx::U32x4*>(w_hi + 64 * s);
    st.s_lo = sf[64 * s];
    st.s_hi = sf[64 * s + 16];  // row g + 8
    compute_step(st, 16 * s + 4 * t, b, acc);
  };
  int s = first;
  for (; s + 1 < last; s += 2) {
    step(s, c);
    step(s + 1, d);
  }
  if (s < last) step(s, c);
#pragma unroll
  for (int i = 0; i < 4; ++i) c[i] = ptx::add_rn(c[i], d[i]);
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

// Even split of `n` steps over `parts` warps.
__device__ __forceinline__ void split_steps(int n, int i, int parts, int& first, int& last) {
  first = i * n / parts;
  last = (i + 1) * n / parts;
}

// The contiguous range of work units of this CTA.
__device__ __forceinline__ void cta_units(int units, int& begin, int& end) {
  begin = static_cast<int>((static_cast<long long>(blockIdx.x) * units) / gridDim.x);
  end = static_cast<int>((static_cast<long long>(blockIdx.x + 1) * units) / gridDim.x);
}

}  // namespace moegemv
