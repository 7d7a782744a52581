#pragma once
/// Where moegemv's log lines go. By default to stderr at MOEGEMV_LOG_LEVEL (warn); an engine
/// with its own logging routes them there with set_log_handler. No spdlog type appears here:
/// the library's logging backend is not part of its API.
#include <functional>
#include <string_view>

#include "moegemv/export.h"

namespace moegemv {

enum class LogLevel { kTrace = 0, kDebug, kInfo, kWarn, kError, kCritical, kOff };

/// Called once per line at or above the handler's level, from the thread that logs (compiles run
/// in the calling thread, `moegemv prewarm`'s in its workers), never two calls at once. The text
/// has no level, time or newline added. It must return quickly and not call moegemv; an exception
/// it throws is dropped.
using LogHandler = std::function<void(LogLevel level, std::string_view message)>;

/// Sends lines at `level` and above to `handler` from now on, or to stderr again when `handler`
/// is empty; either way `level` replaces MOEGEMV_LOG_LEVEL's. Thread-safe: it waits for a call
/// of the previous handler in flight, which is never called again once this returns.
MOEGEMV_API void set_log_handler(LogHandler handler, LogLevel level);

}  // namespace moegemv
