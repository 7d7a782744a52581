// The per-shape defaults of the kernel configuration (what jit/codegen.cpp starts from before the
// tune string and the shape's limits), each with the measurement that chose it. Shared verbatim by
// the host (g++) and the device (NVRTC), as params.h, which includes it. Plain C++.
#pragma once

#include "kernel_config.h"

namespace moegemv {

// Measured on the H200 (docs/PERF.md, variants n0-n5, l0-l2, z0-z2): the classic gate_up wants
// many small CTAs resident (2 steps in flight, 5 CTAs/SM); the classic down_combine 4 warps reading
// act directly (2 steps in flight), 4 CTAs/SM, and no bulk L2 prefetch of all its weights (74 MB >
// 60 MB L2 at M=1: it thrashed). Session 3: the streaming kernels (stream = 1) where the shape
// takes them (jit/codegen.cpp falls back to these classic configs otherwise).
constexpr int kStreamGateUpDefault = 0;
constexpr int kStreamDownDefault = 1;
// Session 4 (runs 3 and 5, docs/PERF.md): gate_up's split rows (tile_split.cuh) at 4 CTAs/SM on
// the wide many-expert shapes: the pair with PDL 1-6% faster at M=1 and 1-9% at M=4 on
// DeepSeek-V3 and GLM-4.5; slower on Qwen3-Next (H = 2048) and Llama-4 (K = 1).
// (jit/codegen.cpp drops the split where H % 256 != 0.)
MOEGEMV_HD constexpr bool gate_up_split_default(int h, int k) { return h >= 4096 && k >= 8; }
// Resident warps per SM the classic gate_up is built for: 20 (96 registers), 16 with the split
// tile's two row sets (~128 registers); __launch_bounds__ gets them as CTAs of `warps` warps.
MOEGEMV_HD constexpr int gate_up_min_blocks(bool split, int warps) {
  const int ctas = (split ? 16 : 20) / warps;
  return ctas > 1 ? ctas : 1;
}
// Session 4 (run 6): at H <= 2048 a 4-warp CTA gives each warp only 4 steps; 2 warps per CTA
// (10 CTAs/SM) made Qwen3-Next's gate_up 15% faster at M=1 and 9% at M=4.
MOEGEMV_HD constexpr int gate_up_warps_default(int h) { return h <= 2048 ? 2 : 4; }
// Session 5 (run 3): each warp stages only its own slice of x, loads issued before the ids load,
// no CTA barrier: gate_up 2-7% faster at M=1 on all four presets (DeepSeek-V3 50.0 -> 48.9 us,
// GLM-4.5 30.9 -> 28.8, Llama-4 35.9 -> 34.7, Qwen3-Next 7.65 -> 7.50).
constexpr int kGateUpStageDefault = 1;
// Session 5 (run 9, A B A B): the shared expert's CTAs first in the grid: gate_up M=1 DeepSeek-V3
// 49.0 -> 47.3 us, GLM-4.5 28.9 -> 27.6, Llama-4 34.6 -> 34.0, Qwen3-Next M=4 18.9 -> 17.7; the
// pair with PDL 0-2.5% faster, never slower.
constexpr int kGateUpOrderDefault = 1;
// Session 11 (run 8, n g g n, gu_group=2): a repeated expert's pairs computed once
// (gate_up_group.cuh): gate_up M=16 DeepSeek-V3 631 -> 547 us (-13%), GLM-4.5 330 -> 284 (-14%);
// M=8 -4.7% / -3.0%; but M=2 and M=4 0..+4.5% (the per-CTA scan, few repeats): so from M = 8 on.
// Where the split tile is the default only: on the classic tile's shapes (the group path a call
// there, no spill) run 10 measured gu_group=8 slower: Qwen3-Next gate_up M=8 +8%, M=16 +6%,
// Llama-4 M=8 +4% (their CTAs are small, so the per-CTA scan weighs more).
constexpr int kGateUpGroupDefault = 8;
// Session 13 (runs 3-5): two tiles per routed CTA, from M = group on, gate_up -2..-5% at M = 8..16
// (DeepSeek-V3, GLM-4.5); at M = 1..4 +2..+6%: so a second kernel, launched where grouping runs.
constexpr int kGateUpTilesDefault = 2;
// The streaming down's block scales travel `sahead` units ahead of their use (stream.cuh,
// ScaleFeed): 1 in registers, parked in one buffer of scratch per warp; 2 through a cp.async ring
// of 3 buffers. Session 6 (runs 4, 6, 7; docs/PERF.md): 2 made the down kernel 2.5-9% faster on
// DeepSeek-V3, GLM-4.5 and Llama-4 (0.5% slower on Qwen3-Next), and the pair with PDL 1.5-4%
// faster on GLM-4.5 and Llama-4 but 1.5% slower on DeepSeek-V3 at M=1 and 1.5-6% at M=4 (PDL's
// overlap shrank there; cause not found). So 2 only where it measured faster with PDL.
// Session 8 (runs 3, 4, each n s s n in one run): with one producer lane per segment (session 7)
// the ring wins at I <= 512 too: Qwen3-Next down -7..-9% (M=1 6.86 -> 6.35 us), pair with PDL
// M=1 14.35 -> 14.15, M=2 21.0 -> 20.3, M=4 32.2 -> 31.2 (runs 8-9 then put Qwen3-Next on two
// CTAs per SM with the feed in registers: down_two_per_sm_default; this stands where those do
// not fit).
// Session 19 (v47): session 6's gain was mostly the wait v46 removed (the register feed joined its
// u16s right after loading them, a unit early). With v46, registers beat the ring on the H100
// (n s s n, twice at M = 1..4): GLM-4.5 down -3.1/-3.3% at M=1, -2.1/-2.3% at M=2, pair with
// PDL -1.0/-1.3% at M=1, -0.9/-1.0% at M=4, +0.2/+0.3% at M=2 (spread 0.4%), M = 8, 16 +-0.3%;
// Llama-4 down -2.0..-3.5% at M = 1..16, pair with PDL -0.3..-1.4%. So the ring stays only at
// I <= 512 where two CTAs per SM do not fit (not measured since session 8).
MOEGEMV_HD constexpr int down_scale_ahead_default(int i) { return i <= 512 ? 2 : 1; }
// Session 7 (runs 4-6, A/B in each): the streaming down's producer lane 0 issues ~100 cycles per
// copy; at I = 512 (1 KB runs, 22 copies per unit on Qwen3-Next) that bounds the kernel, and one
// producer lane per segment made Qwen3-Next's down 20% faster at M=1 (8.6 -> 6.9 us) and 32% at
// M=4 (24.5 -> 16.6), the pair with PDL 10% / 20%. On the larger I it made DeepSeek-V3's down 5%
// and GLM-4.5's 14% slower (Llama-4 +1%), so only there. One copy per slot (dc_runs=1) measured
// -10% on Qwen3-Next in order but +7% with the lanes, -2..5% on GLM-4.5, +-1% elsewhere: not used.
MOEGEMV_HD constexpr int down_producer_lanes_default(int i) { return i <= 512 ? 1 : 0; }
// Session 8 (runs 2, 3, 6, 7): a second gate_up kernel for M = 1 with 3 steps in flight at 16
// resident warps per SM (~128 registers, no spill), where it measured faster: Qwen3-Next (H <=
// 2048; 8 CTAs/SM) pair with PDL at M=1 14.06 -> 13.02 us (run 6; one kernel for all M was +5%
// at M=2, +8% at M=4: fewer CTAs/SM over several waves); Llama-4 (K = 1; 4 CTAs/SM) gate_up
// 33.9 -> 33.0, pair with PDL 53.6 -> 53.15 (run 7). DeepSeek-V3 and GLM-4.5 (the split tile at
// 4 CTAs/SM): gate_up 1-2.5% slower, none.
MOEGEMV_HD constexpr int gate_up_single_token_pipe(int h, int k) {
  return h <= 2048 || k == 1 ? 3 : 0;
}
MOEGEMV_HD constexpr int gate_up_single_token_min_blocks(int warps) {
  return 16 / warps > 1 ? 16 / warps : 1;
}
// v57 (session 32): where K = 1 and H >= 4096 (Llama-4) the M = 1 kernel takes the split tile with
// the shared expert's split too (v56's config at M = 1 only): the pair with PDL at M=1 -4.4%, and
// v56's split for every M +1.3% at M=16 (H100, session 32 call 3; docs/PERF.md).
// v58 (session 34, an H100, mirrored A/Bs at M=1 with MOEGEMV_TUNE=gu_m1split=1): where
// H <= 2048 too: the pair with PDL Qwen3-Next -2.1 / -2.3 / -1.9%, Qwen3.5-35B -2.8%, Qwen2-MoE
// -2.5%, Qwen3-30B -3.4% (gate_up alone -0.3..-1.8%, Qwen3.5's +2.0%); M = 2, 4 unchanged (the
// M = 1 kernel only). The build's own A/B against v57 gave the same (-2.1..-3.3%).
MOEGEMV_HD constexpr bool gate_up_m1_split_default(int h, int k) {
  return (h >= 4096 && k == 1) || h <= 2048;
}
constexpr int kGateUpM1SplitPipe = 2;  // its steps in flight (3 spill with the split)
// v59 (session 35, an H100, mirrored A/Bs at M=1 with MOEGEMV_TUNE=gu_m1minb=6, calls 6-7): that
// kernel at 6 CTAs/SM (153 registers) instead of 8 (128) where H <= 2048 and its M = 1 grid
// (one 8-feature tile per CTA) fits one wave of 6 on the 132 SMs of an H100 SXM or H200: the
// pair with PDL at M=1 Qwen3-Next -2.7 / -2.5%, Qwen3.5-35B -1.8 / -2.0%, Qwen3-30B -2.9%;
// Qwen2-MoE (1408 CTAs: two waves of 6) +1.1%, so not there. gate_up alone -0.4..+2.6%, M = 2
// unchanged (the M = 1 kernel only). 7 CTAs/SM compiles to 8's 128 registers and measured as 8,
// 5 to 6's 153 and as 6: what counts is how many CTAs an SM can hold. Why (session 36, call 5's
// timelines): under PDL the grid launches while the previous layer's down holds the SMs, and each
// SM that frees takes CTAs up to that capacity; at 8 some SMs got 7-8 of the 704 and ~20-30 got
// 2-4, at 6 they are near even. Alone (no PDL) the spread is even either way, and gate_up alone
// did not change. More of a warp's 4 steps in flight was 8-24% slower (call 2), so the earlier
// loads seen in the SASS are not the cause. The rule assumes 132 SMs (a key
// carries no SM count): on a part with fewer (an H100 PCIe's 114: 684 slots of 6) Qwen3-Next's
// 704 CTAs take a short second wave, as Qwen2-MoE's do here (+1.1%); not measured there.
// The split tile (tile_split.cuh): rows in 128-element halves, each of a CTA's warps whole
// 256-element steps of H (SplitDot's step count drops a remainder).
MOEGEMV_HD constexpr bool split_tile_fits(int h, int warps) { return h % (256 * warps) == 0; }

constexpr int kGateUpM1WaveSms = 132;
constexpr int kGateUpM1OneWaveMinBlocks = 6;
// ctas: the M = 1 grid (params.h gate_up_routed_ctas + gate_up_shared_ctas: (K * I + SI) / 8).
MOEGEMV_HD constexpr bool gate_up_m1_one_wave(int h, int ctas) {
  return h <= 2048 && ctas <= kGateUpM1OneWaveMinBlocks * kGateUpM1WaveSms;
}
// v60 (session 36, an H100): where that one wave holds, 4-warp CTAs (each warp 2 of a tile's 8
// steps at H = 2048), so twice the resident warps at the same 704 CTAs, at 1 step in flight: 6
// CTAs of 4 warps need <= 85 registers (6 warps in each quarter of the register file), and
// ptxas gives 80 with 24 bytes of stack at 1 step (120 at 2). Call 13 had shown this kernel's M=1
// time following its resident warps (half of them: +25%), call 3 not its steps in flight (1 as
// 2). Call 16 (MOEGEMV_TUNE=gu_warps=4,gu_m1minb=6,gu_m1pipe=1, mirrored n W W2 W2 W n): gate_up
// alone -4.5% (Qwen3-Next) / -8.4% (Qwen3.5-35B), the pair with PDL -2.6% / -5.8%; at 2 steps
// +48% / +37%.
// The default since session 37 (call 1, an H100, with MOEGEMV_TUNE=gu_m1warps=4, which builds
// exactly this kernel where it fits: mirrored n W W2 n2): the pair with PDL at M=1 Qwen3-Next
// -2.8%, Qwen3.5-35B -5.9%, Qwen3-30B -2.8%, M=2 -1.1..+0.5%; `moegemv check`'s FAIL keys
// issue #3's, as v59's. Clearing kGateUpM1WideByDefault gives v59's kernel back (tests/jit's
// test_m1split.cpp and test_nvrtc.cpp follow the flag).
constexpr bool kGateUpM1WideByDefault = true;
constexpr int kGateUpM1WideWarps = 4;
constexpr int kGateUpM1WidePipe = 1;
MOEGEMV_HD constexpr bool gate_up_m1_wide_fits(int h, int ctas) {
  return gate_up_m1_one_wave(h, ctas) && split_tile_fits(h, kGateUpM1WideWarps);
}
MOEGEMV_HD constexpr int gate_up_m1_split_warps(int h, int ctas, int warps) {
  return kGateUpM1WideByDefault && gate_up_m1_wide_fits(h, ctas) ? kGateUpM1WideWarps : warps;
}
// Its steps in flight: 1 with 4 warps where the wide kernel fits (asked for or by default), else
// kGateUpM1SplitPipe.
MOEGEMV_HD constexpr int gate_up_m1_split_pipe(int h, int ctas, int warps) {
  return warps == kGateUpM1WideWarps && gate_up_m1_wide_fits(h, ctas) ? kGateUpM1WidePipe
                                                                       : kGateUpM1SplitPipe;
}
// v61 (session 38, an H100, MOEGEMV_TUNE=gu_m1minb=5,gu_m1pipe=1, mirrored, two calls): v60's
// kernel at 5 CTAs/SM (96 registers, no stack; at 6 it has 80 and a spill) where its grid is one
// wave of 5 (<= 660 CTAs: Qwen3.5-35B's 576). The timeline shows why it costs nothing there: the
// 576 CTAs land 5 on 48 SMs and 4 on 84 with the cap at 6 too. gate_up alone at M=1 -3.5 / -4.0%,
// the pair with PDL -2.3 / -2.1%, M=2 unchanged, the check's sums identical. Qwen3-Next's 704
// CTAs at 5/SM take a second wave (+8.2%): not there. At 2 steps the same cap spills (+23%).
constexpr int kGateUpM1RoomyMinBlocks = 5;
MOEGEMV_HD constexpr int gate_up_m1_split_min_blocks(int h, int ctas, int warps, int pipe) {
  if (!gate_up_m1_one_wave(h, ctas)) return gate_up_min_blocks(true, warps);
  const bool roomy = warps == kGateUpM1WideWarps && pipe == kGateUpM1WidePipe &&
                     ctas <= kGateUpM1RoomyMinBlocks * kGateUpM1WaveSms;
  return roomy ? kGateUpM1RoomyMinBlocks : kGateUpM1OneWaveMinBlocks;
}
// v62 (session 39, an H100, MOEGEMV_TUNE=gu_dpre=2, mirrored, two calls): gate_up's CTAs ask L2
// for their share of the down's weights at their end (gate_up_dpre.cuh) where one token's down
// block (K experts' and the shared expert's weights and scales) is at most 8 MiB, and at M = 1
// only (the launch passes the hint on at M <= kGateUpDpreMaxM). At M=1 the pair with PDL:
// Qwen3-Next -2.9% (both calls), Qwen3.5-35B -2.2 / -3.2%, Qwen3-30B -0.7% (5.3-7.1 MB); gate_up
// alone +2..+8% (the down's bytes now in its window). At M=2 the same shapes +3.4..+7.4%;
// DeepSeek-V3, GLM-4.5, Llama-4 (35-66 MB a token, beyond what L2 keeps) +13..+18% at M=1,
// Qwen2-MoE (12.9 MB) +1.3% (call 6). At the CTA's start (form 1) +10..+13% at M=1: gate_up's own
// loads queue behind the prefetches; without the scales (form 3) +0.0 / +1.6% against form 2.
constexpr int kGateUpDpreDefaultForm = 2;
constexpr long long kGateUpDpreMaxBytes = 8LL << 20;
constexpr int kGateUpDpreMaxM = 1;
// The bytes of one expert's block scales over [rows, cols] (128x4-swizzled; SPEC section 2).
MOEGEMV_HD constexpr long long swizzled_block_bytes(int rows, int cols) {
  return static_cast<long long>((rows + 127) / 128 * 128) * ((cols / 16 + 3) / 4 * 4);
}
// One down block's bytes: rows x len/2 of weights and their scales.
MOEGEMV_HD constexpr long long down_block_bytes(int rows, int len) {
  return static_cast<long long>(rows) * (len / 2) + swizzled_block_bytes(rows, len);
}
MOEGEMV_HD constexpr long long down_token_bytes(int h, int i, int si, int k) {
  return k * down_block_bytes(h, i) + (si > 0 ? down_block_bytes(h, si) : 0);
}
MOEGEMV_HD constexpr int gate_up_dpre_default(int h, int i, int si, int k) {
  return down_token_bytes(h, i, si, k) <= kGateUpDpreMaxBytes ? kGateUpDpreDefaultForm : 0;
}
MOEGEMV_HD constexpr KernelConfig default_gate_up_config(int h, int k) {
  KernelConfig c{};  // fields not named here are 0
  c.decode = kDecodeDefault;
  c.split = gate_up_split_default(h, k) ? 1 : 0;
  c.warps = gate_up_warps_default(h);
  c.pipe = 2;
  c.min_blocks = gate_up_min_blocks(c.split != 0, c.warps);
  c.stream = kStreamGateUpDefault;
  c.stage = kGateUpStageDefault;
  c.order = kGateUpOrderDefault;
  c.group = c.split ? kGateUpGroupDefault : 0;
  c.tiles = c.split ? kGateUpTilesDefault : 0;
  c.m1_pipe = c.split ? 0 : gate_up_single_token_pipe(h, k);
  c.m1_minb = c.m1_pipe ? gate_up_single_token_min_blocks(c.warps) : 0;
  c.m1_split = !c.split && gate_up_m1_split_default(h, k) ? 1 : 0;
  return c;
}
// Session 8 (runs 8, 9, n b c c b n): two streaming down CTAs per SM where I <= 512 and two fit
// at 72 registers (13 warps on Qwen3-Next: 2 x 13 x 32 x 72 = 60K of 64K; a 2-slot ring, so two
// fit in shared memory; the scale feed in registers, since the ring spills 20 bytes at 72): the
// persistent grid doubles, so at M = 1 each CTA takes one unit instead of two after the PDL wait
// (run 5: ~1.6 us per unit). Qwen3-Next pair with PDL M=1 13.04 -> 12.54 us, M=2 +0.3%, M=4
// -2%, M=8 -4%; the down alone is slower (M=1 6.35 -> 6.60): the gain is the overlap.
constexpr int kSmRegisters = 64 * 1024;  // 32-bit registers per SM (sm_90)
constexpr int kDownTwoPerSmRegs = 72;
// (With >= 8 segments the down has one warp per segment, kDownStreamTargetWarps, so its CTA is
// the segments' warps plus the producer and the combiner.)
MOEGEMV_HD constexpr bool down_two_per_sm_default(int i, int si, int k) {
  const int segments = k + (si > 0 ? 1 : 0);
  return i <= 512 && segments >= 8 && 2 * (segments + 2) * 32 * kDownTwoPerSmRegs <= kSmRegisters;
}
// Per-warp act staging by default (jit/codegen.cpp picks it once the warps per segment are known):
// 1 where the streaming down has one warp per segment (v26, Qwen3-Next), 2 where it has several
// and at most 14 segments (v27, session 9: DeepSeek-V3's down -10%, Llama-4's -5%, GLM-4.5's -1%).
constexpr int kDownWarpStageAuto = -1;
// dc_wstage=2 gives each segment a named barrier: ids 2..15 (down_stream.cuh, kSegmentBar0).
constexpr int kDownWarpStageMaxSegments = 14;
// The scale-after down (dc_safter=1, slot_after.cuh) where it gained (session 21, two H100s, pair
// with PDL at M = 1 / 4): GLM-4.5 -1.4 / -1.8% (with its register cap), Llama-4 -0.6 / -1.8..-2.9%,
// Qwen3-Next -0.9..-1.3 / -0.6..-0.7%. Not on DeepSeek-V3's shape (I >= 2048 with K >= 8): its pair
// with PDL lost 1.8-1.9% in both calls (without PDL -1.4%), and capped it lost more. Session 23
// found why: that down needed the SM's 228 KB shared-memory split, in which the next gate_up ran
// 8-10 us longer under PDL; in v50's layout it fits 196 KB and no longer loses under PDL. Session
// 25 (M=1): the down -2.6% on an H200, +4.3% on an H100, the pair with PDL -0.5 / 0.0%: still off.
// jit/codegen.cpp turns it off where its conditions do not hold.
// kDownSafterByDefault: ON from v48. Session 22, against the build before, pair with PDL at M = 1
// / 4: H200 GLM-4.5 -1.4 / -2.0%, Llama-4 -2.0 / -3.7%, Qwen3-Next -1.0 / -1.2% (H100 -1.2 / -1.8,
// -0.5 / -3.0, -1.0 / -0.6%); checks as before.
constexpr bool kDownSafterByDefault = true;
MOEGEMV_HD constexpr bool down_safter_default(int i, int k) { return !(i >= 2048 && k >= 8); }
MOEGEMV_HD constexpr KernelConfig default_down_config(int h, int i, int si, int k) {
  const bool two = down_two_per_sm_default(i, si, k);
  KernelConfig c{};  // fields not named here are 0
  c.warps = 4;       // the classic kernel's (the streaming config replaces warps and pipe)
  c.pipe = 2;
  c.direct_b = 1;
  c.min_blocks = 4;
  c.split = 1;
  c.stream = kStreamDownDefault;
  c.sahead = two ? 1 : down_scale_ahead_default(i);
  c.runs = 2;
  c.lanes = down_producer_lanes_default(i);
  c.maxreg = two ? kDownTwoPerSmRegs : 0;
  c.wstage = kDownWarpStageAuto;
  c.decode = kDecodeDefault;  // 0 where the grouped down runs from M <= 8 (jit/codegen.cpp)
  c.safter = kDownSafterByDefault && down_safter_default(i, k) ? 1 : 0;
  return c;
}

}  // namespace moegemv
