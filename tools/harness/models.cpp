#include "tools/harness/models.hpp"

#include <fmt/format.h>

#include "moegemv/errors.hpp"

namespace moegemv::harness {

const std::vector<ModelPreset>& presets() {
  static const std::vector<ModelPreset> list = {
      {"deepseek-v3", 7168, 2048, 2048, 8, 256},    {"kimi-k2", 7168, 2048, 2048, 8, 384},
      {"glm-4.5", 5120, 1536, 1536, 8, 160},        {"qwen3-next", 2048, 512, 512, 10, 512},
      {"qwen3.5-35b", 2048, 512, 512, 8, 256},      {"llama4-scout", 5120, 8192, 8192, 1, 16},
      {"llama4-maverick", 5120, 8192, 8192, 1, 128}, {"qwen2-moe", 2048, 1408, 5632, 4, 60},
      {"qwen3-30b", 2048, 768, 0, 8, 128},
  };
  return list;
}

const ModelPreset& find_preset(const std::string& name) {
  std::string names;
  for (const auto& p : presets()) {
    if (p.name == name) return p;
    names += (names.empty() ? "" : ", ") + p.name;
  }
  throw ArgumentError("--model", "one of " + names, name);
}

ModelPreset ModelPreset::with_tp(int tp) const {
  if (tp < 1) throw ArgumentError("--tp", "an integer >= 1", std::to_string(tp));
  ModelPreset p = *this;
  if (tp == 1) return p;
  if (i % tp != 0 || (i / tp) % 64 != 0 || si % tp != 0 || (si / tp) % 64 != 0)
    throw ArgumentError("--tp", fmt::format("a divisor of I={} and SI={} leaving multiples of 64",
                                            i, si),
                        fmt::format("{} (I/tp = {}, SI/tp = {})", tp, double(i) / tp,
                                    double(si) / tp));
  p.i /= tp;
  p.si /= tp;
  p.name += fmt::format("/tp{}", tp);
  return p;
}

std::vector<Key> ModelPreset::keys() const {
  return {Key{Kind::kGateUp, h, i, si, k}, Key{Kind::kDownCombine, h, i, si, k}};
}

}  // namespace moegemv::harness
