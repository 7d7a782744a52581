#pragma once
// The GPU-vs-reference acceptance test of SPEC.md section 8, on bf16 outputs.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace moegemv::nvfp4 {

/// Fill pattern for outputs before a kernel runs; a NaN, so no correct output can equal it.
inline constexpr uint16_t kPoisonBf16 = 0xFFFF;

/// Distance from |v| to the next larger bf16 magnitude: 2^(e-7) for |v| in [2^e, 2^(e+1)),
/// the subnormal spacing 2^-133 below 2^-126.
double ulp_bf16(float v);

struct CompareResult {
  std::size_t n = 0;              ///< elements compared
  std::size_t bit_identical = 0;  ///< got == ref bit for bit
  std::size_t over_bound = 0;     ///< |got - ref| > 2 ulp_bf16(ref) + 2^-8 scale (finite got)
  std::size_t nan = 0;            ///< got is NaN (other than the poison pattern) or ref is NaN
  std::size_t unwritten = 0;      ///< got still holds the poison pattern
  double max_ulp = 0.0;           ///< max |got - ref| / ulp_bf16(ref) over finite pairs
  double max_bound_ratio = 0.0;   ///< max |got - ref| / bound
  std::size_t worst = 0;          ///< index of the max_bound_ratio element
  std::size_t first_bad = static_cast<std::size_t>(-1);  ///< first failing index, if any

  /// No NaN, nothing unwritten, nothing over the bound, >= 99% bit-identical.
  bool pass() const;
  /// One line: counts, percentages, max ulp, the worst element.
  std::string summary() const;
};

/// Compares bf16 bit patterns element-wise. `scale` is the per-output sum of |rounded terms|
/// (the *_scale vectors of reference.hpp). Throws ArgumentError if the sizes differ.
CompareResult compare_bf16(std::span<const uint16_t> got, std::span<const uint16_t> ref,
                           std::span<const float> scale, uint16_t poison = kPoisonBf16);

}  // namespace moegemv::nvfp4
