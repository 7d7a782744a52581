// dc_cluster's staging alone on the GPU (templates/cluster_probe.cuh): a row staged over a
// thread-block cluster (each CTA loads its share and stores it into every CTA with st.async) must
// land in every CTA exactly as the row staged by that CTA alone. Row lengths: Qwen3-Next's act
// row (64 groups), DeepSeek-V3's (256), and 67 groups (not a multiple of any C); 32 and 128
// threads (a segment's one warp, or several).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "gpu_guard.hpp"
#include "jit/codegen.hpp"
#include "jit/nvrtc.hpp"
#include "runtime/device.hpp"
#include "runtime/launch.hpp"
#include "runtime/memory.hpp"
#include "runtime/module.hpp"
#include "runtime/registry.hpp"
#include "templates/params.h"

using namespace moegemv;

TEST_CASE("a row staged over a cluster lands in every CTA as staged alone", "[gpu]") {
  MOEGEMV_REQUIRE_GPU();
  driver::PrimaryContext context(0);
  context.make_current();
  driver::Stream stream;
  const std::string arch = detail::current_arch();
  const auto compiled = jit::compile(jit::cluster_probe_source(arch), "cluster_probe", arch,
                                     jit::compile_options(arch));
  driver::Module module(compiled.cubin);
  for (int groups : {64, 256, 67}) {
    std::vector<std::uint16_t> row(8 * groups);
    std::uint32_t state = 0x2545F491u + groups;
    for (auto& v : row) {
      state = state * 1664525u + 1013904223u;
      v = static_cast<std::uint16_t>(state >> 16);
    }
    driver::DeviceBuffer src(row.size() * 2);
    src.upload(row.data(), row.size() * 2);
    for (int c : {2, 4, 8}) {
      for (unsigned threads : {32u, 128u}) {
        INFO("groups " << groups << ", cluster " << c << ", threads " << threads);
        const int ctas = 4 * c;
        driver::DeviceBuffer out(static_cast<std::size_t>(ctas) * 2 * groups * 16);
        out.fill_u16(0xFFFF, stream.get());
        driver::LaunchConfig config;
        config.grid[0] = static_cast<unsigned>(ctas);
        config.block[0] = threads;
        config.smem_bytes = static_cast<unsigned>(16 + 2 * 16 * groups);
        config.cluster = static_cast<unsigned>(c);
        ClusterProbeParams p{reinterpret_cast<const void*>(src.ptr()),
                             reinterpret_cast<void*>(out.ptr()), static_cast<unsigned>(groups)};
        const std::string name = std::string(jit::kClusterProbeKernel) + "_" + std::to_string(c);
        driver::launch(module.function(name.c_str()), config, stream.get(), &p);
        stream.synchronize();
        std::vector<std::uint8_t> got(out.bytes());
        out.download(got.data(), got.size());
        int wrong = 0;
        const std::size_t half = static_cast<std::size_t>(groups) * 16;
        for (int b = 0; b < ctas; ++b) {
          const std::uint8_t* shared = got.data() + 2 * half * b;
          wrong += std::memcmp(shared, shared + half, half) != 0;
        }
        CHECK(wrong == 0);
        // The row staged alone (CTA 0's) holds each group's 8 elements, permuted within it.
        int moved = 0;
        for (int g = 0; g < groups; ++g) {
          std::uint16_t want[8], have[8];
          std::memcpy(want, row.data() + 8 * g, 16);
          std::memcpy(have, got.data() + half + 16 * g, 16);
          std::sort(want, want + 8);
          std::sort(have, have + 8);
          moved += !std::equal(want, want + 8, have);
        }
        CHECK(moved == 0);
      }
    }
  }
}
