#include "tools/harness/shard_check.hpp"

#include <fmt/format.h>

#include "nvfp4/format.hpp"
#include "nvfp4/reference.hpp"
#include "nvfp4/shard.hpp"
#include "runtime/driver.hpp"
#include "tools/harness/device_layer.hpp"

namespace moegemv::harness {

namespace {

struct RankOut {
  std::vector<std::uint16_t> out;
  std::vector<float> scale;
};

RankOut run_rank(const nvfp4::SyntheticLayer& shard, const nvfp4::SyntheticInputs& in, bool gpu,
                 CUstream stream) {
  const auto& sh = shard.shape;
  auto gref = nvfp4::gate_up_ref(in.x, in.ids, sh.K, shard.routed, shard.shared);
  auto dref = nvfp4::down_combine_ref(gref.act, in.ids, in.tw, gref.sact, sh.K, shard.routed,
                                      shard.shared);
  if (!gpu) return {dref.out, dref.scale};
  DeviceLayer device(shard);
  DeviceStep step(sh, in.M);
  step.upload(in);
  step.poison(stream);
  gate_up(gate_up_args(device, step), stream);
  down_combine(down_args(device, step), stream);
  driver::check(driver::api().cuStreamSynchronize(stream), "cuStreamSynchronize");
  return {download_u16(step.out), dref.scale};
}

}  // namespace

ShardCheck check_sharded(const nvfp4::SyntheticLayer& layer, const std::string& mode, int ranks,
                         int m, std::uint64_t seed, bool gpu, CUstream stream) {
  const auto& sh = layer.shape;
  nvfp4::InputOptions options;
  options.skip_probability = 0.05;
  const auto in = nvfp4::make_inputs(sh, m, seed, options);
  auto gref = nvfp4::gate_up_ref(in.x, in.ids, sh.K, layer.routed, layer.shared);
  auto ref = nvfp4::down_combine_ref(gref.act, in.ids, in.tw, gref.sact, sh.K, layer.routed,
                                     layer.shared);
  std::vector<float> sum(ref.out.size(), 0.0f), scale(ref.out.size(), 0.0f);
  for (int r = 0; r < ranks; ++r) {
    nvfp4::SyntheticLayer shard =
        mode == "tp" ? nvfp4::shard_tp(layer, ranks, r) : nvfp4::shard_ep(layer, ranks, r);
    nvfp4::SyntheticInputs local = in;
    if (mode == "ep") local.ids = nvfp4::local_ids_ep(in.ids, sh.E, ranks, r);
    RankOut o = run_rank(shard, local, gpu, stream);
    for (std::size_t i = 0; i < sum.size(); ++i) {
      // A poisoned (unwritten) rank output must not vanish into the sum.
      sum[i] = o.out[i] == nvfp4::kPoisonBf16 ? NAN : sum[i] + nvfp4::bf16_bits_to_float(o.out[i]);
      scale[i] += o.scale[i];
    }
  }
  std::vector<std::uint16_t> got(sum.size());
  for (std::size_t i = 0; i < sum.size(); ++i) got[i] = nvfp4::float_to_bf16_bits(sum[i]);
  ShardCheck c;
  c.sum = nvfp4::compare_bf16(got, ref.out, scale);
  c.summary = fmt::format("{} {}={} ({}:{}:{}:{} E={} M={}, {}): sum of ranks vs unsharded: {}",
                          gpu ? "GPU" : "CPU", mode, ranks, sh.H, sh.I, sh.SI, sh.K, sh.E, m,
                          gpu ? "ranks run in turn on one device, fp32 host sum" : "reference",
                          c.sum.summary());
  return c;
}

}  // namespace moegemv::harness
