// The warp-level core shared by both kernels: the dot products of one 16-row NVFP4 tile with up
// to 8 bf16 columns over a range of K, on mma.m16n8k16 with the weights as A.
//
// Lane (g = lane / 4, t = lane % 4) owns tile rows g and g + 8. A 128-element step reads 16
// bytes of each of its rows at element 32t: four u32 words, each 8 elements = 2 mma k-slices.
// The mma's k order inside a step is a permutation of the physical one (the decode's pairs of a
// word, nvfp4.cuh: elements {0, 2}, {1, 3}, {4, 6}, {5, 7} form its bf16x2s), and the B operand
// is stored in the same permutation, so the sum is the same dot product.
#pragma once

#include "nvfp4.cuh"
#include "ptx.cuh"

namespace moegemv {

// Splits `chunks` 64-element chunks over `parts` warps in units of 4 (one 256-element ring
// step); the last part also takes the remainder. Yields part `i`'s [first, last) in chunks.
__device__ __forceinline__ void split_chunks(int chunks, int i, int parts, int& first, int& last) {
  const int units = chunks / 4;
  first = 4 * (i * units / parts);
  last = i == parts - 1 ? chunks : 4 * ((i + 1) * units / parts);
}

struct TileRows {
  const unsigned char* w_lo;   // this lane's row g, element 0
  const unsigned char* w_hi;   // row g + 8
  const unsigned char* sf_lo;  // swizzled scale row base of row g (nvfp4::swizzle_row_offset)
  const unsigned char* sf_hi;
};

// T if kFirst, else F (the templates take no toolkit or standard headers).
template <bool kFirst, class T, class F>
struct Pick {
  using type = T;
};
template <class T, class F>
struct Pick<false, T, F> {
  using type = F;
};

// The type of a B group index (MOEGEMV_B_INDEX): int lets the compiler fold a step's group offsets
// into the shared loads' immediate offsets; with unsigned (0), whose sums may wrap, it cannot and
// computes each address (a VIADD and a LEA per load in the split tile's loop).
using BIndex = typename Pick<MOEGEMV_B_INDEX != 0, int, unsigned>::type;

// B operand staged in shared memory: 8-element groups stored as {x0,x2},{x1,x3},{x4,x6},{x5,x7}
// (the decode's pairs, decode_pair_element).
// A B source provides a per-step Cache filled by fetch() when the step's weights are loaded
// (so global B loads ride in the same pipeline) and read by group().
struct SmemB {
  const ptx::U32x4* groups;
  struct Cache {};
  __device__ __forceinline__ void fetch(unsigned, unsigned, Cache&) const {}
  __device__ __forceinline__ ptx::U32x4 group(const Cache&, unsigned g0, unsigned w) const {
    return groups[static_cast<BIndex>(g0) + static_cast<BIndex>(w)];
  }
};

// Same permutation applied on the fly to a bf16 row in global memory (null row = zero column).
__device__ __forceinline__ ptx::U32x4 permute_group(ptx::U32x4 v) {
  ptx::U32x4 r;
  r.x = ptx::prmt(v.x, v.y, 0x5410);  // {x0, x2}
  r.y = ptx::prmt(v.x, v.y, 0x7632);  // {x1, x3}
  r.z = ptx::prmt(v.z, v.w, 0x5410);  // {x4, x6}
  r.w = ptx::prmt(v.z, v.w, 0x7632);  // {x5, x7}
  return r;
}

struct GlobalB {
  const unsigned short* row;  // nullptr: this lane's column is beyond M
  struct Cache {
    ptx::U32x4 raw[4];
  };
  // n: groups to fetch (4 for a full step, 2 for a tail step).
  // MOEGEMV_B_INDEX 1: the step's first group addressed once, the others at immediate offsets.
  __device__ __forceinline__ void fetch(unsigned g0, unsigned n, Cache& c) const {
    if constexpr (MOEGEMV_B_INDEX != 0) {
      const unsigned short* step = row + 8 * static_cast<unsigned long long>(g0);
      const bool any = row != nullptr;
#pragma unroll
      for (unsigned w = 0; w < 4; ++w) c.raw[w] = ptx::U32x4{0, 0, 0, 0};
      if (any) {
#pragma unroll
        for (unsigned w = 0; w < 4; ++w)
          if (w < n) c.raw[w] = ptx::ld_nc_v4(step + 8 * w);
      }
    } else {
#pragma unroll
      for (unsigned w = 0; w < 4; ++w)
        c.raw[w] = (row != nullptr && w < n) ? ptx::ld_nc_v4(row + 8 * (g0 + w))
                                             : ptx::U32x4{0, 0, 0, 0};
    }
  }
  __device__ __forceinline__ ptx::U32x4 group(const Cache& c, unsigned, unsigned w) const {
    return permute_group(c.raw[w]);
  }
};

// The B source of a kernel config: read per step from global memory, or staged in shared memory.
template <bool kDirect>
using BSource = typename Pick<kDirect, GlobalB, SmemB>::type;

// Stages `groups` 8-element groups into shared memory in the SmemB permutation, all threads of
// the CTA; src(g) is group g's address. A thread issues kBatch loads before its first store, so
// the CTA waits about one load latency per kBatch groups per thread, not one per group (profiled:
// the one-at-a-time version was the top stall of gate_up once the weights came through the ring).
// Loads use the non-coherent path: callers stage only after griddepcontrol.wait. stage_groups_by:
// the same over threads [0, threads) only (the streaming kernels' consumer warps), each permuted
// group passed through `post` before its store.
struct KeepGroup {
  __device__ __forceinline__ ptx::U32x4 operator()(ptx::U32x4 v) const { return v; }
};
// stage_groups_put: the loop alone, put(g, group) storing each permuted group (a cluster's
// shared staging stores it into every CTA of the cluster: down_cluster_act.cuh).
template <int kBatch = 8, class Src, class Put>
__device__ __forceinline__ void stage_groups_put(int tid, int threads, int groups, Src src,
                                                 Put put) {
  for (int g0 = tid; g0 < groups; g0 += kBatch * threads) {
    ptx::U32x4 v[kBatch];
#pragma unroll
    for (int i = 0; i < kBatch; ++i) {
      const int g = g0 + i * threads;
      if (g < groups) v[i] = ptx::ld_nc_v4(src(g));
    }
#pragma unroll
    for (int i = 0; i < kBatch; ++i) {
      const int g = g0 + i * threads;
      if (g < groups) put(g, permute_group(v[i]));
    }
  }
}
template <int kBatch = 8, class Src, class Post = KeepGroup>
__device__ __forceinline__ void stage_groups_by(int tid, int threads, int groups, Src src,
                                                ptx::U32x4* dst, Post post = {}) {
  stage_groups_put<kBatch>(tid, threads, groups, src,
                           [&](int g, ptx::U32x4 v) { dst[g] = post(v); });
}
template <int kBatch = 8, class Src>
__device__ __forceinline__ void stage_groups(int groups, Src src, ptx::U32x4* dst) {
  stage_groups_by<kBatch>(threadIdx.x, blockDim.x, groups, src, dst);
}

// One warp's slice [first, last) of x (elements, multiples of 8) staged in two halves: load()
// issues the loads into registers (up to kN groups per lane; it may run before the loads the
// caller wants to overlap with), store() writes them in the SmemB permutation, stages any
// remainder synchronously and syncs the warp. Only this warp reads the slice, so no CTA barrier.
template <int kN>
struct XSlice {
  ptx::U32x4 v[kN];
  int g_first, g_count;

