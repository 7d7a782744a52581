// A diagnostic for the benchmark: reads a [rows, row_bytes] matrix with the GEMV tiles' access
// pattern, to tell how fast that pattern alone can stream from HBM. A CTA owns 16 rows; its kWarps
// warps split each row into contiguous parts; per step a warp reads kChunk bytes of each of its
// 16 rows (the GEMV kernels read 64), kPipe steps in flight. kRounds: synthetic work per 16-byte
// load before the next step's loads, 4 independent dependent chains of kRounds instructions of
// kind kWork (0 IMAD, 1 bf16x2 multiply, 2 f32x2 -> bf16x2 conversion, 3 PRMT, 4 LOP3: the
// GEMV's kinds; 3 and 4 since session 10's PRMT decode);
// the GEMV spends 88 instructions per 16 bytes of weights; 0 rounds = no arithmetic.
#pragma once

#include "params.h"
#include "ptx.cuh"

namespace moegemv {

// One synthetic instruction of kind kWork (see above) on a and b.
template <int kWork>
__device__ __forceinline__ unsigned int work_op(unsigned int a, unsigned int b, unsigned int k) {
  if constexpr (kWork == 1) return ptx::mul_bf16x2(a, b);
  else if constexpr (kWork == 2) return ptx::f32x2_to_bf16x2(__uint_as_float(a), __uint_as_float(b));
  else if constexpr (kWork == 3) return ptx::prmt(a, b, 0x6152u);
  else if constexpr (kWork == 4) return ptx::xor3(a, b, k);
  else return a * k + b;
}

template <int kChunk, int kPipe, int kWarps, int kRounds, int kWork>
__device__ __forceinline__ void tile_read(const unsigned char* data, int row_bytes,
                                          unsigned int* sink) {
  constexpr int kLanesPerRow = kChunk / 16;
  constexpr int kRowsPerLoad = 32 / kLanesPerRow;
  constexpr int kLoads = 16 / kRowsPerLoad;  // 16-byte loads per lane per step
  const unsigned long long policy = ptx::evict_first_policy();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int part = row_bytes / kWarps;
  const unsigned char* base = data + static_cast<long long>(blockIdx.x) * 16 * row_bytes +
                              static_cast<long long>(lane / kLanesPerRow) * row_bytes +
                              warp * part + (lane % kLanesPerRow) * 16;
  // A register ring like tile.cuh's TileDot: each slot is used, then refilled kPipe steps ahead.
  const int steps = part / kChunk;
  auto load = [&](int step, ptx::U32x4 (&dst)[kLoads]) {
#pragma unroll
    for (int j = 0; j < kLoads; ++j)
      dst[j] = ptx::ld_stream_v4(base + static_cast<long long>(j) * kRowsPerLoad * row_bytes + step * kChunk,
                                 policy);
  };
  unsigned int acc = 0;
  ptx::U32x4 v[kPipe][kLoads];
#pragma unroll
  for (int i = 0; i < kPipe; ++i)
    if (i < steps) load(i, v[i]);
  for (int s = 0; s < steps; s += kPipe) {
#pragma unroll
    for (int i = 0; i < kPipe; ++i) {
      if (s + i >= steps) break;
#pragma unroll
      for (int j = 0; j < kLoads; ++j) {
        ptx::U32x4 w = v[i][j];
#pragma unroll
        for (int r = 0; r < kRounds; ++r) {
          w.x = work_op<kWork>(w.x, w.y, 0x9E3779B1u);
          w.y = work_op<kWork>(w.y, w.z, 0x85EBCA77u);
          w.z = work_op<kWork>(w.z, w.w, 0xC2B2AE3Du);
          w.w = work_op<kWork>(w.w, w.x, 0x27D4EB2Fu);
        }
        acc ^= w.x ^ w.y ^ w.z ^ w.w;
      }
      if (s + i + kPipe < steps) load(s + i + kPipe, v[i]);
    }
  }
  if (acc == 0x9E3779B9u) *sink = acc;  // practically never true; keeps the loads alive
}

}  // namespace moegemv
