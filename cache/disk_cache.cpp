#include "cache/disk_cache.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <filesystem>
#include <set>
#include <thread>

#include "cache/entry_format.hpp"
#include "cache/warn_once.hpp"
#include "jit/log.hpp"
#include "moegemv/errors.hpp"

namespace moegemv::cache {

namespace fs = std::filesystem;

namespace {

bool ends_with(const std::string& text, std::string_view suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Shard directories are the first two hex digits of the content hash.
bool is_shard_name(const std::string& name) {
  return name.size() == 2 && std::isxdigit(static_cast<unsigned char>(name[0])) &&
         std::isxdigit(static_cast<unsigned char>(name[1]));
}

// The files of a shard directory, by name.
enum class FileKind { kEntry, kLock, kTemp, kOther };
FileKind file_kind(const std::string& name) {
  if (ends_with(name, ".cubin")) return FileKind::kEntry;
  if (ends_with(name, ".lock")) return FileKind::kLock;
  if (name.find(".cubin.tmp.") != std::string::npos) return FileKind::kTemp;
  return FileKind::kOther;
}

// Lock and temp files younger than this may belong to a process in the middle of using them.
constexpr std::chrono::seconds kStaleAge = std::chrono::hours(1);

}  // namespace

bool holds_only_cache_files(const std::string& dir, std::chrono::seconds min_age) {
  std::error_code ec;
  for (const auto& shard : fs::directory_iterator(dir, ec)) {
    if (!is_shard_name(shard.path().filename().string()) || !shard.is_directory(ec)) return false;
    for (const auto& file : fs::directory_iterator(shard.path(), ec)) {
      const std::string path = file.path().string();
      if (file_kind(path) == FileKind::kOther || !file.is_regular_file(ec) ||
          !older_than(path, min_age))
        return false;
    }
  }
  return !ec;
}

DiskCache::DiskCache(std::string root) : root_(std::move(root)) {
  if (root_.empty()) return;  // none configured (or refused, with its own warning): memory-only
  std::string error;
  writable_ = make_dirs(root_, &error) && probe_writable(root_, &error);
  if (!writable_ && first_time("unwritable-root:" + root_)) {
    logger()->warn(
        "moegemv: cache directory {} is not writable ({}); the kernels it holds are used, but any "
        "other is compiled in memory only, again by every process. Set MOEGEMV_CACHE_DIR to a "
        "writable directory (or prewarm this one) if that is not intended.",
        root_, error);
  }
}

std::string DiskCache::shard_dir(const std::string& content_hash) const {
  return root_ + "/" + content_hash.substr(0, 2);
}

std::string DiskCache::entry_path(const std::string& content_hash) const {
  return shard_dir(content_hash) + "/" + content_hash + ".cubin";
}

std::string DiskCache::lock_path(const std::string& content_hash) const {
  return shard_dir(content_hash) + "/" + content_hash + ".lock";
}

DiskCache::ReadResult DiskCache::read(const EntrySpec& spec,
                                      const std::string& content_hash) const {
  ReadResult result;
  if (root_.empty()) return result;
  int err = 0;
  auto file = read_file(entry_path(content_hash), &err);
  if (!file) {
    // A missing entry is the normal miss; an unreadable one is reported like a corrupt one.
    if (err != ENOENT && err != ENOTDIR) {
      result.status = Status::kCorrupt;
      result.error = "cannot read: " + errno_text(err);
    }
    return result;
  }
  auto cubin = decode_entry(*file, spec, content_hash, &result.error);
  if (!cubin) {
    result.status = Status::kCorrupt;
    return result;
  }
  result.status = Status::kHit;
  result.bytes = std::move(*cubin);
  return result;
}

std::optional<FileLock> DiskCache::lock(const EntrySpec& spec, const std::string& content_hash,
                                        std::chrono::milliseconds warn_after,
                                        std::chrono::milliseconds give_up_after) const {
  using Clock = std::chrono::steady_clock;
  std::string error;
  bool busy = false;
  std::string path = lock_path(content_hash);
  if (make_dirs(shard_dir(content_hash), &error)) {
    // Polled, not a blocking flock: a holder that is stopped or hung must not block every
    // process that needs the kernel for ever.
    const auto start = Clock::now();
    bool announced = false, warned = false;
    for (auto nap = std::chrono::milliseconds(5);;
         nap = std::min(2 * nap, std::chrono::milliseconds(200))) {
      auto lock = FileLock::acquire(path, /*wait=*/false, &busy, &error);
      if (lock) {
        lock->note_holder();
        return lock;
      }
      if (!busy) break;
      const auto waited = Clock::now() - start;
      if (!announced && logger()->should_log(spdlog::level::info)) {  // (reads the lock file)
        announced = true;
        logger()->info("moegemv: waiting for another process compiling {} for {} (lock {}, {})",
                       spec.key.str(), spec.arch, path, FileLock::holder(path));
      }
      const double seconds = std::chrono::duration<double>(waited).count();
      if (waited >= give_up_after) {
        logger()->warn(
            "moegemv: gave up after {:.0f} s waiting for lock {} ({}); compiling {} for {} here",
            seconds, path, FileLock::holder(path), spec.key.str(), spec.arch);
        return std::nullopt;
      }
      if (waited >= warn_after && !warned) {
        logger()->warn(
            "moegemv: still waiting after {:.0f} s for lock {} ({}), held while compiling {} "
            "for {}; compiling here after {:.0f} s if it is not released",
            seconds, path, FileLock::holder(path), spec.key.str(), spec.arch,
            std::chrono::duration<double>(give_up_after).count());
        warned = true;
      }
      std::this_thread::sleep_for(nap);
    }
  }
  if (first_time("lock-failed:" + root_)) {
    logger()->warn("moegemv: cannot lock {} ({}); compiling without cross-process coordination",
                   path, error);
  }
  return std::nullopt;
}

bool DiskCache::publish(const EntrySpec& spec, const std::string& content_hash,
                        const std::vector<std::uint8_t>& cubin) const {
  std::string error;
  try {
    if (!make_dirs(shard_dir(content_hash), &error)) {
      throw CacheError(shard_dir(content_hash), "cannot create directory: " + error);
    }
    write_file_atomic(entry_path(content_hash), encode_entry(spec, content_hash, cubin));
    return true;
  } catch (const CacheError& e) {
    if (first_time("publish-failed:" + root_)) {
      logger()->warn("moegemv: cannot save compiled kernel {} for {} to the cache: {}",
                     spec.key.str(), spec.arch, e.what());
    } else {
      logger()->debug("moegemv: cannot save {} for {}: {}", spec.key.str(), spec.arch, e.what());
    }
  }
  return false;
}

void DiskCache::remove(const std::string& content_hash) const {
  if (::unlink(entry_path(content_hash).c_str()) != 0 && errno != ENOENT) {
    logger()->warn("moegemv: cannot remove cache entry {}: {}", entry_path(content_hash),
                   errno_text(errno));
  }
}

std::vector<DiskEntryInfo> DiskCache::list() const {
  std::vector<DiskEntryInfo> entries;
  std::error_code ec;
  if (root_.empty()) return entries;
  for (const auto& shard : fs::directory_iterator(root_, ec)) {
    if (!shard.is_directory(ec) || !is_shard_name(shard.path().filename().string())) continue;
    for (const auto& file : fs::directory_iterator(shard.path(), ec)) {
      std::string path = file.path().string();
      if (!ends_with(path, ".cubin")) continue;
      int err = 0;
      std::string error;
      std::size_t offset = 0;
      auto bytes = read_file(path, &err);
      auto header = bytes ? parse_entry_header(*bytes, &offset, &error) : std::nullopt;
      if (!header) {
        logger()->warn("moegemv: skipping unreadable cache entry {}: {}", path,
                       bytes ? error : errno_text(err));
        continue;
      }
      entries.push_back({path, header->key, header->arch, header->content_hash,
                         header->template_hash, header->nvrtc_version, header->cubin_size});
    }
  }
  return entries;
}

std::size_t DiskCache::walk(const std::function<bool(const std::string&)>& drop_entry,
                            bool sweep_files) const {
  std::size_t removed = 0;
  std::error_code ec;
  if (root_.empty()) return removed;
  for (const auto& shard : fs::directory_iterator(root_, ec)) {
    if (!shard.is_directory(ec) || !is_shard_name(shard.path().filename().string())) continue;
    std::vector<std::string> files;
    for (const auto& file : fs::directory_iterator(shard.path(), ec)) {
      files.push_back(file.path().string());
    }
    for (const auto& path : files) {
      const FileKind kind = file_kind(path);
      if (kind == FileKind::kEntry) {
        if (drop_entry(path) && ::unlink(path.c_str()) == 0) ++removed;
      } else if (!sweep_files) {
        continue;
      } else if (kind == FileKind::kLock) {
        // Only idle locks untouched for an hour go: a process may have opened a younger one and
        // not locked it yet, and unlinking it then could let two processes compile the entry.
        bool busy = false;
        std::string error;
        if (older_than(path, kStaleAge)) {
          if (auto lock = FileLock::acquire(path, /*wait=*/false, &busy, &error))
            ::unlink(path.c_str());
        }
      } else if (kind == FileKind::kTemp && older_than(path, kStaleAge)) {
        ::unlink(path.c_str());  // left behind by a process killed mid-publish (a younger one
                                 // may be a publish in progress)
      }
    }
    // Shard directories stay: a process may be about to create its temp or lock file in one.
  }
  return removed;
}

std::size_t DiskCache::clear() const {
  return walk([](const std::string&) { return true; }, /*sweep_files=*/true);
}

std::vector<DiskEntryInfo> DiskCache::prune(const std::function<bool(const DiskEntryInfo&)>& stale,
                                            bool dry_run) const {
  std::vector<DiskEntryInfo> picked;
  std::set<std::string> paths;
  for (auto& entry : list()) {
    if (!stale(entry)) continue;
    paths.insert(entry.path);
    picked.push_back(std::move(entry));
  }
  if (!dry_run)
    walk([&](const std::string& path) { return paths.count(path) > 0; }, /*sweep_files=*/true);
  return picked;
}

}  // namespace moegemv::cache