  __device__ __forceinline__ void load(const unsigned short* x, int first, int last, int lane) {
    g_first = first / 8;
    g_count = (last - first) / 8;
#pragma unroll
    for (int i = 0; i < kN; ++i)
      if (lane + 32 * i < g_count) v[i] = ptx::ld_nc_v4(x + 8 * (g_first + lane + 32 * i));
  }
  // post: applied to each permuted group before its store (split_after.cuh scales x).
  template <class Post = KeepGroup>
  __device__ __forceinline__ void store(const unsigned short* x, int lane, ptx::U32x4* xs,
                                        Post post = {}) const {
#pragma unroll
    for (int i = 0; i < kN; ++i)
      if (lane + 32 * i < g_count) xs[g_first + lane + 32 * i] = post(permute_group(v[i]));
    if (g_count > 32 * kN) {
      const int done = 32 * kN, rest = g_count - done, g0 = g_first + done;
      stage_groups_by(lane, 32, rest, [x, g0](int g) { return x + 8 * (g0 + g); }, xs + g0, post);
    }
    __syncwarp();
  }
};

// Copies n bf16 (n % 8 == 0) into shared memory in the SmemB permutation, all threads of the CTA.
__device__ __forceinline__ void stage_permuted(const unsigned short* src, int n, ptx::U32x4* dst) {
  stage_groups(n / 8, [src](int g) { return src + 8 * g; }, dst);
}

template <class B>
struct Step {
  ptx::U32x4 lo, hi;           // 32 elements of rows g and g + 8
  unsigned short s_lo, s_hi;   // the two e4m3 scales (k-blocks 2t, 2t + 1) of each row
  typename B::Cache b;         // the step's B operand when it comes from global memory
};

// Per-lane read positions of one 128-element step: weights advance 64 bytes per step, the
// scale u16 of k-blocks 2t, 2t+1 (u32 group e0/64 + t/2, bytes (2t) % 4 and + 1) advances two
// 512-byte atoms. Unrolled steps address these with immediate offsets.
struct StepPtrs {
  const unsigned char *w_lo, *w_hi, *s_lo, *s_hi;

