// The scale-after forms' hardware assumption on the GPU (templates/probe.cuh safter_probe): the
// tensor core multiplies raw e2m1 weights, which reach it as bf16 subnormals, exactly.
#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "jit/codegen.hpp"
#include "jit/nvrtc.hpp"
#include "nvfp4/format.hpp"
#include "runtime/driver.hpp"
#include "runtime/launch.hpp"
#include "runtime/module.hpp"
#include "runtime/registry.hpp"
#include "templates/params.h"
#include "tools/harness/check.hpp"

namespace moegemv::harness {

namespace {
int window_shift(int warp) { return warp % 4 == 1 ? 56 : warp % 4 == 2 ? -48 : 0; }
}  // namespace

SimpleCheck check_safter_mma(CUstream stream) {
  // 64 warps of random words (every code, both signs) and x = integers / 16 in [-64, 64): each D
  // entry is a sum of 32 products with at most 19 significant bits, so it is exact in fp32 in any
  // order, and the GPU must give it bit for bit (a flushed subnormal gives 0 instead). Every
  // fourth warp's x is scaled by 2^56 and the next by 2^-48: the ends of the window in which the
  // forms' products are exact (params.h kSafterActShift), where a staged x near 2^126 or a product
  // near 2^-121 would show an overflow or a flush.
  constexpr int kWarps = 64, kLanes = 32 * kWarps;
  std::uint64_t state = 0x5AF7E2ull;
  auto next = [&state] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<std::uint32_t>(state >> 32);
  };
  std::vector<std::uint32_t> lo(kLanes), hi(kLanes);
  std::vector<std::uint16_t> x(8 * kLanes);
  for (int i = 0; i < kLanes; ++i) {
    lo[i] = next();
    hi[i] = next();
    for (int e = 0; e < 8; ++e)
      x[8 * i + e] = nvfp4::float_to_bf16_bits(
          std::ldexp(static_cast<float>(static_cast<int>(next() % 2048) - 1024) / 16, window_shift(i / 32)));
  }
  driver::DeviceBuffer dlo(kLanes * 4), dhi(kLanes * 4), dx(kLanes * 16), dout(kLanes * 16);
  dlo.upload(lo.data(), kLanes * 4);
  dhi.upload(hi.data(), kLanes * 4);
  dx.upload(x.data(), kLanes * 16);
  SafterProbeParams p{reinterpret_cast<const unsigned int*>(dlo.ptr()),
                      reinterpret_cast<const unsigned int*>(dhi.ptr()),
                      reinterpret_cast<const unsigned short*>(dx.ptr()), reinterpret_cast<float*>(dout.ptr())};
  driver::LaunchConfig config;
  config.grid[0] = kWarps / 4;
  config.block[0] = 128;
  const std::string arch = detail::current_arch();
  auto compiled = jit::compile(jit::safter_probe_source(arch), "safter_probe", arch, jit::compile_options(arch));
  driver::Module module(compiled.cubin);
  driver::launch(module.function(jit::kSafterProbeKernel), config, stream, &p);
  std::vector<float> out(4 * kLanes);
  dout.download(out.data(), kLanes * 16);

  // D of warp w by the mma's definition: D[r][n] = sum over lanes t and elements e of
  // e2m1(word of lane (r % 8, t), lo for r < 8, else hi)[e] * x(lane (n, t))[e] * 2^(kSafterActShift - 132) (the raw
  // weight is e2m1 * 2^-132, x is staged x 2^kSafterActShift); lane (g, t) holds D[g][2t], D[g][2t + 1],
  // D[g + 8][2t], D[g + 8][2t + 1].
  std::size_t bad = 0, zeros = 0;
  std::string first;
  for (int w = 0; w < kWarps; ++w) {
    for (int lane = 0; lane < 32; ++lane) {
      const int g = lane / 4, t = lane % 4;
      for (int j = 0; j < 4; ++j) {
        const int r = g + 8 * (j / 2), n = 2 * t + j % 2;
        double want = 0;
        for (int tt = 0; tt < 4; ++tt) {
          const std::uint32_t word = (r < 8 ? lo : hi)[32 * w + 4 * (r % 8) + tt];
          for (int e = 0; e < 8; ++e)
            want += nvfp4::e2m1_to_float((word >> (4 * e)) & 0xF) *
                    nvfp4::bf16_bits_to_float(x[8 * (32 * w + 4 * n + tt) + e]);
        }
        const float expect = static_cast<float>(std::ldexp(want, kSafterActShift - 132));
        const float got = out[4 * (32 * w + lane) + j];
        zeros += got == 0.0f && expect != 0.0f;
        std::uint32_t gb, eb;
        std::memcpy(&gb, &got, 4);
        std::memcpy(&eb, &expect, 4);
        if (gb != eb && bad++ == 0)
          first = fmt::format("warp {} lane {} D[{}][{}]: got {:a}, want {:a}", w, lane, r, n, got, expect);
      }
    }
  }
  SimpleCheck r;
  r.pass = bad == 0;
  r.summary = fmt::format("scale-after mma probe (raw bf16-subnormal weights, dc_safter / gu_safter): {} "
                          "values, {} wrong ({} of them 0: flushed){}{}",
                          4 * kLanes, bad, zeros, bad ? "; first: " : "", first);
  return r;
}

}  // namespace moegemv::harness
