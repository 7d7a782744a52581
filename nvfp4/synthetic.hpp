#pragma once
// Seeded synthetic MoE layers and decode inputs with realistic NVFP4 statistics: e4m3 block
// scales from subnormal to 448, global scales ~1e-3..1e-1, activations never zero.
#include <cstdint>
#include <vector>

#include "nvfp4/layout.hpp"

namespace moegemv::nvfp4 {

struct ModelShape {
  int H = 0;   ///< hidden size, multiple of 64
  int I = 0;   ///< routed intermediate size, multiple of 64
  int SI = 0;  ///< shared intermediate size, multiple of 16, 0 = no shared expert
  int K = 0;   ///< top-k (only make_inputs reads it)
  int E = 0;   ///< routed experts
};

struct SyntheticLayer {
  ModelShape shape;
  RoutedLayout routed;
  SharedLayout shared;
};

/// Throws ArgumentError naming the field ("shape.I", ...) unless H, I are positive multiples of
/// 64, SI is 0 or a positive multiple of 16 and E >= 1.
void check_layer_shape(const ModelShape& shape);

/// fp32 weights [rows, cols] with per-row (10^N(0, 0.3)) and per-16-block magnitudes (mostly
/// 10^N(0, 0.25), 10% log-uniform down to 10^-5.5, which gives subnormal e4m3 scales), then
/// scaled as a whole so that max |w| = `amax`.
std::vector<float> make_weights(int rows, int cols, float amax, uint64_t seed);

/// E experts in ModelOpt form: gate and up quantized with one shared weight_scale_2 (their
/// joint amax; ModelOpt's fused w13), every global scale 10^U(-3, -1).
std::vector<ExpertWeights> make_experts(const ModelShape& shape, uint64_t seed);

/// The shared expert in ModelOpt form (empty [0, H] / [H, 0] matrices when SI == 0).
SharedWeights make_shared_weights(const ModelShape& shape, uint64_t seed);

/// make_experts + make_shared_weights, laid out. Exact ModelOpt semantics; for test sizes.
SyntheticLayer make_layer(const ModelShape& shape, uint64_t seed);

/// The device tensors generated directly (random codes, e4m3 scales from a realistic table with
/// ~3% subnormals, never NaN or zero, zero swizzle padding, alphas 10^U(-3, -1)), on all
/// cores. Deterministic for a seed regardless of the thread count. For benchmark sizes
/// (DeepSeek-V3: 5.6 GB of weights).
SyntheticLayer make_layer_fast(const ModelShape& shape, uint64_t seed);

struct InputOptions {
  double skip_probability = 0.0;  ///< each id becomes -1 (pair skipped) with this probability
  bool repeat_experts = false;    ///< tokens draw from a pool of min(E, K + 1) experts
};

struct SyntheticInputs {
  int M = 0, K = 0;
  std::vector<uint16_t> x;   ///< bf16 [M, H], N(0, 1) with per-token and outlier-channel scales
  std::vector<int32_t> ids;  ///< [M, K], distinct experts per token in [0, E) (or -1)
  std::vector<float> tw;     ///< [M, K], softmax of N(0, 1) logits over the token's K slots
};

/// Throws ArgumentError unless M >= 0 and 1 <= shape.K <= shape.E.
SyntheticInputs make_inputs(const ModelShape& shape, int M, uint64_t seed,
                            const InputOptions& options = {});

}  // namespace moegemv::nvfp4
