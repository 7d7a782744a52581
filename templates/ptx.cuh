// Inline-PTX helpers. Everything arch-specific is written here as PTX so that generated code
// needs no toolkit headers (fast NVRTC, hermetic cache key) and no compiler flag can change the
// arithmetic the SPEC pins down (mul.rn, ex2.approx.ftz, rcp.approx.ftz).
#pragma once

#include "timeline.cuh"

namespace moegemv::ptx {

struct U32x4 {
  unsigned int x, y, z, w;
};

// Weights are read exactly once per step: bypass L1 and mark the lines evict-first in L2 so that
// they do not push out the activations and scales that are reused.
__device__ __forceinline__ unsigned long long evict_first_policy() {
  unsigned long long policy;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  return policy;
}

__device__ __forceinline__ U32x4 ld_stream_v4(const void* ptr, unsigned long long policy) {
  U32x4 v;
  asm volatile(
      "ld.global.nc.L1::no_allocate.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
      : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
      : "l"(ptr), "l"(policy));
  return v;
}

__device__ __forceinline__ void ld_stream_v2(const void* ptr, unsigned long long policy,
                                             unsigned int& a, unsigned int& b) {
  asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.v2.u32 {%0, %1}, [%2], %3;"
               : "=r"(a), "=r"(b)
               : "l"(ptr), "l"(policy));
}

__device__ __forceinline__ unsigned short ld_nc_u16(const void* ptr) {
  unsigned short v;
  asm volatile("ld.global.nc.u16 %0, [%1];" : "=h"(v) : "l"(ptr));
  return v;
}

__device__ __forceinline__ unsigned int ld_nc_u32(const void* ptr) {
  unsigned int v;
  asm volatile("ld.global.nc.u32 %0, [%1];" : "=r"(v) : "l"(ptr));
  return v;
}

__device__ __forceinline__ unsigned int ld_nc_u8(const void* ptr) {
  unsigned int v;
  asm volatile("ld.global.nc.u8 %0, [%1];" : "=r"(v) : "l"(ptr));
  return v;
}

// Activations read per step after griddepcontrol.wait (the producer grid has completed): cached
// in L1, where the CTA's other warps find them; not volatile, so the compiler may hoist them.
__device__ __forceinline__ U32x4 ld_nc_v4(const void* ptr) {
  U32x4 v;
  asm("ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%4];"
      : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
      : "l"(ptr));
  return v;
}

// Warms L2 with a contiguous range (multiple of 16 bytes, 16-byte aligned) without using
// registers: how down_combine fetches its weights before it may read gate_up's output.
__device__ __forceinline__ void prefetch_l2(const void* ptr, unsigned int bytes) {
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(ptr), "r"(bytes) : "memory");
}

// One 128-byte line into L2 (no data returned, nothing to wait for).
__device__ __forceinline__ void prefetch_line_l2(const void* ptr) {
  asm volatile("prefetch.global.L2 [%0];" ::"l"(ptr));
}

// Asynchronous global -> shared copies (cp.async, sm_80+): the data waits in shared memory, not
// in registers, so a warp can keep many steps of weights in flight. Completion is tracked per
// thread in commit groups; wait<N> leaves at most the N most recent groups pending and makes the
// completed copies visible to this thread.
__device__ __forceinline__ unsigned int shared_addr(const void* ptr) {
  return static_cast<unsigned int>(__cvta_generic_to_shared(ptr));
}
__device__ __forceinline__ void cp_async16_stream(unsigned int dst, const void* src,
                                                  unsigned long long policy) {
  asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2;" ::"r"(dst), "l"(src),
               "l"(policy)
               : "memory");
}
__device__ __forceinline__ void cp_async4(unsigned int dst, const void* src) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(dst), "l"(src) : "memory");
}
__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;" ::: "memory");
}
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(kPending) : "memory");
}
__device__ __forceinline__ U32x4 ld_shared_v4(unsigned int addr) {
  U32x4 v;
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "r"(addr)
               : "memory");
  return v;
}
__device__ __forceinline__ unsigned short ld_shared_u16(unsigned int addr) {
  unsigned short v;
  asm volatile("ld.shared.u16 %0, [%1];" : "=h"(v) : "r"(addr) : "memory");
  return v;
}

// Programmatic dependent launch (sm_90). wait: blocks until the previous grid in the stream has
// completed and its memory is visible. launch_dependents: lets the next grid start its prologue.
__device__ __forceinline__ void griddep_wait() {
  asm volatile("griddepcontrol.wait;" ::: "memory");
  timeline::waited();  // nothing unless MOEGEMV_TIMELINE (diagnostic)
}
__device__ __forceinline__ void griddep_launch_dependents() {
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}

