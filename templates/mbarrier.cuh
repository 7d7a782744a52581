// Inline-PTX helpers for the streaming kernels (stream.cuh): shared-memory mbarriers, the bulk
// copy engine (cp.async.bulk, sm_90) and per-thread cp.async completing on an mbarrier.
//
// Why these: a bulk copy moves a whole row piece (hundreds of bytes to kilobytes) from global to
// shared memory with one instruction and no registers, so the bytes in flight per SM are bounded
// by shared memory (~200 KB), not by registers (~34 KB measured for the register ring), and each
// request streams long contiguous runs (the read pattern that reaches the ceiling, PERF.md diag).
#pragma once

namespace moegemv::ptx {

__device__ __forceinline__ void mbar_init(unsigned int bar, unsigned int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}

// Makes the initialized barriers visible to the async proxy (the copy engine) before first use.
__device__ __forceinline__ void fence_barrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

// One arrival that also raises the phase's expected transaction bytes.
__device__ __forceinline__ void mbar_arrive_expect_tx(unsigned int bar, unsigned int bytes) {
  asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;" ::"r"(bar),
               "r"(bytes)
               : "memory");
}

__device__ __forceinline__ void mbar_arrive(unsigned int bar) {
  asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}

// True once the phase of the given parity has completed (acquire: its data is then visible).
__device__ __forceinline__ bool mbar_try_wait(unsigned int bar, unsigned int parity) {
  unsigned int done;
  asm volatile(
      "{ .reg .pred p; mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [%1], %2; "
      "selp.u32 %0, 1, 0, p; }"
      : "=r"(done)
      : "r"(bar), "r"(parity)
      : "memory");
  return done != 0;
}

// The same test, suspending at most about `ns` nanoseconds while the phase is incomplete: for a
// warp whose lanes wait on different barriers (a converged try_wait returns once every lane has
// its answer, so a short bound keeps one lane's wait from holding up the others).
__device__ __forceinline__ bool mbar_try_wait_for(unsigned int bar, unsigned int parity, unsigned int ns) {
  unsigned int done;
  asm volatile(
      "{ .reg .pred p; mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [%1], %2, %3; "
      "selp.u32 %0, 1, 0, p; }"
      : "=r"(done)
      : "r"(bar), "r"(parity), "r"(ns)
      : "memory");
  return done != 0;
}

// The test alone, never suspending.
__device__ __forceinline__ bool mbar_test_wait(unsigned int bar, unsigned int parity) {
  unsigned int done;
  asm volatile(
      "{ .reg .pred p; mbarrier.test_wait.parity.acquire.cta.shared::cta.b64 p, [%1], %2; "
      "selp.u32 %0, 1, 0, p; }"
      : "=r"(done)
      : "r"(bar), "r"(parity)
      : "memory");
  return done != 0;
}

__device__ __forceinline__ void mbar_wait(unsigned int bar, unsigned int parity) {
  while (!mbar_try_wait(bar, parity)) {
  }
}

// Global -> shared bulk copy (bytes % 16 == 0, both addresses 16-byte aligned) that completes
// `bytes` transactions on `bar`. The weights are read once: evict-first policy in L2.
__device__ __forceinline__ void bulk_copy(unsigned int dst, const void* src, unsigned int bytes,
                                          unsigned int bar, unsigned long long policy) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint "
      "[%0], [%1], %2, [%3], %4;" ::"r"(dst),
      "l"(src), "r"(bytes), "r"(bar), "l"(policy)
      : "memory");
}

// The block scales are 4-byte pieces (one row's 4 k-blocks), too small for the bulk engine: the
// producer lanes copy them with cp.async and hand their completion to the same barrier.
__device__ __forceinline__ void cp_async4_ca(unsigned int dst, const void* src) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(dst), "l"(src) : "memory");
}

// An arrival on `bar` once all of this thread's earlier cp.async have landed. noinc: the
// barrier's expected count includes these arrivals (stream.cuh: 1 + 32 per phase).
__device__ __forceinline__ void cp_async_arrive_noinc(unsigned int bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(bar) : "memory");
}

// Named barrier among `threads` threads (whole warps; e.g. the consumer warps, leaving the
// producer out).
__device__ __forceinline__ void named_barrier(unsigned int id, unsigned int threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

}  // namespace moegemv::ptx
