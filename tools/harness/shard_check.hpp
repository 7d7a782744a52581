#pragma once
// Issue #6 on one GPU: a layer sharded for TP or EP, the shards run one after another on the same
// device, the partial outputs summed on the host, compared with the unsharded block.
#include <cuda.h>

#include <string>

#include "nvfp4/compare.hpp"
#include "nvfp4/synthetic.hpp"

namespace moegemv::harness {

struct ShardCheck {
  std::string summary;
  nvfp4::CompareResult sum;  ///< sum of the ranks' outputs vs the unsharded reference
  bool pass() const { return sum.over_bound == 0 && sum.nan == 0 && sum.unwritten == 0; }
};

/// mode "tp" or "ep". The bound is SPEC section 8's applied to the sum: `scale` is the sum over
/// ranks of each rank's |tw_j * y_j| + |ys| terms. When `gpu` is false the ranks run the CPU
/// reference instead (the [reference] test of the splitter).
ShardCheck check_sharded(const nvfp4::SyntheticLayer& layer, const std::string& mode, int ranks,
                         int m, std::uint64_t seed, bool gpu, CUstream stream);

}  // namespace moegemv::harness
