#include "cache/store.hpp"

#include <chrono>
#include <mutex>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "cache/bundle.hpp"
#include "cache/disk_cache.hpp"
#include "cache/warn_once.hpp"
#include "jit/log.hpp"
#include "moegemv/errors.hpp"

namespace moegemv::cache {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

JitDisabledError jit_disabled(const EntrySpec& spec, bool capturing, const std::string& root) {
  const std::string key = spec.key.str();
  std::string reason = fmt::format(
      "in no bundle or cache, and compiling is not allowed: {}",
      capturing ? "the stream is being captured into a CUDA graph" : "MOEGEMV_DISABLE_JIT=1");
  std::string fix = fmt::format(
      "{}run `moegemv prewarm --key {} --arch {}` (cache: {}), or build a bundle with "
      "`moegemv bundle create -o FILE --key {} --arch {}` and set MOEGEMV_BUNDLE=FILE",
      capturing ? "run the op once before capturing, or " : "", key, spec.arch,
      root.empty() ? "none" : root, key, spec.arch);
  return JitDisabledError(key, spec.arch, std::move(reason), std::move(fix));
}

// The disk cache's root for `options`, or "" (memory-only, warned) for the /tmp fallback when it
// is not this user's alone: another user could have created it and placed kernels in it.
std::string disk_root(const Options& options) {
  if (options.cache_dir.empty()) return "";
  std::string error;
  if (options.cache_dir_private && !make_private_dir(options.cache_dir, &error)) {
    if (first_time("unsafe-root:" + options.cache_dir)) {
      logger()->warn(
          "moegemv: not using the cache directory {} ({}); it is the fallback under /tmp taken "
          "when "
          "MOEGEMV_CACHE_DIR, XDG_CACHE_HOME and HOME are all unset. Kernels are compiled in "
          "memory only; set MOEGEMV_CACHE_DIR to a directory of your own.",
          options.cache_dir, error);
    }
    return "";
  }
  return disk_root_path(options);
}

}  // namespace

std::string disk_root_path(const Options& options) {
  if (options.cache_dir.empty()) return "";
  return options.cache_dir + "/v" + std::to_string(kFormatVersion);
}

struct CubinStore::Impl {
  explicit Impl(const Options& options_in) : options(options_in), disk(disk_root(options_in)) {}

  std::optional<Cubin> from_bundles(const EntrySpec& spec, bool same_nvrtc_only);
  std::optional<std::vector<std::uint8_t>> from_disk(const EntrySpec& spec, const std::string& hash,
                                                     bool* warned);

  Options options;
  DiskCache disk;
  std::mutex mutex;  // guards the two members below
  std::vector<std::shared_ptr<const Bundle>> bundles;
  std::set<std::string> discarded;  // bundle entries to skip: discarded or damaged
};

std::optional<Cubin> CubinStore::Impl::from_bundles(const EntrySpec& spec, bool same_nvrtc_only) {
  std::vector<std::shared_ptr<const Bundle>> snapshot;
  std::set<std::string> skip;
  {
    std::lock_guard lock(mutex);
    snapshot = bundles;
    skip = discarded;
  }
  const std::string key = spec.key.str();
  for (const auto& bundle : snapshot) {
    const BundleEntry* entry = bundle->entry_for(spec, skip, same_nvrtc_only);
    if (entry == nullptr) continue;
    if (auto bytes = bundle->find(entry->content_hash)) {
      logger()->debug("moegemv: {} for {} from bundle {} (built by NVRTC {})", key, spec.arch,
                      bundle->path(), entry->nvrtc_version);
      Cubin cubin{std::move(*bytes), Origin::kBundle};
      cubin.entry_hash = entry->content_hash;
      cubin.built_by = entry->nvrtc_version;
      return cubin;
    }
    // Damaged (warned once by find): skipped from now on, as a discarded entry is.
    std::lock_guard lock(mutex);
    discarded.insert(entry->content_hash);
  }
  if (same_nvrtc_only) return std::nullopt;
  // A stale bundle is skipped, but once per bundle the user hears why it did not serve this key.
  for (const auto& bundle : snapshot) {
    for (const auto& entry : bundle->entries()) {
      if (entry.key != key || entry.arch != spec.arch) continue;
      const std::string reason = mismatch_reason(*bundle, entry, spec);
      if (reason.empty()) break;  // it matched but is damaged: warned
      if (first_time("bundle-mismatch:" + bundle->path())) {
        logger()->warn(
            "moegemv: bundle {} has {} for {} but not for this build ({}); skipping it (further "
            "mismatches in this bundle are not reported). Rebuild it with `moegemv bundle create`.",
            bundle->path(), key, spec.arch, reason);
      }
      break;
    }
  }
  return std::nullopt;
}

