// A diagnostic for the benchmark: reads a [rows, row_bytes] matrix with the GEMV tiles' access
// pattern and no arithmetic, to tell how fast that pattern alone can stream from HBM. A CTA owns
// 16 rows; its kWarps warps split each row into contiguous parts; per step a warp reads kChunk
// bytes of each of its 16 rows (the GEMV kernels read 64), kPipe steps in flight.
#pragma once

#include "params.h"
#include "ptx.cuh"

namespace moegemv {

template <int kChunk, int kPipe, int kWarps>
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
  unsigned int acc = 0;
  for (int off = 0; off + kPipe * kChunk <= part; off += kPipe * kChunk) {
    ptx::U32x4 v[kPipe][kLoads];
#pragma unroll
    for (int s = 0; s < kPipe; ++s)
#pragma unroll
      for (int j = 0; j < kLoads; ++j)
        v[s][j] = ptx::ld_stream_v4(base + static_cast<long long>(j) * kRowsPerLoad * row_bytes +
                                        off + s * kChunk,
                                    policy);
#pragma unroll
    for (int s = 0; s < kPipe; ++s)
#pragma unroll
      for (int j = 0; j < kLoads; ++j) acc ^= v[s][j].x ^ v[s][j].y ^ v[s][j].z ^ v[s][j].w;
  }
  if (acc == 0x9E3779B9u) *sink = acc;  // practically never true; keeps the loads alive
}

}  // namespace moegemv
