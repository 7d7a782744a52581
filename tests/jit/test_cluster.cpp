// dc_cluster=C (session 44): the streaming down's M = 1 kernel whose CTAs share the act rows over
// thread-block clusters of C (templates/down_cluster_act.cuh, jit/codegen_cluster.cpp). Its
// numbers are checked on the GPU (`moegemv check` with MOEGEMV_TUNE; tools/gpu_s44.sh); here what
// it emits, where it is refused, and that NVRTC builds it without spills.
#include <catch2/catch.hpp>

#include "jit/codegen.hpp"
#include "jit/nvrtc.hpp"
#include "moegemv/errors.hpp"
#include "shapes.hpp"
#include "spills.hpp"

namespace {

using namespace moegemv;

const Key kQwen{Kind::kDownCombine, 2048, 512, 512, 10};   // one warp per segment (dc_wstage 1)
const Key kDeepSeek{Kind::kDownCombine, 7168, 2048, 2048, 8};  // two (dc_wstage 2)

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("dc_cluster adds the M = 1 kernel with the cluster size, nothing else", "[codegen]") {
  const std::string plain = jit::generate_source(kQwen, "sm_90", "");
  CHECK_FALSE(has(plain, "_m1("));
  CHECK_FALSE(jit::has_cluster_kernel(jit::kernel_config(kQwen, "")));
  for (const char* off : {"dc_cluster=0", "dc_cluster=1"}) {
    INFO(off);
    CHECK(jit::generate_source(kQwen, "sm_90", off) == plain);
  }
  const std::string four = jit::generate_source(kQwen, "sm_90", "dc_cluster=4");
  CHECK(jit::has_cluster_kernel(jit::kernel_config(kQwen, "dc_cluster=4")));
  CHECK(has(four, "moegemv_down_combine_2048_512_512_10_m1(const __grid_constant__"));
  CHECK(has(four, "moegemv::down_stream<2048, 512, 512, 10, 1, 2, 4>(p);"));
  // The module's other kernel is the default's, same template arguments.
  CHECK(has(four, "moegemv::down_stream<2048, 512, 512, 10, 1, 2>(p);"));
  CHECK(jit::single_token_kernel_name(kQwen) == "moegemv_down_combine_2048_512_512_10_m1");
  // Several warps per segment, each segment's row staged by its warps together.
  const std::string two = jit::generate_source(kDeepSeek, "sm_90", "dc_cluster=2");
  CHECK(has(two, "moegemv::down_stream<7168, 2048, 2048, 8, 2, 2, 2>(p);"));
  // gate_up takes no dc_ knob: its source is unchanged.
  const Key gu{Kind::kGateUp, 2048, 512, 512, 10};
  CHECK(jit::generate_source(gu, "sm_90", "dc_cluster=4") == jit::generate_source(gu, "sm_90", ""));
}

TEST_CASE("dc_cluster is refused where the down cannot take it, naming it", "[codegen]") {
  // Out of range, and on gate_up.
  CHECK_THROWS_WITH(jit::kernel_config(kQwen, "dc_cluster=9"), Catch::Contains("dc_cluster=9"));
  const Key gu{Kind::kGateUp, 2048, 512, 512, 10};
  CHECK_THROWS_WITH(jit::kernel_config(gu, "gu_cluster=2"), Catch::Contains("gu_cluster=2"));
  // Act staged CTA-wide (dc_wstage=0).
  CHECK_THROWS_AS(jit::kernel_config(kQwen, "dc_cluster=2,dc_wstage=0"), ArgumentError);
  CHECK_THROWS_WITH(jit::kernel_config(kQwen, "dc_cluster=2,dc_wstage=0"),
                    Catch::Contains("dc_cluster=2,dc_wstage=0") && Catch::Contains("wstage=0"));
  // The classic down (K lengths not multiples of 256) and an asked-for classic one.
  const Key classic{Kind::kDownCombine, 2048, 1408, 5632, 4};
  CHECK_THROWS_WITH(jit::kernel_config(classic, "dc_cluster=4"),
                    Catch::Contains("dc_cluster=4") && Catch::Contains("stream=0"));
  CHECK_THROWS_WITH(jit::kernel_config(kQwen, "dc_stream=0,dc_cluster=4"),
                    Catch::Contains("stream=0"));
}

TEST_CASE("dc_cluster's M = 1 kernel compiles without spills on the streaming downs", "[nvrtc]") {
  int compiled = 0;
  for (const Key& key : issue_keys()) {
    if (key.kind != Kind::kDownCombine) continue;
    const KernelConfig c = jit::kernel_config(key, "");
    if (!c.stream || c.wstage == 0) continue;  // refused there (above)
    for (const char* tune : {"dc_cluster=2", "dc_cluster=4", "dc_cluster=8"}) {
      INFO(key.str() << " " << tune);
      const std::string source = jit::generate_source(key, "sm_90", tune);
      auto out = jit::compile(source, key.str(), "sm_90", jit::compile_options("sm_90"));
      CHECK(out.cubin.size() > 1000);
      CHECK(kernel_spill_bytes(out.log, jit::single_token_kernel_name(key)) == 0);  // it is there
      CHECK(spill_bytes(out.log) == 0);  // every kernel of the module
      ++compiled;
    }
  }
  CHECK(compiled >= 12);
}

TEST_CASE("the cluster-staging probe compiles, its three kernels named", "[nvrtc]") {
  const auto out = jit::compile(jit::cluster_probe_source("sm_90"), "cluster_probe", "sm_90",
                                jit::compile_options("sm_90"));
  CHECK(spill_bytes(out.log) == 0);
  for (const char* c : {"_2", "_4", "_8"})
    CHECK(kernel_spill_bytes(out.log, std::string(jit::kClusterProbeKernel) + c) == 0);
}
