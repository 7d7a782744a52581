// The streaming-read ceiling for the benchmark: every byte of a buffer read once with 16-byte
// loads, as the GEMV kernels read weights, folded into one word so that nothing is optimized away.
#pragma once

#include "params.h"
#include "ptx.cuh"

namespace moegemv {

__device__ __forceinline__ void stream_read(const ptx::U32x4* data, unsigned long long n,
                                            unsigned int* sink) {
  const unsigned long long policy = ptx::evict_first_policy();
  unsigned int acc = 0;
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
    const ptx::U32x4 a = ptx::ld_stream_v4(data + i, policy);
    const ptx::U32x4 b = ptx::ld_stream_v4(data + i + stride, policy);
    const ptx::U32x4 c = ptx::ld_stream_v4(data + i + 2 * stride, policy);
    const ptx::U32x4 d = ptx::ld_stream_v4(data + i + 3 * stride, policy);
    acc ^= a.x ^ a.y ^ a.z ^ a.w ^ b.x ^ b.y ^ b.z ^ b.w ^ c.x ^ c.y ^ c.z ^ c.w ^ d.x ^ d.y ^ d.z ^ d.w;
  }
  for (; i < n; i += stride) {
    const ptx::U32x4 a = ptx::ld_stream_v4(data + i, policy);
    acc ^= a.x ^ a.y ^ a.z ^ a.w;
  }
  if (acc == 0x9E3779B9u) *sink = acc;  // practically never true; keeps the loads alive
}

}  // namespace moegemv
