// The kernel configuration: the struct the generator fills (jit/codegen.cpp, kernel_config) and
// the launcher reads, and the macros through which some of its choices reach the templates.
// Shared verbatim by the host (g++) and the device (NVRTC), as params.h. Plain C++.
#pragma once

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define MOEGEMV_HD __host__ __device__
#else
#define MOEGEMV_HD
#endif

// DIAGNOSTIC ONLY (MOEGEMV_TUNE gu_knock / dc_knock = bits): removes work from the classic kernels
// so that the benchmark shows what that work costs; the results are WRONG. Bit 1: the e2m1 decode
// becomes one shift per bf16x2; 2: no scale multiply; 4: gate_up does not stage x; 8: routed
// gate_up takes its expert from the pair index, not from ids (no dependent load before the
// weights); 16: the decode's three masks become integer multiplies (nvfp4.cuh: the same issue
// count, three integer-ALU ops per word fewer). The streaming down only (session 27): 32, its
// producer copies no weights (each slot's phase completes with no bytes; the consumers compute on
// whatever the slot holds); 64, its consumers skip the dot product (the copies, waits, releases
// and the combine stay). Each tells how long the down takes without the other half of its work.
// 128: every unit's block scales are tile 0's (they stay in L1/L2): what the scale loads' latency
// under a loaded memory system costs the consumers. 256: as 32, but each copy's runs are prefetched
// into L2 instead (the DRAM traffic without the shared-memory writes). 512 (session 43): the
// streaming down's consumer warps stage no act where they stage it per warp (dc_wstage; the
// CTA-wide staging stays), their dot products reading whatever shared memory holds: what reading
// gate_up's output after the PDL wait costs.
#ifndef MOEGEMV_KNOCK
#define MOEGEMV_KNOCK 0
#endif
#ifndef MOEGEMV_GU_STAGE
#define MOEGEMV_GU_STAGE 0
#endif
#ifndef MOEGEMV_GU_ORDER
#define MOEGEMV_GU_ORDER 0
#endif
#ifndef MOEGEMV_GU_GROUP
#define MOEGEMV_GU_GROUP 0
#endif
#ifndef MOEGEMV_DC_SAHEAD
#define MOEGEMV_DC_SAHEAD 1
#endif
// The streaming down's copies (down_stream.cuh): MOEGEMV_DC_RUNS 2 = a slot's 8 rows as two runs
// of 4, kRunPad apart (no bank conflict), 1 = one copy of all 8 (2-way conflicts, half the
// copies); MOEGEMV_DC_LANES 1 = each segment's copy issued by its own producer lane (2, 3:
// variants, down_produce.cuh).
#ifndef MOEGEMV_DC_RUNS
#define MOEGEMV_DC_RUNS 2
#endif
#ifndef MOEGEMV_DC_LANES
#define MOEGEMV_DC_LANES 0
#endif
// MOEGEMV_DC_SPRE (session 29): the streaming down's producer prefetches the block scales into
// L2, so that the consumers' scale loads, one unit ahead, hit L2 instead of queueing behind the
// bulk copies in DRAM (session 28, call 11). 1: each segment's lane issues one bulk prefetch
// (cp.async.bulk.prefetch.L2) of every 128-row block the CTA's units of a token touch, before
// that token's first copy; 2: the same after the token's first unit's copies; 3: after unit u's
// copies, unit u + 1's lines (one 128-byte line per 512-byte atom, prefetch.global.L2).
#ifndef MOEGEMV_DC_SPRE
#define MOEGEMV_DC_SPRE 0
#endif
// MOEGEMV_DC_EARLY 1: the streaming down loads its first token's routing info and the shared
// expert's global scale before griddepcontrol.wait (session 7; session 8, runs 1-2 and 12: passes
// the check, no gain in the pair).
#ifndef MOEGEMV_DC_EARLY
#define MOEGEMV_DC_EARLY 0
#endif