  __device__ __forceinline__ StepPtrs(const TileRows& r, unsigned e0, unsigned t) {
    const unsigned w = e0 / 2 + 16 * t;
    const unsigned s = (e0 / 64 + (t >> 1)) * 512 + (t & 1) * 2;
    w_lo = r.w_lo + w;
    w_hi = r.w_hi + w;
    s_lo = r.sf_lo + s;
    s_hi = r.sf_hi + s;
  }
  template <class S>
  __device__ __forceinline__ void load(int step, unsigned long long pol, S& out) const {
    out.lo = ptx::ld_stream_v4(w_lo + 64 * step, pol);
    out.hi = ptx::ld_stream_v4(w_hi + 64 * step, pol);
    out.s_lo = ptx::ld_nc_u16(s_lo + 1024 * step);
    out.s_hi = ptx::ld_nc_u16(s_hi + 1024 * step);
  }
  __device__ __forceinline__ void advance(int steps) {
    w_lo += 64 * steps;
    w_hi += 64 * steps;
    s_lo += 1024 * steps;
    s_hi += 1024 * steps;
  }
  // Moves weights by dw bytes and scales by ds bytes (other rows of the same expert).
  __device__ __forceinline__ void shift(long long dw, int ds) {
    w_lo += dw;
    w_hi += dw;
    s_lo += ds;
    s_hi += ds;
  }
};

// The two mma k-slices of one decoded word of row g (a) and of row g + 8 (h) against the B group
// x (8 elements, the SmemB permutation of the decode's pairs).
__device__ __forceinline__ void word_pair_mmas(float (&c)[4], const unsigned int (&a)[4],
                                               const unsigned int (&h)[4], const ptx::U32x4& x) {
  ptx::mma_bf16(c, a[0], h[0], a[1], h[1], x.x, x.y);
  ptx::mma_bf16(c, a[2], h[2], a[3], h[3], x.z, x.w);
}

// The two mma k-slices of word w of rows g / g + 8 against the B group x (8 elements).
__device__ __forceinline__ void word_mmas_x(float (&c)[4], unsigned int lo, unsigned int hi,
                                            unsigned int s_lo, unsigned int s_hi, const ptx::U32x4& x) {
  unsigned int a[4], h[4];
  nvfp4::dequant_word(lo, s_lo, a);
  nvfp4::dequant_word(hi, s_hi, h);
  word_pair_mmas(c, a, h, x);
}
template <class B>
__device__ __forceinline__ void word_mmas(float (&c)[4], unsigned int lo, unsigned int hi,
                                          unsigned int s_lo, unsigned int s_hi, const B& b,
                                          const typename B::Cache& cache, unsigned g0, unsigned w) {
  word_mmas_x(c, lo, hi, s_lo, s_hi, b.group(cache, g0, w));
}

// g0: this lane's first B group of the step (e0 / 8 + 4t).
template <class B>
__device__ __forceinline__ void compute_step(const Step<B>& s, unsigned g0, const B& b,
                                             float (&c)[4]) {
  unsigned int lo0, lo1, hi0, hi1;
  nvfp4::scale_pair_bf16x2(s.s_lo, lo0, lo1);
  nvfp4::scale_pair_bf16x2(s.s_hi, hi0, hi1);
  word_mmas(c, s.lo.x, s.hi.x, lo0, hi0, b, s.b, g0, 0);
  word_mmas(c, s.lo.y, s.hi.y, lo0, hi0, b, s.b, g0, 1);
  word_mmas(c, s.lo.z, s.hi.z, lo1, hi1, b, s.b, g0, 2);
  word_mmas(c, s.lo.w, s.hi.w, lo1, hi1, b, s.b, g0, 3);
}

// A trailing 64-element step: 8 bytes per row per lane at element 16t, one k-block (e0/16 + t).
template <class B>
__device__ __forceinline__ void tail_step(const TileRows& r, unsigned e0, unsigned t,
                                          unsigned long long pol, const B& b, float (&c)[4]) {
  unsigned int lo_a, lo_b, hi_a, hi_b;
  const unsigned byte = e0 / 2 + 8 * t;
  ptx::ld_stream_v2(r.w_lo + byte, pol, lo_a, lo_b);
  ptx::ld_stream_v2(r.w_hi + byte, pol, hi_a, hi_b);
  const unsigned off = (e0 / 64) * 512 + t;
  const unsigned short two =
      static_cast<unsigned short>(ptx::ld_nc_u8(r.sf_lo + off) | (ptx::ld_nc_u8(r.sf_hi + off) << 8));
  unsigned int s_lo, s_hi;
  nvfp4::scale_pair_bf16x2(two, s_lo, s_hi);
  const BIndex g0 = static_cast<BIndex>(e0 / 8 + 2 * t);
  typename B::Cache cache;
  b.fetch(g0, 2, cache);
  word_mmas(c, lo_a, hi_a, s_lo, s_hi, b, cache, g0, 0);
  word_mmas(c, lo_b, hi_b, s_lo, s_hi, b, cache, g0, 1);
}

// The register ring's walk over `steps` steps, kPipe in flight (the scale-after tiles; TileDot
// and SplitDot keep their own copies, whose generated code it would change): step(i, j)
// consumes ring slot i, which holds step j; refill(i, j) loads step j into slot i (always kPipe
// after the step just consumed, so no registers are copied); advance() moves the pointers and B
// index kPipe steps on after each round.
template <int kPipe, class StepFn, class RefillFn, class AdvanceFn>
__device__ __forceinline__ void ring_walk(int steps, StepFn step, RefillFn refill, AdvanceFn advance) {
  int s = 0;
  for (; s + kPipe <= steps; s += kPipe) {
#pragma unroll
    for (int i = 0; i < kPipe; ++i) {
      step(i, s + i);
      if (s + i + kPipe < steps) refill(i, s + i + kPipe);
    }
    advance();
  }
#pragma unroll
  for (int i = 0; i < kPipe; ++i)
    if (s + i < steps) step(i, s + i);
}

// One warp's dot products over elements [first, last) (multiples of 64) of one tile, kPipe
// 128-element steps in flight. start() issues the first kPipe steps' loads (it may run before
// griddepcontrol.wait: weights never depend on the previous kernel); finish() runs the
// pipelined loop and accumulates into c. Each ring slot is consumed, then refilled with the
// step kPipe ahead, so no registers are copied.
template <int kPipe, class B>
struct TileDot {
  Step<B> ring[kPipe];
  unsigned e0, t;
  int nfull;
  bool tail;

