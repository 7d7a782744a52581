#pragma once
// ptxas -v's spill lines in an NVRTC log, for the [nvrtc] tests.
#include <stdexcept>
#include <string>

// The spill store bytes of all the module's kernels, from ptxas -v's lines ("N bytes spill
// stores", one per kernel). Throws if the log has none (without -v the checks would pass blindly).
// (Until session 20 the check only asked whether some kernel's line read 0: a module's second
// kernel could spill unseen. Reading every line found three opt-in configs: test_nvrtc.cpp.)
inline int spill_bytes(const std::string& log) {
  static const std::string kTag = " bytes spill stores";
  int lines = 0, bytes = 0;
  for (auto at = log.find(kTag); at != std::string::npos; at = log.find(kTag, at + 1)) {
    auto start = log.find_last_of(" \t", at - 1);
    start = start == std::string::npos ? 0 : start + 1;
    bytes += std::stoi(log.substr(start, at - start));
    ++lines;
  }
  if (lines == 0) throw std::runtime_error("no ptxas -v spill lines in the log:\n" + log);
  return bytes;
}
inline bool spills(const std::string& log) { return spill_bytes(log) != 0; }

// The spill store bytes of one kernel: the first "bytes spill stores" after its "Function
// properties for NAME" line; -1 where the log has no such kernel.
inline int kernel_spill_bytes(const std::string& log, const std::string& name) {
  const auto at = log.find("Function properties for " + name + "\n");
  if (at == std::string::npos) return -1;
  static const std::string kTag = " bytes spill stores";
  const auto tag = log.find(kTag, at);
  const auto start = log.find_last_of(" \t", tag - 1) + 1;
  return std::stoi(log.substr(start, tag - start));
}
