#pragma once
// The shapes issue #3 names, shared by the [codegen]/[nvrtc] tests.
#include <vector>

#include "moegemv/key.hpp"

inline std::vector<moegemv::Key> issue_keys() {
  const int shapes[][4] = {{7168, 2048, 2048, 8}, {2048, 512, 512, 10}, {5120, 1536, 1536, 8},
                           {5120, 8192, 8192, 1}, {2048, 1408, 5632, 4}, {3072, 1024, 1536, 6},
                           {2048, 768, 0, 8},     {4096, 1408, 1408, 8}};
  std::vector<moegemv::Key> keys;
  for (auto kind : {moegemv::Kind::kGateUp, moegemv::Kind::kDownCombine})
    for (const auto& s : shapes) keys.push_back({kind, s[0], s[1], s[2], s[3]});
  return keys;
}
