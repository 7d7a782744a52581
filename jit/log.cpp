#include "jit/log.hpp"

#include <mutex>

#include <spdlog/sinks/stdout_color_sinks.h>

#include "moegemv/options.hpp"

namespace moegemv {

namespace {

std::shared_ptr<spdlog::logger> make_default() {
  auto sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
  auto made = std::make_shared<spdlog::logger>("moegemv", std::move(sink));
  spdlog::level::level_enum level = spdlog::level::warn;
  try {
    level = spdlog::level::from_str(Options::global().log_level);
  } catch (const std::exception&) {
    // An unreadable MOEGEMV_LOG_LEVEL is reported by the first operation (Options::global);
    // logging itself must not throw.
  }
  made->set_level(level);
  return made;
}

struct Slot {
  std::mutex mutex;
  std::shared_ptr<spdlog::logger> current;
};

// Never destroyed: destructors of other statics (driver modules unloaded at exit, files closed)
// may still log after this translation unit's statics are gone.
Slot& slot() {
  static Slot* s = new Slot;
  return *s;
}

}  // namespace

std::shared_ptr<spdlog::logger> logger() {
  Slot& s = slot();
  std::lock_guard lock(s.mutex);
  if (!s.current) s.current = make_default();
  return s.current;
}

std::shared_ptr<spdlog::logger> set_logger(std::shared_ptr<spdlog::logger> next) {
  Slot& s = slot();
  std::lock_guard lock(s.mutex);
  std::swap(s.current, next);
  return next;
}

}  // namespace moegemv
