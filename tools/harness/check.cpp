#include "tools/harness/check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "jit/codegen.hpp"
#include "jit/nvrtc.hpp"
#include "nvfp4/format.hpp"
#include "nvfp4/reference.hpp"
#include "nvfp4/weight_rows.hpp"
#include "runtime/device.hpp"
#include "runtime/driver.hpp"
#include "runtime/launch.hpp"
#include "runtime/module.hpp"
#include "runtime/registry.hpp"
#include "templates/params.h"

namespace moegemv::harness {

std::string OpCheck::summary() const {
  std::string s = fmt::format("{} M={} E={} seed={:#x}: act {} | sact {} | out {}", shape, m, e,
                              seed, act.summary(), sact.summary(), out.summary());
  if (act.over_bound + sact.over_bound > 0)
    s += fmt::format(" | over-bound gate_up elements: min |dot|/sum|x*w| = {:.2e}, reference's own "
                     "fp32 order error there = {:.2f} x bound; first: {}",
                     worst_inverse_condition, ref_order_error_over_bound, first_over_bound);
  return s;
}

namespace {

// For gate_up outputs over the bound: how ill-conditioned their dot products are, and how far
// the reference's own sequential fp32 sum is from the exact (double) sum there, compared with
// the SPEC bound of that output. Large values mean the bound is below fp32 summation noise.
void diagnose_gate_up(const nvfp4::SyntheticLayer& host, const nvfp4::SyntheticInputs& in,
                      const std::vector<std::uint16_t>& got_act,
                      const std::vector<std::uint16_t>& got_sact, const nvfp4::GateUpRef& ref,
                      OpCheck& r) {
  const auto& sh = host.shape;
  std::vector<float> wa(sh.H), wb(sh.H);
  auto study = [&](int token, float ref_out, float scale, float alpha, std::uint16_t got) {
    const int H = sh.H;
    std::string detail = fmt::format("got {:.6g} ref {:.6g}", nvfp4::bf16_bits_to_float(got), ref_out);
    for (const auto* w : {&wa, &wb}) {
      double exact = 0, absum = 0;
      float seq = 0;
      for (int k = 0; k < H; ++k) {
        const double term = double(nvfp4::bf16_bits_to_float(in.x[std::size_t(token) * H + k])) * (*w)[k];
        exact += term;
        absum += std::fabs(term);
        seq += float(term);
      }
      r.worst_inverse_condition = std::min(r.worst_inverse_condition, std::fabs(exact) / absum);
      const double bound = 2 * nvfp4::ulp_bf16(ref_out) + scale / 256.0;
      r.ref_order_error_over_bound =
          std::max(r.ref_order_error_over_bound, std::fabs(seq - exact) * alpha / bound);
      detail += fmt::format(" {} exact {:.8g} (fp32 seq {:.8g}, sum|terms| {:.4g})",
                            w == &wa ? "gate" : "up", exact * alpha, double(seq) * alpha,
                            absum * alpha);
    }
    if (r.first_over_bound.empty()) r.first_over_bound = detail;
  };
  auto over = [](std::uint16_t got, std::uint16_t want, float scale) {
    const float g = nvfp4::bf16_bits_to_float(got), w = nvfp4::bf16_bits_to_float(want);
    return std::fabs(g - w) > 2 * nvfp4::ulp_bf16(w) + scale / 256.0;
  };
  for (std::size_t o = 0; o < got_act.size(); ++o) {
    if (!over(got_act[o], ref.act[o], ref.act_scale[o])) continue;
    const int p = int(o / sh.I), i = int(o % sh.I), e = in.ids[p];
    nvfp4::decode_w1_row(host.routed, e, true, i, wa);
    nvfp4::decode_w1_row(host.routed, e, false, i, wb);
    study(p / sh.K, nvfp4::bf16_bits_to_float(ref.act[o]), ref.act_scale[o], host.routed.alpha[e],
          got_act[o]);
  }
  for (std::size_t o = 0; o < got_sact.size(); ++o) {
    if (!over(got_sact[o], ref.sact[o], ref.sact_scale[o])) continue;
    const int t = int(o / sh.SI), i = int(o % sh.SI);
    nvfp4::decode_wsh_row(host.shared, true, i, wa);
    nvfp4::decode_wsh_row(host.shared, false, i, wb);
    study(t, nvfp4::bf16_bits_to_float(ref.sact[o]), ref.sact_scale[o], host.shared.gssh,
          got_sact[o]);
  }
}

}  // namespace

std::uint64_t fresh_seed() {
  if (const char* s = std::getenv("MOEGEMV_SEED")) return std::strtoull(s, nullptr, 0);
  static std::uint64_t counter = 0;
  return static_cast<std::uint64_t>(
             std::chrono::steady_clock::now().time_since_epoch().count()) ^
         (++counter * 0x9E3779B97F4A7C15ull);
}

OpCheck check_ops(const nvfp4::SyntheticLayer& host, const DeviceLayer& device, int m,
                  std::uint64_t seed, CUstream stream) {
  const auto& sh = host.shape;
  nvfp4::InputOptions options;
  options.skip_probability = 0.05;
  options.repeat_experts = (seed & 1) == 0;
  auto in = nvfp4::make_inputs(sh, m, seed, options);
  if (m > 1) in.ids[1] = -1;  // always at least one skipped pair
  DeviceStep step(sh, m);
  step.upload(in);
  step.poison(stream);
  gate_up(gate_up_args(device, step), stream);
  down_combine(down_args(device, step), stream);
  driver::check(driver::api().cuStreamSynchronize(stream), "cuStreamSynchronize");

  OpCheck r;
  r.shape = fmt::format("{}:{}:{}:{}", sh.H, sh.I, sh.SI, sh.K);
  r.m = m;
  r.e = sh.E;
  r.seed = seed;
  auto act = download_u16(step.act);
  auto sact = download_u16(step.sact);
  auto out = download_u16(step.out);
  auto gref = nvfp4::gate_up_ref(in.x, in.ids, sh.K, host.routed, host.shared);
  r.act = nvfp4::compare_bf16(act, gref.act, gref.act_scale);
  r.sact = nvfp4::compare_bf16(sact, gref.sact, gref.sact_scale);
  if (r.act.over_bound + r.sact.over_bound > 0) diagnose_gate_up(host, in, act, sact, gref, r);
  // down_combine's reference runs on the GPU's own act/sact so that each op is judged alone;
  // unwritten (poisoned) act would show up in r.act already.
  auto dref = nvfp4::down_combine_ref(act, in.ids, in.tw, sact, sh.K, host.routed, host.shared);
  r.out = nvfp4::compare_bf16(out, dref.out, dref.scale);
  return r;
}

SimpleCheck control_summation_order(const nvfp4::SyntheticLayer& host, int m, int blocks,
                                    std::uint64_t seed) {
  const auto& sh = host.shape;
  auto in = nvfp4::make_inputs(sh, m, seed);
  auto seq = nvfp4::gate_up_ref(in.x, in.ids, sh.K, host.routed, host.shared);
  auto split = nvfp4::gate_up_ref(in.x, in.ids, sh.K, host.routed, host.shared, blocks);
  auto act = nvfp4::compare_bf16(split.act, seq.act, seq.act_scale);
  auto sact = nvfp4::compare_bf16(split.sact, seq.sact, seq.sact_scale);
  // down_combine alone, as the GPU check judges it: both orders on the same (sequential) act.
  auto dseq = nvfp4::down_combine_ref(seq.act, in.ids, in.tw, seq.sact, sh.K, host.routed, host.shared);
  auto dsplit = nvfp4::down_combine_ref(seq.act, in.ids, in.tw, seq.sact, sh.K, host.routed,
                                        host.shared, blocks);
  auto out = nvfp4::compare_bf16(dsplit.out, dseq.out, dseq.scale);
  SimpleCheck r;
  r.pass = act.pass() && sact.pass() && out.pass();
  r.summary = fmt::format(
      "control (CPU only, {}:{}:{}:{} M={}): reference {} vs sequential: act {} | sact {} | out {}",
      sh.H, sh.I, sh.SI, sh.K, m,
      blocks == 0 ? std::string("with an exact accumulator")
                  : fmt::format("summed in {} blocks", blocks),
      act.summary(), sact.summary(), out.summary());
  return r;
}

SimpleCheck check_decode_exhaustive(CUstream stream) {
  // Words: each code in all 8 nibbles, for each of the 256 scale bytes (low byte) paired with
  // the same byte (high); every 16-bit pattern as both halves of a word (the decode moves a
  // half on its own path, nvfp4.cuh), with random scales; then 4096 random words and scales.
  std::vector<std::uint32_t> words;
  std::vector<std::uint16_t> scales;
  for (std::uint32_t code = 0; code < 16; ++code)
    for (std::uint32_t s = 0; s < 256; ++s) {
      words.push_back(code * 0x11111111u);
      scales.push_back(static_cast<std::uint16_t>(s | ((255 - s) << 8)));
    }
  std::uint64_t state = fresh_seed();
  for (std::uint32_t half = 0; half < 65536; ++half) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    words.push_back(half | (half << 16));
    scales.push_back(static_cast<std::uint16_t>(state >> 16));
  }
  for (int i = 0; i < 4096; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    words.push_back(static_cast<std::uint32_t>(state >> 32));
    scales.push_back(static_cast<std::uint16_t>(state >> 16));
  }
  const int n = static_cast<int>(words.size());
  driver::DeviceBuffer dwords(n * 4), dscales(n * 2), dout(n * 16), dout_hi(n * 16);
  dwords.upload(words.data(), n * 4);
  dscales.upload(scales.data(), n * 2);
  ProbeParams p{reinterpret_cast<const unsigned int*>(dwords.ptr()),
                reinterpret_cast<const unsigned short*>(dscales.ptr()), n,
                reinterpret_cast<unsigned short*>(dout.ptr()),
                reinterpret_cast<unsigned short*>(dout_hi.ptr())};
  driver::LaunchConfig config;
  config.grid[0] = static_cast<unsigned>((n + 127) / 128);
  config.block[0] = 128;

