#pragma once
// The generator: picks template arguments for a key and emits a short instantiation with a
// predictable extern "C" name. All kernel logic lives in templates/*.cuh.
#include <map>
#include <string>
#include <vector>

#include "moegemv/key.hpp"
#include "templates/params.h"

namespace moegemv::jit {

/// Archs we generate for: "sm_90" (H100/H200) and the Blackwell family "sm_100a", "sm_103a",
/// "sm_120a". Throws ArgumentError for anything else.
void validate_arch(const std::string& arch);

/// "moegemv_gate_up_7168_2048_2048_8".
std::string kernel_name(const Key& key);
/// The module's second kernel for M = 1 where the config has one: "<kernel_name>_m1" (the classic
/// gate_up's, gu_m1pipe; the streaming down's with dc_cluster: has_cluster_kernel).
std::string single_token_kernel_name(const Key& key);
bool has_single_token_kernel(const KernelConfig& config);
/// The M = 1 kernel's warps per CTA (gu_m1warps; v60: 4 where jit/codegen_m1.cpp says so).
int single_token_warps(const KernelConfig& config);
// gate_up's second kernel for M >= config.group: two 8-feature tiles per routed CTA (session 13).
std::string many_token_kernel_name(const Key& key);
bool has_many_token_kernel(const KernelConfig& config);
/// The M from which the launcher takes the two-tile kernel: gu_tmin, else the grouping's M.
int many_token_min_m(const KernelConfig& config);
/// The streaming down's second kernel, repeated experts grouped (templates/down_group.cuh), run
/// from M = config.group to kDownGroupMaxM: "<kernel_name>_group", and its instantiation (its
/// producer one lane per ring where config.lanes or down_group_lanes_default says so).
std::string group_kernel_name(const Key& key);
std::string group_kernel_source(const Key& key, const KernelConfig& config);
/// Its rings: config.rings where it fits (ArgumentError naming MOEGEMV_TUNE otherwise), else the
/// default (down_group_rings: the most that keep the SM in the 196 KB split).
int group_rings(const Key& key, const KernelConfig& config);

/// dc_cluster=C (jit/codegen_cluster.cpp): the streaming down's M = 1 kernel whose CTAs share the
/// act rows over clusters of C (templates/down_cluster_act.cuh), named single_token_kernel_name;
/// check_down_cluster throws ArgumentError naming MOEGEMV_TUNE where the config cannot take it
/// (not the streaming down, or act staged CTA-wide); its instantiation from the streaming
/// kernel's values.
bool has_cluster_kernel(const KernelConfig& config);
void check_down_cluster(const Key& key, const KernelConfig& config, const std::string& tune);
std::string cluster_kernel_source(const Key& key, const KernelConfig& config,
                                  const std::map<std::string, std::string>& values);

/// The scale-after candidates' conditions (jit/codegen_safter.cpp): dc_safter=1 (slot_after.cuh)
/// throws ArgumentError naming it where the streaming down's config cannot take it; gu_safter=1
/// (tile_after.cuh, split_after.cuh) becomes 0 where the classic gate_up's routed tiles do not
/// run (the streaming gate_up, H % 128 != 0) and throws where they are asked for without what it
/// needs.
bool down_safter_applies(const Key& key, const KernelConfig& config);
void check_down_safter(const Key& key, const KernelConfig& config);
// 0: no cap needed (the gate_up config: the same shape's)
int down_safter_register_cap(const KernelConfig& gate_up, const KernelConfig& down);
void settle_gate_up_safter(const Key& key, KernelConfig& config);

/// gu_m1split (jit/codegen_m1.cpp): which M = 1 knobs the tune named; the M = 1 kernel on the
/// split tile settled (its fields filled in, or off where the config cannot take it: an
/// ArgumentError naming MOEGEMV_TUNE if it was asked for).
struct M1Asked {
  bool split = false, shx = false, pipe = false, minb = false, warps = false;
};
void settle_m1_split(const Key& key, KernelConfig& config, const M1Asked& asked,
                     const std::string& tune);

/// The streaming kernels' configs (jit/codegen_stream.cpp): the shared memory a config takes
/// (either kernel form), and the unset fields of a streaming config filled in (false where the
/// shape cannot take the streaming kernel).
int config_smem(const Key& key, const KernelConfig& config);
bool complete_stream_config(const Key& key, KernelConfig& config, bool pipe_set, bool warps_set);

/// The kernel configuration for key: templates/defaults.h, then `tune` overrides
/// ("gu_warps=8,dc_direct=1,..."; ArgumentError naming MOEGEMV_TUNE on a bad entry).
KernelConfig kernel_config(const Key& key, const std::string& tune);
/// ... with Options::global().tune.
KernelConfig kernel_config(const Key& key);

/// Warps per CTA for the key (the same table the launcher uses: templates/defaults.h).
int block_warps(const Key& key);

/// Dynamic shared memory bytes per CTA; validates that it fits (ArgumentError otherwise).
int smem_bytes(const Key& key);
/// The same for an explicit config.
int smem_bytes(const Key& key, const KernelConfig& config);

/// Deterministic CUDA source for (key, arch); embeds the templates hash.
std::string generate_source(const Key& key, const std::string& arch);

/// The same for an explicit MOEGEMV_TUNE string instead of the process options (tests, tools).
std::string generate_source(const Key& key, const std::string& arch, const std::string& tune);

/// NVRTC options for arch.
std::vector<std::string> compile_options(const std::string& arch);

/// The decode-probe kernel used by the exhaustive decode test, built with one of the decode
/// forms (MOEGEMV_DECODE, 0..kDecodeFormMax).
inline constexpr const char* kProbeKernel = "moegemv_decode_probe";
std::string probe_source(const std::string& arch, int decode_form = 0);

/// The scale-after probe (templates/probe.cuh safter_probe; SafterProbeParams): the mma on raw
/// bf16-subnormal weights that dc_safter / gu_safter rely on.
inline constexpr const char* kSafterProbeKernel = "moegemv_safter_probe";
std::string safter_probe_source(const std::string& arch);

/// The cluster-staging probe (templates/cluster_probe.cuh; ClusterProbeParams): kernels
/// moegemv_cluster_probe_C for C = 2, 4, 8, to be launched in clusters of C, 128 threads at most.
inline constexpr const char* kClusterProbeKernel = "moegemv_cluster_probe";
std::string cluster_probe_source(const std::string& arch);

/// The streaming-read kernel the benchmark measures its ceiling with.
inline constexpr const char* kStreamReadKernel = "moegemv_stream_read";
std::string stream_read_source(const std::string& arch);

/// Diagnostic kernels moegemv_tile_read_CHUNK_ROUNDS_WORK: read a matrix with the GEMV tiles'
/// access pattern (StreamReadParams: data, n16 = row bytes, sink), CHUNK bytes per row per warp
/// step, ROUNDS x 4 synthetic instructions of kind WORK per 16-byte load (templates/tile_read.cuh):
/// 64/128/256 with 0; 64 and 128 with 8, 16, 24 IMAD (0); 128 with 8, 16, 24 HMUL2 (1) and with
/// 2, 4, 8 F2FP (2).
std::string tile_read_source(const std::string& arch);

/// Diagnostic kernels moegemv_hot_read and moegemv_hot_read_cluster (HotReadParams,
/// templates/hot_read.cuh): every CTA stages the same few KB, or its own copy of them, beside its
/// own cold weights; or a cluster's CTAs share one read of them (`moegemv bench --hot`).
inline constexpr const char* kHotReadKernel = "moegemv_hot_read";
std::string hot_read_source(const std::string& arch);

}  // namespace moegemv::jit
