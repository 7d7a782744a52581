// gate_up's sector-paired features (MOEGEMV_GU_SPAIR, gu_spair=1; session 24, opt-in): which
// features a routed CTA computes (split or 16-row tile), checked against the 128x4 scale swizzle
// (SPEC section 2) on the host. `MOEGEMV_TUNE=gu_spair=1 moegemv check` is the test of the kernels themselves.
#include <catch2/catch.hpp>

#include <set>
#include <vector>

#include "jit/codegen.hpp"
#include "moegemv/errors.hpp"
#include "templates/params.h"

namespace {

using namespace moegemv;

// The routed [up; gate] 64-row interleave (gate_up.cuh routed_rows): feature i's up row.
int up_row(int i) { return 128 * (i / 64) + i % 64; }
// A row's scale bytes inside its atom (nvfp4.cuh swizzle_row_offset, one atom column), atoms of
// 128 rows 512 bytes apart.
int scale_offset(int row) { return (row >> 7) * 512 + (row & 31) * 16 + ((row & 127) >> 5) * 4; }
// The 32-byte sectors of one atom column that a tile's features' up and gate scales touch.
int tile_sectors(int tile, bool paired) {
  std::set<int> sectors;
  for (int f = 0; f < 8; ++f) {
    const int l = 8 * tile + f;
    const int i = paired ? gate_up_spair_feature(l) : l;
    for (const int row : {up_row(i), up_row(i) + 64}) sectors.insert(scale_offset(row) / 32);
  }
  return static_cast<int>(sectors.size());
}

}  // namespace

TEST_CASE("gu_spair's features are a permutation inside each 64-feature block", "[codegen]") {
  constexpr int kI = 2048;
  std::vector<int> seen(kI, 0);
  for (int l = 0; l < kI; ++l) {
    const int i = gate_up_spair_feature(l);
    REQUIRE(i >= 0);
    REQUIRE(i < kI);
    CHECK(i / 64 == l / 64);
    ++seen[i];
  }
  for (int i = 0; i < kI; ++i) CHECK(seen[i] == 1);
  // A tile's set 1 is its set 0 + 32 rows; of a CTA's two tiles (the first even) the second is the
  // first + 4 rows, in the same 32-row group (tile_split.cuh's shift: 4 rows, 64 scale bytes).
  for (int tile = 0; tile < kI / 8; ++tile) {
    for (int j = 0; j < 4; ++j) {
      CHECK(gate_up_spair_feature(8 * tile + 4 + j) == gate_up_spair_feature(8 * tile + j) + 32);
      if (tile % 2 == 0) {
        CHECK(gate_up_spair_feature(8 * (tile + 1) + j) == gate_up_spair_feature(8 * tile + j) + 4);
        CHECK(gate_up_spair_feature(8 * tile + j) % 32 + 4 < 32);
      }
    }
  }
}

TEST_CASE("gu_spair halves the scale sectors a tile fetches", "[codegen]") {
  for (int tile = 0; tile < 16; ++tile) {
    INFO("tile " << tile);
    CHECK(tile_sectors(tile, false) == 4);  // 8 consecutive features: each sector half used
    CHECK(tile_sectors(tile, true) == 2);   // every byte of both sectors used
  }
}

TEST_CASE("gu_spair=1: where it applies, its define and errors", "[codegen]") {
  const Key ds{Kind::kGateUp, 7168, 2048, 2048, 8}, qwen{Kind::kGateUp, 2048, 512, 512, 10};
  CHECK(jit::kernel_config(ds, "").spair == 0);
  CHECK(jit::kernel_config(ds, "gu_spair=1").spair == 1);
  CHECK(jit::generate_source(ds, "sm_90", "gu_spair=1").find("#define MOEGEMV_GU_SPAIR 1") != std::string::npos);
  CHECK(jit::generate_source(ds, "sm_90", "").find("MOEGEMV_GU_SPAIR") == std::string::npos);
  // The 16-row tiles take it too (Qwen3-Next: no split); the streaming gate_up does not.
  CHECK(jit::kernel_config(qwen, "gu_spair=1").spair == 1);
  CHECK(jit::generate_source(qwen, "sm_90", "gu_spair=1").find("#define MOEGEMV_GU_SPAIR 1") != std::string::npos);
  CHECK(jit::kernel_config(qwen, "gu_spair=1,gu_stream=1").spair == 0);
  CHECK(jit::generate_source(qwen, "sm_90", "gu_spair=1,gu_stream=1").find("MOEGEMV_GU_SPAIR") == std::string::npos);
  // A streaming gate_up that cannot be (32 warps) falls back to the classic tiles, which keep it.
  CHECK(jit::kernel_config(ds, "gu_stream=1,gu_warps=32,gu_spair=1").stream == 0);
  CHECK(jit::kernel_config(ds, "gu_stream=1,gu_warps=32,gu_spair=1").spair == 1);
  CHECK_THROWS_WITH(jit::kernel_config(ds, "gu_spair=1,gu_safter=1"), Catch::Contains("gu_spair=1"));
  CHECK_THROWS_AS(jit::kernel_config(ds, "gu_spair=2"), ArgumentError);
  CHECK(jit::kernel_config(Key{Kind::kDownCombine, 7168, 2048, 2048, 8}, "gu_spair=1").spair == 0);
}
