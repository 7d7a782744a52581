// make_layer_fast: device-layout bytes drawn directly, for benchmark sizes where quantizing
// fp32 weights (3.7 G elements for DeepSeek-V3's routed w1 alone) would take minutes.
#include <algorithm>
#include <array>
#include <cmath>

#include "nvfp4/parallel.hpp"
#include "nvfp4/random.hpp"
#include "nvfp4/synthetic.hpp"

namespace moegemv::nvfp4 {

namespace {

constexpr std::size_t kChunkBytes = std::size_t{1} << 20;

using ScaleTable = std::array<uint8_t, 256>;

// e4m3 scale bytes indexed by a uniform random byte. ModelOpt's scales are
// 448 * block_amax / tensor_amax: mostly 32..448 (0x60..0x7E), a tail of small blocks, and
// ~3% subnormals (0x01..0x07). Never 0 (our quantizer floors at 2^-9) and never NaN (0x7F).
ScaleTable make_scale_table() {
  ScaleTable table{};
  for (int i = 0; i < 8; ++i) table[i] = static_cast<uint8_t>(0x01 + i % 7);
  for (int i = 8; i < 40; ++i) table[i] = static_cast<uint8_t>(0x08 + (i - 8) * (0x5F - 0x08) / 31);
  for (int i = 40; i < 256; ++i) table[i] = static_cast<uint8_t>(0x60 + (i - 40) % 31);
  return table;
}

// Chunk c draws from stream (seed, c), so the bytes do not depend on the thread count.
void fill_random(std::vector<uint8_t>& dst, uint64_t seed, const ScaleTable* table) {
  const std::size_t chunks = (dst.size() + kChunkBytes - 1) / kChunkBytes;
  parallel_for(chunks, 1, [&](std::size_t begin, std::size_t end) {
    for (std::size_t c = begin; c < end; ++c) {
      Rng rng(stream_seed(seed, c));
      uint8_t* out = dst.data() + c * kChunkBytes;
      const std::size_t n = std::min(kChunkBytes, dst.size() - c * kChunkBytes);
      for (std::size_t i = 0; i < n; i += 8) {
        const uint64_t r = rng.next();
        for (std::size_t b = 0; b < 8 && i + b < n; ++b) {
          const auto byte = static_cast<uint8_t>(r >> (8 * b));
          out[i + b] = table ? (*table)[byte] : byte;
        }
      }
    }
  });
}

// The swizzle pads rows to 128 and k-blocks to 4 per matrix; padding must read as zero.
void zero_padding(std::vector<uint8_t>& sf, int matrices, int rows, int kblocks) {
  const int rows_padded = (rows + 127) / 128 * 128, kblocks_padded = (kblocks + 3) / 4 * 4;
  for (int m = 0; m < matrices; ++m)
    for (int r = 0; r < rows_padded; ++r)
      for (int kb = r < rows ? kblocks : 0; kb < kblocks_padded; ++kb)
        sf[swizzle_offset(m, r, kb, rows, kblocks)] = 0;
}

float random_global_scale(Rng& rng) {
  return static_cast<float>(std::pow(10.0, rng.uniform(-3.0, -1.0)));
}

}  // namespace

SyntheticLayer make_layer_fast(const ModelShape& shape, uint64_t seed) {
  check_layer_shape(shape);
  static const ScaleTable kScaleTable = make_scale_table();
  const std::size_t E = shape.E, H = shape.H, I = shape.I, SI = shape.SI;
  SyntheticLayer layer;
  layer.shape = shape;

  RoutedLayout& r = layer.routed;
  r.E = shape.E;
  r.H = shape.H;
  r.I = shape.I;
  r.w1.resize(E * 2 * I * H / 2);
  r.w1_sf.resize(E * r.w1_sf_expert_bytes());
  r.w2.resize(E * H * I / 2);
  r.w2_sf.resize(E * r.w2_sf_expert_bytes());
  fill_random(r.w1, stream_seed(seed, 1), nullptr);
  fill_random(r.w1_sf, stream_seed(seed, 2), &kScaleTable);
  fill_random(r.w2, stream_seed(seed, 3), nullptr);
  fill_random(r.w2_sf, stream_seed(seed, 4), &kScaleTable);
  zero_padding(r.w1_sf, shape.E, 2 * shape.I, shape.H / 16);
  zero_padding(r.w2_sf, shape.E, shape.H, shape.I / 16);
  Rng rng(stream_seed(seed, 5));
  r.alpha.resize(E);
  r.alpha2.resize(E);
  for (std::size_t e = 0; e < E; ++e) {
    r.alpha[e] = random_global_scale(rng);
    r.alpha2[e] = random_global_scale(rng);
  }

  SharedLayout& s = layer.shared;
  s.H = shape.H;
  s.SI = shape.SI;
  s.wsh.resize(2 * SI * H / 2);
  s.ssh.resize(swizzled_size(2 * shape.SI, shape.H / 16));
  s.wsd.resize(H * SI / 2);
  s.ssd.resize(swizzled_size(shape.H, shape.SI / 16));
  fill_random(s.wsh, stream_seed(seed, 6), nullptr);
  fill_random(s.ssh, stream_seed(seed, 7), &kScaleTable);
  fill_random(s.wsd, stream_seed(seed, 8), nullptr);
  fill_random(s.ssd, stream_seed(seed, 9), &kScaleTable);
  zero_padding(s.ssh, 1, 2 * shape.SI, shape.H / 16);
  zero_padding(s.ssd, 1, shape.H, shape.SI / 16);
  s.gssh = random_global_scale(rng);
  s.gssd = random_global_scale(rng);
  return layer;
}

}  // namespace moegemv::nvfp4
