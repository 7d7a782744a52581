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

// The application's handler as a sink: base_sink's mutex makes the calls one at a time.
class HandlerSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  explicit HandlerSink(LogHandler handler) : handler_(std::move(handler)) {}

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    try {
      handler_(static_cast<LogLevel>(msg.level),
               std::string_view(msg.payload.data(), msg.payload.size()));
    } catch (...) {
      // Dropped: a logging call must not throw into the code that logged.
    }
  }
  void flush_() override {}

 private:
  LogHandler handler_;
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
  std::shared_ptr<spdlog::sinks::sink> sink;
  if (handler) {
    sink = std::make_shared<HandlerSink>(std::move(handler));
  } else {
    sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
  }
  auto next = std::make_shared<spdlog::logger>("moegemv", std::move(sink));
  next->set_level(static_cast<spdlog::level::level_enum>(level));
  set_logger(std::move(next));
}

}  // namespace moegemv