// MOEGEMV_DC_LAUNCH: where the streaming down lets the next kernel (the next layer's gate_up)
// launch: 0 right after its PDL wait; 1 after its first token's act is staged; 2 after its last
// unit, so that the next gate_up's pre-wait weight loads do not compete with the down's loads
// after its wait. Session 8 (run 4): no effect on any preset; 0 stays.
#ifndef MOEGEMV_DC_LAUNCH
#define MOEGEMV_DC_LAUNCH 0
#endif

// MOEGEMV_DC_WSTAGE 1: with one warp per segment (chunks = 1), each consumer warp stages its own
// act row and the combiner the routing info (the first token's before the PDL wait), with no CTA
// barrier at a token change (session 8, run 13, n w w n: Qwen3-Next down 6.66 -> 5.80 us, pair
// with PDL M=1 12.57 -> 11.82, M=2 20.55 -> 19.30, M=4 30.8 -> 28.5, M=8 53.8 -> 51.0); 2: also
// with several warps per segment (v27, session 9).
#ifndef MOEGEMV_DC_WSTAGE
#define MOEGEMV_DC_WSTAGE 0
#endif

// MOEGEMV_DECODE (nvfp4.cuh), bits: two steps of the decode done on the FMA pipe instead (HMUL2
// by 1 with the .H1_H1 operand), same bits. 1: the second byte lookup's selectors (the high half
// of a word's sign-cleared nibbles) moved by an f16 multiply, not a shift (integer ALU; one per
// 8 weights); 2: each block scale S broadcast to both halves of its bf16x2 by a bf16 multiply,
// not an F2FP pack (one per 16 weights).
// Session 14 (v40 = bit 1, v41 = bit 2); measured in session 18 (kDecodeDefault).
#ifndef MOEGEMV_DECODE
#define MOEGEMV_DECODE 0
#endif
// MOEGEMV_B_INDEX (tile.cuh BIndex, GlobalB): 1 = the B operand's group indices as int, so a
// step's shared loads take immediate offsets, and x read from global per step from one base
// pointer per step (session 14, v42: gate_up's loops 4-6% fewer instructions, cuobjdump; session
// 18, H100: no gain, +1.7% on DeepSeek-V3's gate_up at M = 1); 0 = as before.
#ifndef MOEGEMV_B_INDEX
#define MOEGEMV_B_INDEX 0
#endif
// MOEGEMV_DC_GCOUNT (down_group.cuh GroupUnitWalk): 1 = the grouped down's units walked by
// counting (item round and tile) instead of a run-time division and modulo by the CTA's tile count
// per unit in each warp (session 14, v43; session 18, H100, with the other candidates at M = 16:
// within the spread); 0 = divided, as before.
#ifndef MOEGEMV_DC_GCOUNT
#define MOEGEMV_DC_GCOUNT 0
#endif
// MOEGEMV_DC_SAFTER (slot_after.cuh; session 19, the default where defaults.h down_safter_default
// holds since v48): 1 = the streaming
// down applies each block scale to fp32 sums of unscaled products (B columns keep the k-blocks
// apart), not to the weights; 0 = the scale multiply per weight, as before.
#ifndef MOEGEMV_DC_SAFTER
#define MOEGEMV_DC_SAFTER 0
#endif

// MOEGEMV_GU_SAFTER (split_after.cuh; session 20, opt-in: slower on both cards): 1 = gate_up's
// routed split tile (one tile per CTA) applies each block scale to fp32 sums of unscaled products,
// as MOEGEMV_DC_SAFTER; 0 = the scale multiply per weight, as before.
#ifndef MOEGEMV_GU_SAFTER
#define MOEGEMV_GU_SAFTER 0
#endif

// MOEGEMV_GU_SPAIR (session 24, opt-in; session 25: gate_up -0.8..+0.2% at M=1, not a default):
// 1 = each routed CTA (classic tiles) takes features whose block scales share 32-byte sectors
// (params.h gate_up_spair_feature), so that its scale loads use every byte they fetch; 0 =
// consecutive features (half of each sector used).
#ifndef MOEGEMV_GU_SPAIR
#define MOEGEMV_GU_SPAIR 0
#endif