// D = A * B + D, bf16 inputs, fp32 accumulate. Fragment layout per PTX ISA (m16n8k16, row.col).
__device__ __forceinline__ void mma_bf16(float (&d)[4], unsigned int a0, unsigned int a1,
                                         unsigned int a2, unsigned int a3, unsigned int b0,
                                         unsigned int b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

__device__ __forceinline__ unsigned int mul_bf16x2(unsigned int a, unsigned int b) {
  unsigned int d;
  asm("mul.rn.bf16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
  return d;
}

// a & kMask, in asm so that the compiler keeps the masks we chose (it may otherwise re-derive
// its own around a PRMT or shift and spend an op more per word).
template <unsigned int kMask>
__device__ __forceinline__ unsigned int and_bits(unsigned int a) {
  unsigned int d;
  asm("and.b32 %0, %1, %2;" : "=r"(d) : "r"(a), "n"(kMask));
  return d;
}

// a ^ b ^ c as one LOP3 (asm: the compiler would fold a constant c into another form).
__device__ __forceinline__ unsigned int xor3(unsigned int a, unsigned int b, unsigned int c) {
  unsigned int d;
  asm("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
}

// The high half of x in both halves, on the FMA pipe instead of the integer ALU (a shift, PRMT
// or F2FP pack would take the ALU): a packed multiply by 1 of the high half broadcast (one HMUL2
// with the .H1_H1 operand). kBf16: the half as a bf16, else as an f16. Bit-exact where the half is
// a finite number of that format: x * 1 = x, and neither multiply flushes subnormals (no .ftz).
template <bool kBf16>
__device__ __forceinline__ unsigned int high_half_fma(unsigned int x) {
  unsigned int d;
  if constexpr (kBf16) {
    asm("{.reg .b16 lo, hi; .reg .b32 both, one;\n\t"
        "mov.b32 {lo, hi}, %1;\n\t"
        "mov.b32 both, {hi, hi};\n\t"
        "mov.b32 one, 0x3F803F80;\n\t"
        "mul.rn.bf16x2 %0, both, one;}"
        : "=r"(d)
        : "r"(x));
  } else {
    asm("{.reg .b16 lo, hi; .reg .b32 both, one;\n\t"
        "mov.b32 {lo, hi}, %1;\n\t"
        "mov.b32 both, {hi, hi};\n\t"
        "mov.b32 one, 0x3C003C00;\n\t"
        "mul.rn.f16x2 %0, both, one;}"
        : "=r"(d)
        : "r"(x));
  }
  return d;
}

__device__ __forceinline__ unsigned int prmt(unsigned int a, unsigned int b, unsigned int sel) {
  unsigned int d;
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(sel));
  return d;
}

// Two e4m3 bytes (low byte -> low half) to f16x2. Exact: every e4m3 value is a normal f16.
__device__ __forceinline__ unsigned int e4m3x2_to_f16x2(unsigned short two) {
  unsigned int d;
  asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(d) : "h"(two));
  return d;
}

__device__ __forceinline__ float f16_lo_to_f32(unsigned int h2) {
  float f;
  asm("{ .reg .b16 lo, hi; mov.b32 {lo, hi}, %1; cvt.f32.f16 %0, lo; }" : "=f"(f) : "r"(h2));
  return f;
}
__device__ __forceinline__ float f16_hi_to_f32(unsigned int h2) {
  float f;
  asm("{ .reg .b16 lo, hi; mov.b32 {lo, hi}, %1; cvt.f32.f16 %0, hi; }" : "=f"(f) : "r"(h2));
  return f;
}

// {hi, lo} -> bf16x2, round to nearest even.
__device__ __forceinline__ unsigned int f32x2_to_bf16x2(float hi, float lo) {
  unsigned int d;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(d) : "f"(hi), "f"(lo));
  return d;
}

__device__ __forceinline__ unsigned short f32_to_bf16(float v) {
  unsigned short d;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(d) : "f"(v));
  return d;
}

__device__ __forceinline__ float bf16_to_f32(unsigned short v) {
  return __uint_as_float(static_cast<unsigned int>(v) << 16);
}

__device__ __forceinline__ float mul_rn(float a, float b) {
  float d;
  asm("mul.rn.f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b));
  return d;
}
__device__ __forceinline__ float add_rn(float a, float b) {
  float d;
  asm("add.rn.f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b));
  return d;
}
__device__ __forceinline__ float fma_rn(float a, float b, float c) {
  float d;
  asm("fma.rn.f32 %0, %1, %2, %3;" : "=f"(d) : "f"(a), "f"(b), "f"(c));
  return d;
}
__device__ __forceinline__ float ex2_approx_ftz(float v) {
  float d;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(d) : "f"(v));
  return d;
}
__device__ __forceinline__ float rcp_approx_ftz(float v) {
  float d;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(d) : "f"(v));
  return d;
}
__device__ __forceinline__ float div_rn(float a, float b) {
  float d;
  asm("div.rn.f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b));
  return d;
}

}  // namespace moegemv::ptx
