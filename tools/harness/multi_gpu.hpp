#pragma once
// Issue #6: the MoE block sharded over N GPUs of one host, one process per GPU, partial outputs
// summed with an NCCL bf16 all-reduce (what vLLM/SGLang do), timed as CUDA-graph replays and
// checked against the unsharded CPU reference. Needs N GPUs and libnccl.so.2.
#include <string>
#include <vector>

namespace moegemv::harness {

struct MultiGpuConfig {
  std::string model = "deepseek-v3";
  std::string mode = "tp";  ///< "tp" or "ep"
  int ranks = 2;
  std::vector<int> ms{1, 4};
  int batches = 7;
  int replays = 10;
};

struct MultiGpuRow {
  int m = 0;
  double us_sharded = 0;  ///< per layer: gate_up + down_combine + all-reduce, on rank 0's stream
  double us_single = 0;   ///< the unsharded layer on GPU 0 alone, same method
  std::string check;      ///< the all-reduced output against the unsharded CPU reference
  bool pass = false;
};

/// Forks one process per rank before any CUDA call (the driver does not survive fork), so call
/// it from a process that has not initialized CUDA. Throws Error when a rank fails.
std::vector<MultiGpuRow> run_multi_gpu_bench(const MultiGpuConfig& config);

}  // namespace moegemv::harness
