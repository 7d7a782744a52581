#pragma once
// Diagnostic (`moegemv bench --hot`, session 43): what the M = 1 kernels' CTAs pay for all
// reading the same activation lines (templates/hot_read.cuh).

#include <cuda.h>

#include <string>
#include <vector>

namespace moegemv::harness {

/// One kernel shape: `ctas` CTAs of `threads` threads, each staging `hot_bytes` of activations and
/// reading `cold_bytes` of weights of its own (cold: a new slice of a 2 GiB buffer per launch).
struct HotReadCase {
  std::string what;
  int ctas, threads, hot_bytes, cold_bytes;
};

/// us per launch (median of 5 batches of 20 launches back to back, after 3 warm-ups) with the
/// activations read from `copies` copies (CTA b from copy b % copies), by each CTA (cluster 1) or
/// once per cluster of `cluster` CTAs that share the read through distributed shared memory.
struct HotReadRow {
  HotReadCase shape;
  int copies, cluster;
  double us;
};

/// The Qwen3-Next M = 1 shapes (gate_up's 704 CTAs with x, the down's 256 with act), each at
/// one copy per CTA, 64, 8, 2 and 1 copies, 1 copy shared by clusters of 2, 4 and 8, clusters of
/// 4 on one copy per CTA (the cluster's own cost), and one copy per CTA again (the spread).
std::vector<HotReadRow> measure_hot_reads(CUstream stream);

/// A table of `rows`, each against its shape's first row (one copy per CTA).
std::string hot_read_table(const std::vector<HotReadRow>& rows);

}  // namespace moegemv::harness
