// The warp-level core shared by both kernels: the dot products of one 16-row NVFP4 tile with up
// to 8 bf16 columns over a range of K, on mma.m16n8k16 with the weights as A.
//
// Lane (g = lane / 4, t = lane % 4) owns tile rows g and g + 8. A 128-element step reads 16
// bytes of each of its rows at element 32t: four u32 words, each 8 elements = 2 mma k-slices.
// The mma's k order inside a step is a permutation of the physical one (elements p and p + 4 of a
// word form one bf16x2), and the B operand is stored in the same permutation, so the sum is the
// same dot product.
#pragma once

#include "nvfp4.cuh"
#include "ptx.cuh"

namespace moegemv {

struct TileRows {
  const unsigned char* w_lo;   // this lane's row g, element 0
  const unsigned char* w_hi;   // row g + 8
  const unsigned char* sf_lo;  // swizzled scale row base of row g (nvfp4::swizzle_row_offset)
  const unsigned char* sf_hi;
};

// B operand staged in shared memory: 8-element groups stored as {x0,x4},{x1,x5},{x2,x6},{x3,x7}.
struct SmemB {
  const ptx::U32x4* groups;
  __device__ __forceinline__ ptx::U32x4 group(int g) const { return groups[g]; }
};

// Same permutation applied on the fly to a bf16 row in global memory (null row = zero column).
__device__ __forceinline__ ptx::U32x4 permute_group(ptx::U32x4 v) {
  ptx::U32x4 r;
  r.x = ptx::prmt(v.x, v.z, 0x5410);
  r.y = ptx::prmt(v.x, v.z, 0x7632);
  r.z = ptx::prmt(v.y, v.w, 0x5410);
  r.w = ptx::prmt(v.y, v.w, 0x7632);
  return r;
}

struct GlobalB {
  const unsigned short* row;  // nullptr: this lane's column is beyond M
  __device__ __forceinline__ ptx::U32x4 group(int g) const {
    if (row == nullptr) return ptx::U32x4{0, 0, 0, 0};
    return permute_group(ptx::ld_nc_v4(row + 8 * g));
  }
};

// Copies n bf16 (n % 8 == 0) into shared memory in the SmemB permutation, all threads of the CTA.
__device__ __forceinline__ void stage_permuted(const unsigned short* src, int n, ptx::U32x4* dst) {
  for (int g = threadIdx.x; g < n / 8; g += blockDim.x) dst[g] = permute_group(ptx::ld_v4(src + 8 * g));
}

struct Step {
  ptx::U32x4 lo, hi;           // 32 elements of rows g and g + 8
  unsigned short s_lo, s_hi;   // the two e4m3 scales (k-blocks 2t, 2t + 1) of each row
};

__device__ __forceinline__ void load_step(const TileRows& r, int e0, int t,
                                          unsigned long long pol, Step& s) {
  const int byte = e0 / 2 + 16 * t;
  s.lo = ptx::ld_stream_v4(r.w_lo + byte, pol);
  s.hi = ptx::ld_stream_v4(r.w_hi + byte, pol);
  // k-blocks e0/16 + 2t and + 1 sit in u32 group e0/64 + t/2 at bytes (2t) % 4 and + 1.
  const int off = (e0 / 64 + (t >> 1)) * 512 + (t & 1) * 2;
  s.s_lo = ptx::ld_nc_u16(r.sf_lo + off);
  s.s_hi = ptx::ld_nc_u16(r.sf_hi + off);
}

template <int P0>
__device__ __forceinline__ void mma_word(float (&c)[4], unsigned int lo, unsigned int hi,
                                         unsigned int s_lo, unsigned int s_hi, unsigned int b0,
                                         unsigned int b1) {
  ptx::mma_bf16(c, nvfp4::dequant_pair<P0>(lo, s_lo), nvfp4::dequant_pair<P0>(hi, s_hi),
                nvfp4::dequant_pair<P0 + 1>(lo, s_lo), nvfp4::dequant_pair<P0 + 1>(hi, s_hi), b0,
                b1);
}

template <class B>
__device__ __forceinline__ void word_mmas(float (&c)[4], unsigned int lo, unsigned int hi,
                                          unsigned int s_lo, unsigned int s_hi, const B& b,
                                          int group) {
  const ptx::U32x4 x = b.group(group);
  mma_word<0>(c, lo, hi, s_lo, s_hi, x.x, x.y);
  mma_word<2>(c, lo, hi, s_lo, s_hi, x.z, x.w);
}

template <class B>
__device__ __forceinline__ void compute_step(const Step& s, int e0, int t, const B& b,
                                             float (&c)[4]) {
  unsigned int lo0, lo1, hi0, hi1;
  nvfp4::scale_pair_bf16x2(s.s_lo, lo0, lo1);
  nvfp4::scale_pair_bf16x2(s.s_hi, hi0, hi1);
  const int g0 = e0 / 8 + 4 * t;
  word_mmas(c, s.lo.x, s.hi.x, lo0, hi0, b, g0 + 0);
  word_mmas(c, s.lo.y, s.hi.y, lo0, hi0, b, g0 + 1);
  word_mmas(c, s.lo.z, s.hi.z, lo1, hi1, b, g0 + 2);
  word_mmas(c, s.lo.w, s.hi.w, lo1, hi1, b, g0 + 3);
}

// A trailing 64-element step: 8 bytes per row per lane at element 16t, one k-block (e0/16 + t).
template <class B>
__device__ __forceinline__ void tail_step(const TileRows& r, int e0, int t,
                                          unsigned long long pol, const B& b, float (&c)[4]) {
  unsigned int lo_a, lo_b, hi_a, hi_b;
  const int byte = e0 / 2 + 8 * t;
  ptx::ld_stream_v2(r.w_lo + byte, pol, lo_a, lo_b);
  ptx::ld_stream_v2(r.w_hi + byte, pol, hi_a, hi_b);
  const int off = (e0 / 64) * 512 + t;
  const unsigned short two =
      static_cast<unsigned short>(ptx::ld_nc_u8(r.sf_lo + off) | (ptx::ld_nc_u8(r.sf_hi + off) << 8));
  unsigned int s_lo, s_hi;
  nvfp4::scale_pair_bf16x2(two, s_lo, s_hi);
  const int g0 = e0 / 8 + 2 * t;
  word_mmas(c, lo_a, hi_a, s_lo, s_hi, b, g0 + 0);
  word_mmas(c, lo_b, hi_b, s_lo, s_hi, b, g0 + 1);
}

// One warp's dot products over elements [e0, e1) (multiples of 64) of one tile, kPipe 128-element
// steps in flight. start() issues the first kPipe steps' loads (it may run before griddepcontrol.wait: weights never depend on
// the previous kernel); finish() runs the pipelined loop and accumulates into c.
template <int kPipe>
struct TileDot {
  Step ring[kPipe];
  int e0, nfull;
  bool tail;

  __device__ __forceinline__ void start(const TileRows& r, int first, int last, int t,
                                        unsigned long long pol) {
    e0 = first;
    nfull = (last - first) / 128;
    tail = ((last - first) % 128) != 0;
#pragma unroll
    for (int i = 0; i < kPipe; ++i)
      if (i < nfull) load_step(r, e0 + 128 * i, t, pol, ring[i]);
  }

  template <class B>
  __device__ __forceinline__ void finish(const TileRows& r, int t, unsigned long long pol,
                                         const B& b, float (&c)[4]) {
    for (int s = 0; s < nfull; s += kPipe) {
#pragma unroll
      for (int i = 0; i < kPipe; ++i) {
        if (s + i < nfull) {
          const Step cur = ring[i];
          if (s + i + kPipe < nfull) load_step(r, e0 + 128 * (s + i + kPipe), t, pol, ring[i]);
          compute_step(cur, e0 + 128 * (s + i), t, b, c);
        }
      }
    }
    if (tail) tail_step(r, e0 + 128 * nfull, t, pol, b, c);
  }
};

}  // namespace moegemv
