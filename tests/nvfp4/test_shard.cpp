// The TP/EP splitter against the unsharded reference, on the CPU.
#include <catch2/catch.hpp>

#include "moegemv/errors.hpp"
#include "nvfp4/format.hpp"
#include "nvfp4/reference.hpp"
#include "nvfp4/shard.hpp"

using namespace moegemv;
using namespace moegemv::nvfp4;

namespace {

// The ranks' outputs summed in fp32, and the SPEC 8 scale of the sum (the ranks' scales summed).
struct RankSum {
  std::vector<float> sum, scale;
  explicit RankSum(std::size_t n) : sum(n), scale(n) {}
  void add(const DownCombineRef& d) {
    for (std::size_t o = 0; o < sum.size(); ++o) {
      sum[o] += bf16_bits_to_float(d.out[o]);
      scale[o] += d.scale[o];
    }
  }
  CompareResult compare(const DownCombineRef& ref) const {
    std::vector<uint16_t> got(sum.size());
    for (std::size_t o = 0; o < sum.size(); ++o) got[o] = float_to_bf16_bits(sum[o]);
    return compare_bf16(got, ref.out, scale);
  }
};

}  // namespace

TEST_CASE("TP shards: act slices are bit-identical, outputs sum to the unsharded block", "[layout][reference]") {
  const ModelShape shape{256, 256, 256, 4, 8};
  const auto layer = make_layer(shape, 7);
  const auto in = make_inputs(shape, 3, 11);
  auto full = gate_up_ref(in.x, in.ids, shape.K, layer.routed, layer.shared);
  auto ref = down_combine_ref(full.act, in.ids, in.tw, full.sact, shape.K, layer.routed, layer.shared);
  for (int ranks : {2, 4}) {
    RankSum total(ref.out.size());
    for (int r = 0; r < ranks; ++r) {
      auto shard = shard_tp(layer, ranks, r);
      auto g = gate_up_ref(in.x, in.ids, shape.K, shard.routed, shard.shared);
      const int i = shape.I / ranks;
      for (int p = 0; p < in.M * shape.K; ++p)
        for (int f = 0; f < i; ++f) REQUIRE(g.act[p * i + f] == full.act[p * shape.I + r * i + f]);
      total.add(down_combine_ref(g.act, in.ids, in.tw, g.sact, shape.K, shard.routed, shard.shared));
    }
    auto c = total.compare(ref);
    INFO("TP=" << ranks << ": " << c.summary());
    CHECK(c.over_bound == 0);
    CHECK(c.nan == 0);
  }
}

TEST_CASE("EP shards: local ids, shared expert on rank 0, outputs sum to the block", "[layout][reference]") {
  const ModelShape shape{256, 128, 128, 4, 8};
  const auto layer = make_layer(shape, 5);
  InputOptions options;
  options.skip_probability = 0.1;
  const auto in = make_inputs(shape, 4, 9, options);
  auto full = gate_up_ref(in.x, in.ids, shape.K, layer.routed, layer.shared);
  auto ref = down_combine_ref(full.act, in.ids, in.tw, full.sact, shape.K, layer.routed, layer.shared);
  for (int ranks : {2, 4, 8}) {
    RankSum total(ref.out.size());
    for (int r = 0; r < ranks; ++r) {
      auto shard = shard_ep(layer, ranks, r);
      CHECK(shard.shape.SI == (r == 0 ? shape.SI : 0));
      auto ids = local_ids_ep(in.ids, shape.E, ranks, r);
      auto g = gate_up_ref(in.x, ids, shape.K, shard.routed, shard.shared);
      total.add(down_combine_ref(g.act, ids, in.tw, g.sact, shape.K, shard.routed, shard.shared));
    }
    auto c = total.compare(ref);
    INFO("EP=" << ranks << ": " << c.summary());
    CHECK(c.over_bound == 0);
  }
}

TEST_CASE("sharding rejects ranks that break the layout", "[layout]") {
  const ModelShape shape{256, 192, 128, 4, 6};
  const auto layer = make_layer_fast(shape, 1);
  CHECK_THROWS_WITH(shard_tp(layer, 2, 0), Catch::Contains("ranks"));  // I/2 = 96
  CHECK_THROWS_WITH(shard_ep(layer, 4, 0), Catch::Contains("E=6"));
  CHECK_THROWS_WITH(shard_ep(layer, 2, 2), Catch::Contains("rank"));
  CHECK(local_ids_ep(std::vector<int32_t>{0, 3, 5, -1}, 6, 2, 1) == std::vector<int32_t>{-1, 0, 2, -1});
}
