#pragma once
// Sharding a laid-out layer for tensor- and expert-parallel ranks (issue #6). Shards are again in
// the layouts of SPEC section 3, so each rank runs the unchanged kernels on its own key.
#include <cstdint>
#include <span>
#include <vector>

#include "nvfp4/synthetic.hpp"

namespace moegemv::nvfp4 {

/// Tensor parallel: rank r of `ranks` keeps features [r*I/ranks, (r+1)*I/ranks) of every routed
/// expert (w1 by whole 64-row groups of up and gate, w2 by those columns of I) and likewise of
/// the shared expert (SI). Throws ArgumentError naming "ranks" unless I/ranks and SI/ranks are
/// multiples of 64. The ranks' down_combine outputs sum to the unsharded block.
SyntheticLayer shard_tp(const SyntheticLayer& layer, int ranks, int rank);

/// Expert parallel: rank r keeps experts [r*E/ranks, (r+1)*E/ranks); the shared expert lives on
/// rank 0 only (SI = 0 elsewhere). Throws ArgumentError naming "ranks" unless E % ranks == 0.
SyntheticLayer shard_ep(const SyntheticLayer& layer, int ranks, int rank);

/// Global expert ids -> rank-local ids (-1 for experts another rank owns: SPEC section 6).
std::vector<int32_t> local_ids_ep(std::span<const int32_t> ids, int experts, int ranks, int rank);

}  // namespace moegemv::nvfp4
