#pragma once
// Typed errors. Each carries the evidence a user needs to act on it; macros only add file/line.
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "moegemv/export.h"

namespace moegemv {

/// Base of every error moegemv throws.
class MOEGEMV_API Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A bad argument: names it, says what was expected and what was given.
class MOEGEMV_API ArgumentError : public Error {
 public:
  ArgumentError(std::string argument_, std::string expected_, std::string got_)
      : Error("invalid argument '" + argument_ + "': expected " + expected_ + ", got " + got_),
        argument(std::move(argument_)), expected(std::move(expected_)), got(std::move(got_)) {}
  const std::string argument, expected, got;
};

/// NVRTC rejected the generated source. Carries the key, arch, options and the full log.
class MOEGEMV_API CompileError : public Error {
 public:
  CompileError(std::string key_, std::string arch_, std::vector<std::string> options_,
               std::string log_)
      : Error("NVRTC failed to compile " + key_ + " for " + arch_ + ":\n" + log_),
        key(std::move(key_)), arch(std::move(arch_)), options(std::move(options_)),
        log(std::move(log_)) {}
  const std::string key, arch;
  const std::vector<std::string> options;
  const std::string log;
};

/// A CUDA driver call failed (or the driver could not be loaded at all).
class MOEGEMV_API CudaError : public Error {
 public:
  CudaError(std::string call_, int code_, std::string name_, std::string message_)
      : Error(call_ + " failed: " + name_ + " (" + std::to_string(code_) + "): " + message_),
        call(std::move(call_)), code(code_), name(std::move(name_)), message(std::move(message_)) {}
  const std::string call;
  const int code;
  const std::string name, message;
};

/// The disk cache or a bundle could not be read or written.
class MOEGEMV_API CacheError : public Error {
 public:
  CacheError(std::string path_, const std::string& what)
      : Error("cache: " + path_ + ": " + what), path(std::move(path_)) {}
  const std::string path;
};

/// A kernel is needed but getting it now is not allowed or not possible: compiling under
/// MOEGEMV_DISABLE_JIT=1 or without a loadable NVRTC, or loading (or compiling) while the stream
/// is being captured into a CUDA graph. Names the key and what fixes it.
class MOEGEMV_API JitDisabledError : public Error {
 public:
  JitDisabledError(std::string key_, std::string arch_, std::string reason_, std::string fix_)
      : Error("kernel " + key_ + " for " + arch_ + ": " + reason_ + "; fix: " + fix_),
        key(std::move(key_)),
        arch(std::move(arch_)),
        reason(std::move(reason_)),
        fix(std::move(fix_)) {}
  const std::string key, arch, reason, fix;
};

}  // namespace moegemv