std::optional<std::vector<std::uint8_t>> CubinStore::Impl::from_disk(const EntrySpec& spec,
                                                                     const std::string& hash,
                                                                     bool* warned) {
  auto result = disk.read(spec, hash);
  switch (result.status) {
    case DiskCache::Status::kHit:
      logger()->debug("moegemv: {} for {} from cache {}", spec.key.str(), spec.arch,
                      disk.entry_path(hash));
      return std::move(result.bytes);
    case DiskCache::Status::kCorrupt:
      if (!*warned) {
        logger()->warn("moegemv: cache entry {} for {} {} is invalid ({}); rebuilding it",
                       disk.entry_path(hash), spec.key.str(), spec.arch, result.error);
        *warned = true;
      }
      return std::nullopt;
    case DiskCache::Status::kMissing:
      return std::nullopt;
  }
  return std::nullopt;
}

CubinStore::CubinStore(const Options& options) : impl_(std::make_unique<Impl>(options)) {
  for (const auto& path : options.bundles) add_bundle(path);
}

CubinStore::~CubinStore() = default;

void CubinStore::add_bundle(const std::string& path) {
  auto bundle = std::make_shared<const Bundle>(Bundle::open(path));
  logger()->debug("moegemv: bundle {} ({} entries)", path, bundle->entries().size());
  std::lock_guard lock(impl_->mutex);
  impl_->bundles.push_back(std::move(bundle));
}

Cubin CubinStore::get(const EntrySpec& spec, const CompileFn& compile, bool allow_compile) {
  const auto start = Clock::now();
  const std::string hash = spec.content_hash();
  if (auto cubin = impl_->from_bundles(spec, /*same_nvrtc_only=*/true)) {
    cubin->ms = ms_since(start);
    return std::move(*cubin);
  }
  bool warned = false;
  if (auto bytes = impl_->from_disk(spec, hash, &warned)) {
    return {std::move(*bytes), Origin::kDisk, ms_since(start)};
  }
  if (auto cubin = impl_->from_bundles(spec, /*same_nvrtc_only=*/false)) {
    cubin->ms = ms_since(start);
    return std::move(*cubin);
  }
  if (!allow_compile || impl_->options.disable_jit) {
    throw jit_disabled(spec, /*capturing=*/!allow_compile && !impl_->options.disable_jit,
                       impl_->disk.root());
  }
  std::optional<FileLock> lock;
  if (impl_->disk.writable()) {
    lock = impl_->disk.lock(spec, hash);
    // Whoever held the lock before us may have just published it.
    if (auto bytes = impl_->from_disk(spec, hash, &warned)) {
      return {std::move(*bytes), Origin::kDisk, ms_since(start)};
    }
  }
  logger()->info("moegemv: compiling {} for {} (entry {})", spec.key.str(), spec.arch, hash);
  const auto compile_start = Clock::now();
  std::vector<std::uint8_t> cubin = compile();
  const double compile_ms = ms_since(compile_start);
  logger()->info("moegemv: compiled {} for {} in {:.0f} ms ({} bytes cubin)", spec.key.str(),
                 spec.arch, compile_ms, cubin.size());
  const bool saved = impl_->disk.writable() && impl_->disk.publish(spec, hash, cubin);
  return {std::move(cubin), Origin::kCompiled, compile_ms, saved};
}

void CubinStore::discard(const EntrySpec& spec, const Cubin& cubin, const std::string& reason) {
  logger()->warn("moegemv: discarding the {} cubin {} for {} ({}); looking further",
                 origin_name(cubin.origin), spec.key.str(), spec.arch, reason);
  if (cubin.origin == Origin::kBundle) {
    std::lock_guard lock(impl_->mutex);
    impl_->discarded.insert(cubin.entry_hash);
  } else if (impl_->disk.writable()) {
    impl_->disk.remove(spec.content_hash());
  }
}

const std::string& CubinStore::root() const { return impl_->disk.root(); }

bool CubinStore::writable() const { return impl_->disk.writable(); }

std::vector<DiskEntryInfo> CubinStore::list() const { return impl_->disk.list(); }

std::size_t CubinStore::clear() { return impl_->disk.clear(); }

std::vector<DiskEntryInfo> CubinStore::prune(const std::function<bool(const DiskEntryInfo&)>& stale,
                                             bool dry_run) {
  return impl_->disk.prune(stale, dry_run);
}

}  // namespace moegemv::cache
