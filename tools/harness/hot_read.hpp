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
/// activations read from `copies` copies (CTA b from copy b % copies).
struct HotReadRow {
  HotReadCase shape;
  int copies;
  double us;
};

/// The Qwen3-Next M = 1 shapes (gate_up's 704 CTAs with x, the down's 256 with act), each at
/// 1, 2, 8, 64 and one copy per CTA.
std::vector<HotReadRow> measure_hot_reads(CUstream stream);

/// A table of `rows`, each against the same shape's one-copy-per-CTA row.
std::string hot_read_table(const std::vector<HotReadRow>& rows);

}  // namespace moegemv::harness
