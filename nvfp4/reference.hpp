#pragma once
// CPU references of the two decode-MoE operations (SPEC.md sections 4-6), reading the device
// layouts. `*_ref` follows the fp32 recipe literally (what the GPU must match, section 8);
// `*_ideal` is the float64 answer without intermediate roundings, for error analysis.
#include <cstdint>
#include <span>
#include <vector>

#include "nvfp4/compare.hpp"
#include "nvfp4/layout.hpp"

namespace moegemv::nvfp4 {

// ---- the approximate instructions of FlashInfer's sigmoid, emulated ----

/// ex2.approx.ftz.f32 emulated by exp2f (correctly rounded or nearly) with subnormal inputs and
/// results flushed to +-0. PTX documents ex2.approx.f32 to ~2^-22 relative error, a few fp32
/// ulp; act is then rounded to bf16 (2^-9), so the section 8 tolerance (2 bf16 ulp) covers it.
float ex2_approx_ftz(float x);

/// rcp.approx.ftz.f32 emulated by 1.0f / x (PTX: max 1 ulp error) with ftz.
float rcp_approx_ftz(float x);

/// The routed epilogue of section 4 before rounding: u * (g * r), r = rcp(ex2(g * -log2 e) + 1).
float routed_silu_mul(float u, float g);

// ---- gate_up (section 4) ----

struct GateUpRef {
  std::vector<uint16_t> act;      ///< bf16 [P, I]; rows of pairs with ids < 0 are +0
  std::vector<uint16_t> sact;     ///< bf16 [M, SI]
  std::vector<float> act_scale;   ///< [P, I] |u * g * r| (section 8 "scale")
  std::vector<float> sact_scale;  ///< [M, SI] |float(s) * float(ub)|
};

/// x: bf16 [M, H]; ids: int32 [M, K] (pair p = t * K + j), ids < 0 skip the pair, ids >= E throw
/// ArgumentError("ids"). `shared` with SI == 0 (e.g. SharedLayout{}) means no shared expert.
/// Sums run over k ascending in fp32; products are exact (bf16 x 6-bit weights), so FP
/// contraction could not change them either.
/// `sum_blocks` is 1 for the SPEC reference. Values > 1 are a control for the GPU check: the same
/// fp32 arithmetic with the K sum split into that many parts, i.e. another valid summation order;
/// 0 sums in double and rounds once to fp32 (an exact accumulator, the best any kernel could do).
GateUpRef gate_up_ref(std::span<const uint16_t> x, std::span<const int32_t> ids, int K,
                      const RoutedLayout& routed, const SharedLayout& shared, int sum_blocks = 1);

struct GateUpIdeal {
  std::vector<double> act;   ///< [P, I] u * silu(g), no rounding
  std::vector<double> sact;  ///< [M, SI] silu(g) * u, no rounding
};

/// Same inputs; double sums, exact sigmoid/SiLU, nothing rounded to bf16.
GateUpIdeal gate_up_ideal(std::span<const uint16_t> x, std::span<const int32_t> ids, int K,
                          const RoutedLayout& routed, const SharedLayout& shared);

// ---- down_combine (section 5) ----

struct DownCombineRef {
  std::vector<uint16_t> out;  ///< bf16 [M, H]
  std::vector<float> scale;   ///< [M, H] sum_j |tw_j * y_j| + |ys| (section 8 "scale")
};

/// act: bf16 [P, I] (rows of skipped pairs are not read); tw: fp32 [M, K]; sact: bf16 [M, SI].
/// `sum_blocks` as for gate_up_ref (1: the SPEC reference; other values: the control's orders).
DownCombineRef down_combine_ref(std::span<const uint16_t> act, std::span<const int32_t> ids,
                                std::span<const float> tw, std::span<const uint16_t> sact, int K,
                                const RoutedLayout& routed, const SharedLayout& shared,
                                int sum_blocks = 1);

/// Double everywhere, not rounded (round_bf16 it to compare with an output). Pass the ideal act
/// for an end-to-end ideal, or the bf16 act converted, to isolate down_combine's own error.
std::vector<double> down_combine_ideal(std::span<const double> act, std::span<const int32_t> ids,
                                       std::span<const float> tw, std::span<const double> sact,
                                       int K, const RoutedLayout& routed,
                                       const SharedLayout& shared);

// ---- argument checks shared by the references (and usable by the runtime's tests) ----

/// Problem sizes derived from the arguments.
struct ProblemDims {
  int M = 0, K = 0, P = 0, E = 0, H = 0, I = 0, SI = 0;
};

/// Validates layouts (validate()), K >= 1, ids.size() % K == 0, ids < E, shared.H == routed.H
/// when SI > 0, and x_size == M * H. Throws ArgumentError naming the argument.
ProblemDims check_gate_up_args(std::size_t x_size, std::span<const int32_t> ids, int K,
                               const RoutedLayout& routed, const SharedLayout& shared);

/// Same for down_combine: act_size == P * I, tw_size == M * K, sact_size == M * SI.
ProblemDims check_down_combine_args(std::size_t act_size, std::span<const int32_t> ids,
                                    std::size_t tw_size, std::size_t sact_size, int K,
                                    const RoutedLayout& routed, const SharedLayout& shared);

}  // namespace moegemv::nvfp4
