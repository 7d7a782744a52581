#pragma once
// Process-wide "only the first time" for warnings that would otherwise repeat on every lookup.
#include <mutex>
#include <set>
#include <string>

namespace moegemv::cache {

/// True the first time this process asks about `token`, false afterwards. Thread-safe.
inline bool first_time(const std::string& token) {
  static std::mutex mutex;
  static std::set<std::string> seen;
  std::lock_guard lock(mutex);
  return seen.insert(token).second;
}

}  // namespace moegemv::cache
