#pragma once
// Argument validation: everything a launch needs is checked on the host before anything runs, and
// every error names the argument, what was expected and what was given.
#include "moegemv/moegemv.hpp"
#include "templates/params.h"

namespace moegemv::detail {

struct GateUpLaunch {
  Key key;
  GateUpParams params;
};

struct DownLaunch {
  Key key;
  DownParams params;
};

GateUpLaunch validate(const GateUpArgs& args);
DownLaunch validate(const DownCombineArgs& args);

/// Bytes of one matrix's 128x4-swizzled scales (SPEC section 2).
std::int64_t swizzled_scale_bytes(std::int64_t rows, std::int64_t cols);

}  // namespace moegemv::detail
