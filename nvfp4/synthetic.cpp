// The exact (ModelOpt-quantized) synthetic layer and the decode inputs. The direct-bytes
// generator for benchmark sizes is in synthetic_fast.cpp.
#include "nvfp4/synthetic.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "moegemv/errors.hpp"
#include "nvfp4/checks.hpp"
#include "nvfp4/format.hpp"
#include "nvfp4/quantize.hpp"
#include "nvfp4/random.hpp"

namespace moegemv::nvfp4 {

namespace {

// Global scales 10^U(-3, -1), i.e. tensor amax = 6 * 448 * that.
float random_amax(Rng& rng) {
  return 6.0f * 448.0f * static_cast<float>(std::pow(10.0, rng.uniform(-3.0, -1.0)));
}

void scale_to_amax(std::vector<float>& w, float factor) {
  for (float& v : w) v *= factor;
}

// gate and up with one joint amax and one weight_scale_2 (ModelOpt's fused w13).
void make_gate_up(int rows, int cols, Rng& rng, QuantizedMatrix& gate, QuantizedMatrix& up) {
  const float amax = random_amax(rng);
  // Separate statements: the order of rng calls must not depend on argument evaluation order.
  std::vector<float> g = make_weights(rows, cols, 1.0f, rng.next());
  std::vector<float> u = make_weights(rows, cols, 1.0f, rng.next());
  const float joint = std::max(abs_max(g), abs_max(u));
  if (joint > 0.0f) {
    scale_to_amax(g, amax / joint);
    scale_to_amax(u, amax / joint);
  }
  const float global = global_scale_from_amax(std::max(abs_max(g), abs_max(u)));
  gate = quantize(g, rows, cols, global);
  up = quantize(u, rows, cols, global);
}

}  // namespace

void check_layer_shape(const ModelShape& shape) {
  detail::check_multiple(shape.H, 64, "shape.H", "hidden size");
  detail::check_multiple(shape.I, 64, "shape.I", "w1 interleaves [up; gate] in 64-row groups");
  if (shape.SI < 0 || shape.SI % 16 != 0)
    throw ArgumentError("shape.SI", "0 or a positive multiple of 16", std::to_string(shape.SI));
  if (shape.E < 1) throw ArgumentError("shape.E", ">= 1", std::to_string(shape.E));
}

std::vector<float> make_weights(int rows, int cols, float amax, uint64_t seed) {
  Rng rng(seed);
  std::vector<float> w(static_cast<std::size_t>(rows) * cols);
  for (int r = 0; r < rows; ++r) {
    const double row_log = 0.3 * rng.normal();
    for (int c0 = 0; c0 < cols; c0 += kBlockSize) {
      const double block_log = rng.uniform() < 0.1 ? rng.uniform(-5.5, 0.0) : 0.25 * rng.normal();
      const double magnitude = std::pow(10.0, row_log + block_log);
      for (int c = c0; c < std::min(cols, c0 + kBlockSize); ++c)
        w[static_cast<std::size_t>(r) * cols + c] = static_cast<float>(magnitude * rng.normal());
    }
  }
  const float current = abs_max(w);
  if (current > 0.0f) scale_to_amax(w, amax / current);
  return w;
}

std::vector<ExpertWeights> make_experts(const ModelShape& shape, uint64_t seed) {
  check_layer_shape(shape);
  std::vector<ExpertWeights> experts(shape.E);
  for (int e = 0; e < shape.E; ++e) {
    Rng rng(stream_seed(seed, e));
    make_gate_up(shape.I, shape.H, rng, experts[e].gate, experts[e].up);
    const float down_amax = random_amax(rng);
    experts[e].down =
        quantize(make_weights(shape.H, shape.I, down_amax, rng.next()), shape.H, shape.I);
  }
  return experts;
}

SharedWeights make_shared_weights(const ModelShape& shape, uint64_t seed) {
  check_layer_shape(shape);
  // A stream no expert index reaches.
  Rng rng(stream_seed(seed, 0x5AA5'0000'0000ull));
  SharedWeights shared;
  make_gate_up(shape.SI, shape.H, rng, shared.gate, shared.up);
  const float down_amax = random_amax(rng);
  shared.down = quantize(make_weights(shape.H, shape.SI, down_amax, rng.next()), shape.H, shape.SI);
  return shared;
}

SyntheticLayer make_layer(const ModelShape& shape, uint64_t seed) {
  SyntheticLayer layer;
  layer.shape = shape;
  layer.routed = to_routed_layout(make_experts(shape, seed));
  layer.shared = to_shared_layout(make_shared_weights(shape, seed));
  return layer;
}

SyntheticInputs make_inputs(const ModelShape& shape, int M, uint64_t seed,
                            const InputOptions& options) {
  if (M < 0) throw ArgumentError("M", ">= 0", std::to_string(M));
  if (shape.K < 1 || shape.K > shape.E)
    throw ArgumentError("shape.K", "1 <= K <= E = " + std::to_string(shape.E),
                        std::to_string(shape.K));
  if (shape.H < 1) throw ArgumentError("shape.H", ">= 1", std::to_string(shape.H));
  Rng rng(stream_seed(seed, 0x1'0000'0000ull));
  SyntheticInputs in;
  in.M = M;
  in.K = shape.K;

  // LLM hidden states: roughly unit scale with a few large outlier channels.
  std::vector<float> channel(shape.H);
  for (float& c : channel) c = rng.uniform() < 0.01 ? 8.0f : 1.0f;
  in.x.resize(static_cast<std::size_t>(M) * shape.H);
  for (int t = 0; t < M; ++t) {
    const double token = std::pow(10.0, rng.uniform(-0.3, 0.3));
    for (int k = 0; k < shape.H; ++k) {
      uint16_t bits;
      do {
        bits = float_to_bf16_bits(static_cast<float>(token * channel[k] * rng.normal()));
      } while ((bits & 0x7FFF) == 0);
      in.x[static_cast<std::size_t>(t) * shape.H + k] = bits;
    }
  }

  std::vector<int32_t> pool(shape.E);
  std::iota(pool.begin(), pool.end(), 0);
  int pool_size = shape.E;
  if (options.repeat_experts) {
    pool_size = std::min(shape.E, shape.K + 1);
    for (int i = 0; i < pool_size; ++i) std::swap(pool[i], pool[i + rng.below(shape.E - i)]);
  }
  in.ids.resize(static_cast<std::size_t>(M) * shape.K);
  in.tw.resize(in.ids.size());
  for (int t = 0; t < M; ++t) {
    // Partial Fisher-Yates over the pool: K distinct experts.
    std::vector<int32_t> choice(pool.begin(), pool.begin() + pool_size);
    std::vector<double> logits(shape.K);
    double max_logit = -1e300, sum = 0.0;
    for (int j = 0; j < shape.K; ++j) {
      std::swap(choice[j], choice[j + rng.below(pool_size - j)]);
      logits[j] = rng.normal();
      max_logit = std::max(max_logit, logits[j]);
    }
    for (double& l : logits) sum += (l = std::exp(l - max_logit));
    for (int j = 0; j < shape.K; ++j) {
      const std::size_t p = static_cast<std::size_t>(t) * shape.K + j;
      in.ids[p] = rng.uniform() < options.skip_probability ? -1 : choice[j];
      in.tw[p] = static_cast<float>(logits[j] / sum);
    }
  }
  return in;
}

}  // namespace moegemv::nvfp4
