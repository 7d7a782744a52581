#include "jit/log.hpp"

#include <mutex>

#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>

#include "moegemv/log.hpp"
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

// The application's handler: one per process, called and replaced under one mutex, so that calls
// never overlap (also across a replacement) and replacing it waits for a call in flight (a C
// caller may free the handler's `user` once moegemv_set_log_handler returns).
struct HandlerSlot {
  std::mutex mutex;
  LogHandler handler;
};

HandlerSlot& handler_slot() {
  static HandlerSlot* s = new HandlerSlot;  // never destroyed, as the logger's slot below
  return *s;
}

class HandlerSink final : public spdlog::sinks::base_sink<spdlog::details::null_mutex> {
 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    HandlerSlot& slot = handler_slot();
    std::lock_guard lock(slot.mutex);
    if (!slot.handler) return;  // replaced by stderr after this sink was taken
    try {
      slot.handler(static_cast<LogLevel>(msg.level),
                   std::string_view(msg.payload.data(), msg.payload.size()));
    } catch (...) {
      // Dropped: a logging call must not throw into the code that logged (nor print spdlog's
      // "LOG ERROR" to stderr).
    }
  }
  void flush_() override {}
};

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

void set_log_handler(LogHandler handler, LogLevel level) {
  static_assert(static_cast<int>(LogLevel::kOff) == spdlog::level::off &&
                static_cast<int>(LogLevel::kWarn) == spdlog::level::warn);
  const bool routed = static_cast<bool>(handler);
  {
    HandlerSlot& slot = handler_slot();
    std::lock_guard lock(slot.mutex);  // waits for a call in flight
    slot.handler = std::move(handler);
  }
  std::shared_ptr<spdlog::sinks::sink> sink;
  if (routed) {
    sink = std::make_shared<HandlerSink>();
  } else {
    sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
  }
  auto next = std::make_shared<spdlog::logger>("moegemv", std::move(sink));
  next->set_level(static_cast<spdlog::level::level_enum>(level));
  set_logger(std::move(next));
}

}  // namespace moegemv
