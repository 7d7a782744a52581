#pragma once
// Built-in model presets and the keys they need.
#include <string>
#include <vector>

#include "moegemv/key.hpp"

namespace moegemv::harness {

struct ModelPreset {
  std::string name;
  int h = 0, i = 0, si = 0, k = 0, e = 0;

  /// The preset sharded for tensor parallelism: I and SI divided by tp. Throws ArgumentError
  /// naming "--tp" when tp < 1 or the result breaks the key constraints (multiples of 64).
  ModelPreset with_tp(int tp) const;
  /// {gate_up key, down_combine key}.
  std::vector<Key> keys() const;
};

const std::vector<ModelPreset>& presets();

/// Throws ArgumentError naming "--model" and listing the presets when `name` is unknown.
const ModelPreset& find_preset(const std::string& name);

}  // namespace moegemv::harness