  // Every decode form the kernels can be built with (MOEGEMV_DECODE), each its own probe.
  const std::string arch = detail::current_arch();
  std::size_t bad = 0, checked = 0;
  std::string first;
  for (int form = 0; form <= kDecodeFormMax; ++form) {
    auto compiled = jit::compile(jit::probe_source(arch, form), "decode_probe", arch,
                                 jit::compile_options(arch));
    driver::Module module(compiled.cubin);
    driver::launch(module.function(jit::kProbeKernel), config, stream, &p);
    std::vector<std::uint16_t> out(n * 8), out_hi(n * 8);
    dout.download(out.data(), n * 16);
    dout_hi.download(out_hi.data(), n * 16);
    for (int i = 0; i < n; ++i) {
      for (int half = 0; half < 2; ++half) {
        const std::uint8_t sbyte = half ? scales[i] >> 8 : scales[i] & 0xFF;
        const float s = nvfp4::e4m3_to_float(sbyte);
        for (int elem = 0; elem < 8; ++elem) {
          const std::uint8_t code = (words[i] >> (4 * elem)) & 0xF;
          // Expected: e2m1 * e4m3 * 2^-kDecodeShift, exact in bf16 (NaN scales: any NaN).
          const float want = std::ldexp(nvfp4::e2m1_to_float(code) * s, -kDecodeShift);
          const std::uint16_t got = (half ? out_hi : out)[8 * i + elem];
          const bool ok = std::isnan(want) ? std::isnan(nvfp4::bf16_bits_to_float(got))
                                           : got == nvfp4::float_to_bf16_bits(want);
          ++checked;
          if (!ok && bad++ == 0)
            first = fmt::format("decode form {}: word {:#010x} elem {} scale {:#04x}: got {:#06x} want {:#06x}",
                                form, words[i], elem, sbyte, got, nvfp4::float_to_bf16_bits(want));
        }
      }
    }
  }
  SimpleCheck r;
  r.pass = bad == 0;
  r.summary = fmt::format("decode: {} values ({} decode forms x (16 codes x 256 e4m3 bytes, both "
                          "scale bytes; every 16-bit half; 4096 random words)), {} wrong{}{}",
                          checked, kDecodeFormMax + 1, bad, bad ? "; first: " : "", first);
  return r;
}

