#pragma once
// DIAGNOSTIC (`moegemv bench --timeline`, with MOEGEMV_TUNE=gu_timeline=1,dc_timeline=1): the
// per-CTA stamps of templates/timeline.cuh read back from a loaded kernel, and a summary of how
// a pair's two kernels overlap.
#include <cuda.h>

#include <string>
#include <vector>

#include "moegemv/key.hpp"

namespace moegemv::harness {

struct CtaStamp {
  unsigned long long start = 0, waited = 0, end = 0;  ///< %globaltimer, ns; waited 0: no PDL wait
  int sm = 0;
};

/// Zeroes the stamps of key's loaded kernel (current context) on `stream`. Throws ArgumentError
/// naming MOEGEMV_TUNE when the kernel was built without the timeline.
void clear_timeline(const Key& key, CUstream stream);

/// The stamps of the CTAs that ran since the last clear (synchronize first).
std::vector<CtaStamp> read_timeline(const Key& key);

/// One paragraph: each kernel's CTA start / PDL-wait / end ranges in us from gate_up's first
/// start, and per SM the gap between its last gate_up CTA's end and its first down CTA's start.
std::string timeline_summary(const std::vector<CtaStamp>& gate_up,
                             const std::vector<CtaStamp>& down);

}  // namespace moegemv::harness
