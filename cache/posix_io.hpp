#pragma once
// POSIX file helpers for the disk cache and bundles: owned descriptors, whole-file reads, atomic
// publication (temp + fsync + rename + directory fsync) and advisory flock locks.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace moegemv::cache {

/// An owned file descriptor; closed on destruction.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd();
  Fd(Fd&& other) noexcept : fd_(other.release()) {}
  Fd& operator=(Fd&& other) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;

  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_ = -1;
};

/// strerror text for an errno value.
std::string errno_text(int err);

/// Reads exactly `size` bytes at `offset`; false on a short read or error.
bool pread_all(int fd, void* data, std::size_t size, std::uint64_t offset);

/// The whole file, or nullopt with `*error_code` set to errno (ENOENT for a missing file).
std::optional<std::vector<std::uint8_t>> read_file(const std::string& path, int* error_code);

/// mkdir -p; on failure returns false and describes why in `*error`.
bool make_dirs(const std::string& path, std::string* error);

/// Creates `dir` (one level, mode 0700) if missing, then checks that it is a directory (not a
/// link) owned by this process's effective user that nobody else can write to; false with why in
/// `*error` otherwise. For a predictable path under /tmp, which anyone may have created first.
bool make_private_dir(const std::string& dir, std::string* error);

/// Whether `path` was last modified at least `age` ago (false if it cannot be read).
bool older_than(const std::string& path, std::chrono::seconds age);

/// Whether `path`, which does not exist yet, could be created by mkdir -p: its nearest existing
/// ancestor is a directory this process may write into (access(2); nothing is created).
bool could_create(const std::string& path);

/// Whether a file can be created in `dir` (creates and removes a probe file). Sets `*error`.
bool probe_writable(const std::string& dir, std::string* error);

/// Writes `bytes` to `path` so that readers see either nothing, the old file or the whole new one:
/// a temp file in the same directory, fsync, rename over `path`, fsync of the directory.
/// Throws CacheError on failure (the temp file is removed).
void write_file_atomic(const std::string& path, std::span<const std::uint8_t> bytes);

/// An exclusive flock on a lock file, released on destruction. The kernel releases it when the
/// holding process dies, so a crashed compiler never blocks the others.
class FileLock {
 public:
  /// Opens (creating) `path` and locks it. With `wait == false` returns nullopt and sets
  /// `*busy = true` when another holder has it. Other failures: nullopt with `*error` set.
  static std::optional<FileLock> acquire(const std::string& path, bool wait, bool* busy,
                                         std::string* error);
  /// Records this process as the holder (its pid, in the lock file) for those who wait.
  void note_holder() const;
  /// Who holds the lock at `path` as the file says ("pid 1234"), or "unknown".
  static std::string holder(const std::string& path);
  FileLock(FileLock&&) noexcept = default;
  FileLock& operator=(FileLock&&) noexcept = default;
  ~FileLock() = default;  // closing the descriptor drops the lock

 private:
  explicit FileLock(Fd fd) : fd_(std::move(fd)) {}
  Fd fd_;
};

}  // namespace moegemv::cache
