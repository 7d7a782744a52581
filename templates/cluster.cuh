// Thread-block cluster primitives (sm_90+): a CTA's rank in its cluster, stores into another
// CTA's shared memory (distributed shared memory), and the cluster-wide barrier. A kernel that
// uses them must be launched with a cluster dimension (LaunchConfig::cluster).
#pragma once

#include "ptx.cuh"

namespace moegemv::cluster {

__device__ __forceinline__ unsigned int rank() {
  unsigned int r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
__device__ __forceinline__ unsigned int size() {
  unsigned int n;
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(n));
  return n;
}

// The address of this CTA's shared-memory address `local` (shared_addr) in CTA `target`'s.
__device__ __forceinline__ unsigned int map(unsigned int local, unsigned int target) {
  unsigned int remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(target));
  return remote;
}
__device__ __forceinline__ void store_v4(unsigned int remote, ptx::U32x4 v) {
  asm volatile("st.shared::cluster.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(remote), "r"(v.x),
               "r"(v.y), "r"(v.z), "r"(v.w)
               : "memory");
}

// An asynchronous 16-byte store into CTA shared memory at `remote` (map) that completes 16 bytes
// of transactions on the mbarrier at `remote_bar` of the same CTA (release at cluster scope): the
// receiver waits on its own barrier (wait_acquire) and no cluster barrier is needed.
__device__ __forceinline__ void store_async_v4(unsigned int remote, ptx::U32x4 v,
                                               unsigned int remote_bar) {
  asm volatile(
      "st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [%0], {%1, %2, %3, %4}, [%5];"
      ::"r"(remote), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w), "r"(remote_bar)
      : "memory");
}

// Waits until the phase of the given parity of this CTA's mbarrier has completed, with acquire at
// cluster scope (the data other CTAs stored before completing it is then visible).
__device__ __forceinline__ void wait_acquire(unsigned int bar, unsigned int parity) {
  unsigned int done = 0;
  while (!done) {
    asm volatile(
        "{ .reg .pred p; mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2; "
        "selp.u32 %0, 1, 0, p; }"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
  }
}

// Every thread of every CTA of the cluster: the stores before it are visible to the loads after.
__device__ __forceinline__ void sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::
                   : "memory");
}

}  // namespace moegemv::cluster
