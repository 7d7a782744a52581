// The bench's rotated layers (tools/harness/bench.hpp, bench_layers; session 26): each op alone
// must cycle over more than 4x L2 at M=1, and a replay's own start and end must weigh little.
// Byte counts worked out here by hand from SPEC's layouts (weights H*I/2 per matrix, scales
// padded to 128 rows x 4 k-blocks), so the test does not reuse the bench's own arithmetic. No GPU.
#include <catch2/catch.hpp>

#include "tools/harness/bench.hpp"

using moegemv::harness::bench_layers;
using moegemv::harness::kBenchMinLayers;

namespace {
constexpr double kL2 = 50.0 * 1024 * 1024;            // an H100's (an H200 has 60 MiB)
constexpr double kBudget = 48.0 * 1024 * 1024 * 1024;  // BenchConfig::max_gib's default
}  // namespace

TEST_CASE("bench layers: each op alone exceeds 4x L2, at least 8, within memory", "[bench]") {
  // DeepSeek-V3: gate_up 16515072 and down 8257536 bytes per expert (weights + scales); K = 8
  // routed + 1 shared touched at M=1; 257 experts per layer. The down's 74.3 MB ask for 3 layers,
  // the floor makes it 8, and 48 GiB hold 8 layers of 6.37 GB.
  const double ds_gu = 16515072, ds_down = 8257536;
  const double ds_layer = 257 * (ds_gu + ds_down);
  CHECK(bench_layers(9 * ds_gu, 9 * ds_down, kL2, ds_layer, kBudget) == kBenchMinLayers);
  // Llama-4 Maverick: 47185920 + 23592960 per expert, 1 routed + 1 shared, 129 per layer: the
  // down's 47.2 MB ask for 5 (4.4x -> 5), the floor 8, memory 5 (9.13 GB each).
  const double ll_gu = 47185920, ll_down = 23592960;
  CHECK(bench_layers(2 * ll_gu, 2 * ll_down, kL2, 129 * (ll_gu + ll_down), kBudget) == 5);
  // Qwen3-Next: 1179648 + 589824 per expert, 10 routed + 1 shared, 513 per layer: the down's 6.49
  // MB ask for 33 layers (32 would be 3.96x L2), 0.91 GB each.
  const double qw_gu = 1179648, qw_down = 589824;
  const int qwen = bench_layers(11 * qw_gu, 11 * qw_down, kL2, 513 * (qw_gu + qw_down), kBudget);
  CHECK(qwen == 33);
  CHECK(qwen * 11 * qw_down > 4 * kL2);
  // The rule takes the smaller op: with gate_up and down swapped the count is the same.
  CHECK(bench_layers(11 * qw_down, 11 * qw_gu, kL2, 513 * (qw_gu + qw_down), kBudget) == 33);
  // A shape whose down is tiny stops at the cap.
  CHECK(bench_layers(11 * qw_gu, 1e6, kL2, 1e8, kBudget) == moegemv::harness::kBenchMaxLayers);
}

TEST_CASE("bench layers: --layers N replaces the rule, memory still permitting", "[bench]") {
  const double gu = 47185920, down = 23592960, layer = 129 * (gu + down);
  CHECK(bench_layers(2 * gu, 2 * down, kL2, layer, kBudget, 2) == 2);
  CHECK(bench_layers(2 * gu, 2 * down, kL2, layer, kBudget, 1) == 1);
  CHECK(bench_layers(2 * gu, 2 * down, kL2, layer, kBudget, 20) == 5);
  // A budget below one layer still runs one.
  CHECK(bench_layers(2 * gu, 2 * down, kL2, layer, layer / 2) == 1);
}