SimpleCheck check_pdl_and_graph(const nvfp4::SyntheticLayer& host, const DeviceLayer& device,
                                int m, int replays, std::uint64_t seed, CUstream stream) {
  const auto& sh = host.shape;
  DeviceStep step(sh, m);
  auto run = [&](bool pdl) {
    gate_up(gate_up_args(device, step), stream, LaunchOptions{pdl});
    down_combine(down_args(device, step), stream, LaunchOptions{pdl});
  };
  auto out_now = [&] {
    driver::check(driver::api().cuStreamSynchronize(stream), "cuStreamSynchronize");
    return download_u16(step.out);
  };
  SimpleCheck r;
  step.upload(nvfp4::make_inputs(sh, m, seed));
  step.poison(stream);
  run(false);
  auto plain = out_now();
  step.poison(stream);
  run(true);
  auto pdl = out_now();
  if (plain != pdl) {
    r.summary = "PDL pair differs from the pair without PDL";
    return r;
  }
  driver::GraphExec graph = driver::capture(stream, [&] { run(true); });
  int mismatches = 0;
  for (int i = 0; i < replays; ++i) {
    step.upload(nvfp4::make_inputs(sh, m, seed + 1 + i));
    step.poison(stream);
    graph.launch(stream);
    auto replayed = out_now();
    step.poison(stream);
    run(false);
    if (replayed != out_now()) ++mismatches;
  }
  r.pass = mismatches == 0;
  r.summary = fmt::format("PDL == no PDL (M={}); graph replays with new inputs: {}/{} identical",
                          m, replays - mismatches, replays);
  return r;
}

SimpleCheck check_capture_refuses_compile(CUstream stream) {
  // A random key nothing has compiled (so neither loaded nor in a cache or bundle).
  const Key key{Kind::kGateUp, 64 * static_cast<int>(1 + fresh_seed() % 200), 64, 0, 3};
  SimpleCheck r;
  try {
    driver::capture(stream, [&] { detail::kernel_for(key, driver::stream_is_capturing(stream)); });
    r.summary = "capture: a compile during capture was NOT refused";
  } catch (const JitDisabledError& e) {
    r.pass = e.key == key.str() && std::string(e.what()).find("prewarm") != std::string::npos;
    r.summary = fmt::format("capture: compile refused: {}", e.what());
  }
  return r;
}

}  // namespace moegemv::harness
