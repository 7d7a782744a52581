#include "cache/posix_io.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "jit/log.hpp"
#include "moegemv/errors.hpp"

namespace moegemv::cache {

Fd::~Fd() {
  if (fd_ >= 0 && ::close(fd_) != 0) {
    logger()->warn("moegemv: close({}) failed: {}", fd_, errno_text(errno));
  }
}

Fd& Fd::operator=(Fd&& other) noexcept {
  if (this != &other) {
    Fd old(fd_);
    fd_ = other.release();
  }
  return *this;
}

std::string errno_text(int err) { return std::strerror(err); }

bool pread_all(int fd, void* data, std::size_t size, std::uint64_t offset) {
  auto* out = static_cast<char*>(data);
  while (size > 0) {
    ssize_t n = ::pread(fd, out, size, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    out += n;
    size -= static_cast<std::size_t>(n);
    offset += static_cast<std::uint64_t>(n);
  }
  return true;
}

namespace {

bool write_all(int fd, const std::uint8_t* data, std::size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

// Makes a rename durable: the new directory entry itself must reach the disk.
void fsync_dir(const std::string& dir) {
  Fd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd || ::fsync(fd.get()) != 0) {
    logger()->debug("moegemv: fsync of directory {} failed: {}", dir, errno_text(errno));
  }
}

std::string parent_dir(const std::string& path) {
  auto parent = std::filesystem::path(path).parent_path().string();
  return parent.empty() ? "." : parent;
}

}  // namespace

std::optional<std::vector<std::uint8_t>> read_file(const std::string& path, int* error_code) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat st {};
  if (!fd || ::fstat(fd.get(), &st) != 0) {
    *error_code = errno;
    return std::nullopt;
  }
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(st.st_size));
  if (!pread_all(fd.get(), bytes.data(), bytes.size(), 0)) {
    *error_code = errno != 0 ? errno : EIO;
    return std::nullopt;
  }
  return bytes;
}

bool make_dirs(const std::string& path, std::string* error) {
  // Other processes create the same directories concurrently; losing that race is success, and a
  // component that appeared midway is retried.
  std::error_code ec, probe;
  for (int attempt = 0; attempt < 3; ++attempt) {
    std::filesystem::create_directories(path, ec);
    if (std::filesystem::is_directory(path, probe)) return true;
  }
  *error = ec ? ec.message() : "not a directory";
  return false;
}

bool could_create(const std::string& path) {
  std::filesystem::path at = std::filesystem::absolute(path);
  std::error_code ec;
  while (!std::filesystem::exists(at, ec) && at.has_parent_path() && at != at.parent_path())
    at = at.parent_path();
  return std::filesystem::is_directory(at, ec) && ::access(at.c_str(), W_OK | X_OK) == 0;
}

bool older_than(const std::string& path, std::chrono::seconds age) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;
  return std::chrono::system_clock::now() - std::chrono::system_clock::from_time_t(st.st_mtime) >=
         age;
}

bool make_private_dir(const std::string& dir, std::string* error) {
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    *error = "cannot create it: " + errno_text(errno);
    return false;
  }
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) {
    *error = errno_text(errno);
    return false;
  }
  if (!S_ISDIR(st.st_mode)) {
    *error = "not a directory (a link or a file)";
    return false;
  }
  if (st.st_uid != ::geteuid()) {
    *error = "owned by uid " + std::to_string(st.st_uid) + ", not by this user";
    return false;
  }
  if ((st.st_mode & 022) != 0) {
    *error = "writable by other users (mode " + fmt::format("{:o}", st.st_mode & 0777) + ")";
    return false;
  }
  return true;
}

bool probe_writable(const std::string& dir, std::string* error) {
  std::string probe = dir + "/.probe.XXXXXX";
  Fd fd(::mkostemp(probe.data(), O_CLOEXEC));
  if (!fd) {
    *error = errno_text(errno);
    return false;
  }
  ::unlink(probe.c_str());
  return true;
}

void write_file_atomic(const std::string& path, std::span<const std::uint8_t> bytes) {
  std::string temp = path + ".tmp.XXXXXX";
  Fd fd(::mkostemp(temp.data(), O_CLOEXEC));
  if (!fd) throw CacheError(path, "cannot create temp file: " + errno_text(errno));
  // mkostemp creates 0600; cache entries and bundles are meant to be shared read-only.
  bool ok = ::fchmod(fd.get(), 0644) == 0 && write_all(fd.get(), bytes.data(), bytes.size()) &&
            ::fsync(fd.get()) == 0;
  int err = errno;
  // Closed by hand: on NFS a failed close can be the first report of a failed write.
  if (::close(fd.release()) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (ok && ::rename(temp.c_str(), path.c_str()) != 0) {
    ok = false;
    err = errno;
  }
  if (!ok) {
    ::unlink(temp.c_str());
    throw CacheError(path, "cannot write: " + errno_text(err));
  }
  fsync_dir(parent_dir(path));
}

void FileLock::note_holder() const {
  const std::string text = "pid " + std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_.get(), 0) == 0) (void)!::pwrite(fd_.get(), text.data(), text.size(), 0);
}

std::string FileLock::holder(const std::string& path) {
  int err = 0;
  auto bytes = read_file(path, &err);
  if (!bytes || bytes->empty() || bytes->size() > 64) return "unknown";
  std::string text(bytes->begin(), bytes->end());
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text.rfind("pid ", 0) == 0 ? text : "unknown";
}

std::optional<FileLock> FileLock::acquire(const std::string& path, bool wait, bool* busy,
                                          std::string* error) {
  *busy = false;
  Fd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  if (!fd) {
    *error = "cannot open lock file: " + errno_text(errno);
    return std::nullopt;
  }
  int op = LOCK_EX | (wait ? 0 : LOCK_NB);
  while (::flock(fd.get(), op) != 0) {
    if (errno == EINTR) continue;
    if (errno == EWOULDBLOCK) {
      *busy = true;
    } else {
      *error = "flock failed: " + errno_text(errno);
    }
    return std::nullopt;
  }
  return FileLock(std::move(fd));
}

}  // namespace moegemv::cache