  // Weights only: may run before griddepcontrol.wait.
  __device__ __forceinline__ void start(const TileRows& r, int first, int last, int lane_t,
                                        unsigned long long pol) {
    e0 = static_cast<unsigned>(first);
    t = static_cast<unsigned>(lane_t);
    nfull = (last - first) / 128;
    tail = ((last - first) % 128) != 0;
    const StepPtrs ptrs(r, e0, t);
#pragma unroll
    for (int i = 0; i < kPipe; ++i)
      if (i < nfull) ptrs.load(i, pol, ring[i]);
  }

  __device__ __forceinline__ void finish(const TileRows& r, int lane_t, unsigned long long pol,
                                         const B& b, float (&c)[4]) {
    StepPtrs ptrs(r, e0, t);
    BIndex g0 = static_cast<BIndex>(e0 / 8 + 4 * t);
    // B of the steps start() loaded (it could not: B may be the previous kernel's output).
#pragma unroll
    for (int i = 0; i < kPipe; ++i)
      if (i < nfull) b.fetch(g0 + 16 * i, 4, ring[i].b);
    int s = 0;
    for (; s + kPipe <= nfull; s += kPipe) {
#pragma unroll
      for (int i = 0; i < kPipe; ++i) {
        compute_step(ring[i], g0 + 16 * i, b, c);
        if (s + i + kPipe < nfull) {
          ptrs.load(i + kPipe, pol, ring[i]);
          b.fetch(g0 + 16 * (i + kPipe), 4, ring[i].b);
        }
      }
      ptrs.advance(kPipe);
      g0 += 16 * kPipe;
    }
#pragma unroll
    for (int i = 0; i < kPipe; ++i)
      if (s + i < nfull) compute_step(ring[i], g0 + 16 * i, b, c);
    if (tail) tail_step(r, e0 + 128 * static_cast<unsigned>(nfull), t, pol, b, c);
  }
};

}  // namespace moegemv
