#pragma once
// A synthetic layer and its decode-step buffers on the device, and the API argument views over
// them. Used by `moegemv check`, `moegemv bench` and the [gpu] tests.
#include <cstdint>

#include "moegemv/moegemv.hpp"
#include "nvfp4/synthetic.hpp"
#include "runtime/memory.hpp"

namespace moegemv::harness {

struct DeviceLayer {
  nvfp4::ModelShape shape;
  driver::DeviceBuffer w1, w1_sf, alpha, w2, w2_sf, alpha2, wsh, ssh, gssh, wsd, ssd, gssd;

  explicit DeviceLayer(const nvfp4::SyntheticLayer& layer);
  std::uint64_t bytes() const;
};

/// Inputs and outputs of one decode step of M tokens.
struct DeviceStep {
  int m = 0, k = 0;
  driver::DeviceBuffer x, ids, tw, act, sact, out;

  DeviceStep(const nvfp4::ModelShape& shape, int m);
  void upload(const nvfp4::SyntheticInputs& in);
  void poison(CUstream stream);  ///< act, sact, out := 0xFFFF (a NaN no kernel writes)
};

GateUpArgs gate_up_args(const DeviceLayer& layer, const DeviceStep& step);
DownCombineArgs down_args(const DeviceLayer& layer, const DeviceStep& step);

/// Downloads a bf16 buffer.
std::vector<std::uint16_t> download_u16(const driver::DeviceBuffer& buffer);

}  // namespace moegemv::harness
