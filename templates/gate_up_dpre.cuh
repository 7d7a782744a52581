// gate_up's DPRE (session 39; v62 where defaults.h says; the generator gives it to the kernel that
// runs at M = 1 only, and the launch passes the hint on at M = 1 only): a gate_up CTA asks
// L2 for its share of the same layer's down weights and block scales (one bulk prefetch of each,
// thread 0), so that down_combine's copies, which start as gate_up's CTAs leave, find them there.
// Nothing waits for the prefetches and nothing reads them here; where the caller passed no down
// weights (dw2 null) nothing is asked. MOEGEMV_GU_DPREK = k (session 40, opt-in): each share is
// asked by k CTAs of the n, so that the first of them to finish brings it in (params.h).
#pragma once

#include "params.h"
#include "ptx.cuh"

namespace moegemv {

// Where form DPRE asks: 1 at the CTA's start, 2 and 3 at its end (0: nowhere).
__device__ __forceinline__ constexpr int dpre_when(int dpre) { return dpre == 3 ? 2 : dpre; }

// Share c of n of one down block: rows [H, LEN/2] of weights at w, their block scales at sf (not
// with SCALES false: form 3, session 39's experiment).
template <int H, int LEN, bool SCALES>
__device__ __forceinline__ void dpre_block(const unsigned char* w, const unsigned char* sf, int c,
                                           int n) {
  constexpr long long kWeights = static_cast<long long>(H) * (LEN / 2);
  const ByteShare a = gate_up_dpre_share(kWeights, c, n);
  const ByteShare b = gate_up_dpre_share(swizzled_block_bytes(H, LEN), c, n);
  if (a.len != 0) ptx::prefetch_l2(w + a.off, a.len);
  if (SCALES && b.len != 0) ptx::prefetch_l2(sf + b.off, b.len);
}

// A routed CTA (share c of its pair's n CTAs): expert e's down block. DPRE: the kernel's form (0:
// none, 1: at the CTA's start, 2: at its end, 3: 2 without the scales); WHEN: where this call
// site is (1: the CTA's start, 2: its end).
template <int DPRE, int WHEN, int H, int I>
__device__ __forceinline__ void dpre_routed(const GateUpParams& p, int e, int c, int n) {
  if constexpr (dpre_when(DPRE) != WHEN) return;
  if (p.dw2 == nullptr || threadIdx.x != 0) return;
  const unsigned char* w = p.dw2 + static_cast<long long>(e) * H * (I / 2);
  const unsigned char* sf = p.dw2_sf + e * swizzled_block_bytes(H, I);
#pragma unroll
  for (int j = 0; j < gate_up_dpre_copies(MOEGEMV_GU_DPREK, n); ++j)
    dpre_block<H, I, DPRE != 3>(w, sf, gate_up_dpre_copy(c, j, MOEGEMV_GU_DPREK, n), n);
}

// A shared-expert CTA of the first token chunk (share `tile` of SI / 8): the shared down block.
template <int DPRE, int WHEN, int H, int SI>
__device__ __forceinline__ void dpre_shared(const GateUpParams& p, int tile, int chunk) {
  if constexpr (dpre_when(DPRE) != WHEN) return;
  if (p.dwsd == nullptr || chunk != 0 || threadIdx.x != 0) return;
  constexpr int n = SI / kTileFeatures;
#pragma unroll
  for (int j = 0; j < gate_up_dpre_copies(MOEGEMV_GU_DPREK, n); ++j) {
    const int share = gate_up_dpre_copy(tile, j, MOEGEMV_GU_DPREK, n);
    dpre_block<H, SI, DPRE != 3>(p.dwsd, p.dssd, share, n);
  }
}

}  // namespace moegemv