// MOEGEMV_GU_DPREK (session 40, opt-in): with gate_up's DPRE, each share of the down block is
// asked for by this many CTAs (1, 2, 4 or 8) spread over the pair's (gate_up_dpre.cuh): the
// first of them to finish brings it into L2, the others find it there.
#ifndef MOEGEMV_GU_DPREK
#define MOEGEMV_GU_DPREK 1
#endif

namespace moegemv {

constexpr int kDecodeFormMax = 3;  // MOEGEMV_DECODE's forms: 0..kDecodeFormMax
// The default form (both kernels; the template's own default, 0, is what the macro's absence
// means). Session 18 (H200, run 1: n d d n, 3 against 0, same bits): pair with PDL DeepSeek-V3
// -2.3..-4.3% at M = 1..16, Llama-4 -0.8..-2.2%, Qwen3-Next -0.5..-1.7%, GLM-4.5 -0.4..-4.6% at
// M = 1..4; but GLM-4.5's grouped down (from M = 8) lost (+2.0% at M = 8, +5.7% at 16), so a
// down module whose grouped kernel runs from M <= 8 keeps 0 (jit/codegen.cpp). On an H100
// (session 18, run 2) the same change gave -1.6% on DeepSeek-V3's gate_up at M = 1.
constexpr int kDecodeDefault = 3;

// DIAGNOSTIC (MOEGEMV_TIMELINE, templates/timeline.cuh): CTAs whose start / PDL wait / end are
// recorded (later CTAs are not).
constexpr int kTimelineCtas = 32768;

// Kernel configuration: a function of the key (plus an optional tuning override), used by the
// generator (template arguments, __launch_bounds__) and by the launcher (block, smem).
struct KernelConfig {
  int warps;       // warps per CTA, splitting K
  int pipe;        // 128-element steps in flight per warp
  int direct_b;    // 1: B (x / act) read from global per step; 0: staged in shared memory
  int min_blocks;  // __launch_bounds__ minimum CTAs per SM (register budget)
  int l2_prefetch; // down_combine: bulk-prefetch the CTA's weights into L2 before the PDL wait
  int ring;        // 1: weights through a per-warp shared-memory ring (cp.async), B staged in smem;
                   // 2 (down_combine): the same in a persistent kernel, one CTA per SM
  int split;       // down_combine: 8-row tiles with the two K halves as mma row groups (when
                   // every K length is a multiple of 128); 0: 16-row tiles. gate_up: routed
                   // rows read as two 128-element halves on adjacent mma rows (tile_split.cuh)
  int stream;      // 1: the persistent bulk-copy kernels (templates/stream.cuh); then `warps` are
                   // the consumer warps (one producer warp more), `pipe` the slots per ring
  int chunks;      // stream down_combine: warps per segment (splitting its steps)
  int slots;       // stream gate_up: tokens of x staged at once (shared-expert mma columns)
  int stage;       // gate_up: 1 = each warp stages only its own slice of x, loads issued before
                   // the ids load, no CTA barrier (MOEGEMV_GU_STAGE)
  int order;       // gate_up: 1 = the shared expert's CTAs first in the grid (MOEGEMV_GU_ORDER)
  int group;       // from M = group on (0: never), pairs sharing an expert are computed once as
                   // mma columns (gate_up: MOEGEMV_GU_GROUP; the streaming down: down_group.cuh)
  int tiles;       // gate_up, split tile: 2 = a second kernel, two 8-feature tiles per routed CTA
  int tiles_min_m; // ... launched from M = tiles_min_m on (0: from M = group; gu_tmin, a launch-time
                   // experiment, no source change; session 25)
  int rings;       // the grouped down's rings (0: the default, down_group_rings)
  int sahead;      // streaming down_combine: block scales 1 or 2 units ahead (MOEGEMV_DC_SAHEAD,
                   // stream.cuh ScaleFeed); 0 in gate_up
  int knock;       // DIAGNOSTIC ONLY, wrong results: bits of work removed from the classic kernels
                   // to see what bounds them (MOEGEMV_KNOCK above); 0 in real use
  int timeline;    // DIAGNOSTIC ONLY: 1 = CTA timestamps (MOEGEMV_TIMELINE, timeline.cuh); 0 in real use
  int runs;        // streaming down_combine: copies per 8-row slot, 1 or 2 (MOEGEMV_DC_RUNS); 0 in gate_up
  int lanes;       // streaming down_combine: 1 = one producer lane per segment (MOEGEMV_DC_LANES;
                   // 2, 3: variants that prepare each copy before waiting, no gain in session 8)
  int early;       // streaming down_combine: 1 = routing info before the PDL wait (MOEGEMV_DC_EARLY)
  int spre;        // streaming down_combine: block scales prefetched into L2 by the producer: 1, 2
                   // per token (before / after its first copies), 3 per unit (MOEGEMV_DC_SPRE)
  int launch;      // streaming down_combine: where griddepcontrol.launch_dependents is
                   // (MOEGEMV_DC_LAUNCH)
  int wstage;      // streaming down_combine: 1 = per-warp act staging with one warp per segment,
                   // 2 = also with several (MOEGEMV_DC_WSTAGE)
  int maxreg;      // registers per thread (__maxnreg__) instead of __launch_bounds__; 0: bounds
  int m1_pipe;     // classic gate_up: a second kernel in the module for M = 1 with this many
                   // steps in flight (0: none; the launcher picks it when M = 1)
  int m1_minb;     // ... and this many CTAs/SM for its __launch_bounds__
  int m1_split;    // 1: that kernel on the split tile, the shared expert's too (shx in that
                   // kernel only; jit/codegen_m1.cpp sets its shx, steps and CTAs/SM)
  int m1_warps;    // ... and its warps per CTA (0: warps; gu_m1warps, v60)
  int decode;      // bits of MOEGEMV_DECODE: decode steps moved to the FMA pipe; 0: none
  int bindex;      // 1: B group indices as int (MOEGEMV_B_INDEX); 0: unsigned
  int gcount;      // grouped down: 1 = units walked by counting (MOEGEMV_DC_GCOUNT); 0: divided
  int shx;         // gate_up at M = 1: 1 = the shared expert's x staged in shared memory, 2 = and its
                   // tile split (gate_up.cuh's SHX argument; session 14, v44; session 18, H100:
                   // gate_up 3-5% slower on DeepSeek-V3 and GLM-4.5 at M = 1); 0 = x per step
  int safter;      // 1 = block scales applied after the mma: the streaming down (MOEGEMV_DC_SAFTER),
                   // gate_up's routed split tile (MOEGEMV_GU_SAFTER)
  int spair;       // gate_up's routed tiles: 1 = features paired by scale sector (MOEGEMV_GU_SPAIR)
  int dpre;        // classic gate_up, the kernel run at M = 1: its CTAs ask L2 for the down's
                   // weights passed as a hint, 1 at their start, 2 at their end, 3 = 2 without
                   // the scales (gate_up_dpre.cuh,
                   // gate_up's DPRE; v62's default: defaults.h); 0: none
  int dprek;       // ... each share asked by this many CTAs (MOEGEMV_GU_DPREK); 0 or 1: one
  int carve;       // 0: the driver's L1/shared split; P + 1: a preferred carveout of P percent
                   // shared (gu_|dc_carve=P, set on the loaded functions; a hint, no source change)
  int cluster;     // streaming down: C in 2..8 = a second kernel for M = 1 whose CTAs share the
                   // act rows over clusters of C (dc_cluster, down_cluster_act.cuh); 0 or 1: none
};

}  // namespace moegemv
