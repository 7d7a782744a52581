// `moegemv cache ls|stats|clear|prune`: housekeeping of the on-disk cubin cache (MOEGEMV_CACHE_DIR).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <tuple>

#include "cache/disk_cache.hpp"
#include "cache/store.hpp"
#include "jit/nvrtc.hpp"
#include "jit/nvrtc_api.hpp"
#include "jit/templates.hpp"
#include "moegemv/errors.hpp"
#include "moegemv/options.hpp"
#include "tools/commands.hpp"
#include "tools/progress.hpp"

namespace moegemv::cli {

namespace {

// The disk cache alone: a broken MOEGEMV_BUNDLE must not stop anyone from cleaning the cache.
cache::CubinStore open_cache() {
  Options options = Options::global();
  options.bundles.clear();
  return cache::CubinStore(options);
}

namespace fs = std::filesystem;

// For the read-only commands: the disk cache if its root exists, else nullptr (looking at a cache
// must not create one).
std::unique_ptr<cache::CubinStore> existing_cache() {
  Options options = Options::global();
  options.bundles.clear();
  const std::string root = cache::disk_root_path(options);
  std::error_code ec;
  if (root.empty() || !fs::is_directory(root, ec)) return nullptr;
  return std::make_unique<cache::CubinStore>(options);
}

// An entry this build can never read: made from other templates or by another NVRTC (each is
// part of every content hash this build computes). Entries of another MOEGEMV_TUNE are not. In
// a cache shared by several installed moegemv builds these are the others' entries: prune takes
// only those not written for `--older-than` days. Without NVRTC, whose entries are this build's
// cannot be told by NVRTC version (stats counts by templates alone; prune refuses).
bool other_build(const cache::DiskEntryInfo& e) {
  const std::string nvrtc = jit::nvrtc_version();
  return e.template_hash != jit::templates_hash() ||
         (nvrtc != jit::kNoNvrtc && e.nvrtc_version != nvrtc);
}

std::chrono::seconds days_to_seconds(double days) {
  return std::chrono::seconds(static_cast<long long>(days * 86400));
}

// <dir>/v<N> (N != this build's format) holding nothing but a cache's files, none written for
// `days`: another entry format's cache, which this build never reads. Anything else under that
// name is left alone.
std::vector<fs::path> other_format_dirs(const cache::CubinStore& store, double days) {
  std::vector<fs::path> dirs;
  if (store.root().empty()) return dirs;
  const fs::path root(store.root());
  std::error_code ec;
  for (const auto& d : fs::directory_iterator(root.parent_path(), ec)) {
    const std::string name = d.path().filename().string();
    const bool versioned = name.size() > 1 && name[0] == 'v' &&
                           name.find_first_not_of("0123456789", 1) == std::string::npos;
    if (versioned && d.is_directory(ec) && d.path() != root &&
        cache::holds_only_cache_files(d.path().string(), days_to_seconds(days)))
      dirs.push_back(d.path());
  }
  return dirs;
}

void ls(bool json) {
  const auto store = existing_cache();
  auto entries = store ? store->list() : std::vector<cache::DiskEntryInfo>{};
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    return std::tie(a.key, a.arch) < std::tie(b.key, b.arch);
  });
  if (json) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& e : entries) {
      out.push_back({{"key", e.key},
                     {"arch", e.arch},
                     {"bytes", e.bytes},
                     {"content_hash", e.content_hash},
                     {"path", e.path}});
    }
    fmt::print("{}\n", out.dump(2));
    return;
  }
  std::vector<std::vector<std::string>> rows = {{"key", "arch", "bytes", "content hash"}};
  for (const auto& e : entries)
    rows.push_back({e.key, e.arch, std::to_string(e.bytes), e.content_hash});
  print_table(rows);
}

void stats(bool json) {
  const auto store = existing_cache();
  const std::string root = store ? store->root() : cache::disk_root_path(Options::global());
  const bool writable = store ? store->writable() : !root.empty() && cache::could_create(root);
  std::uint64_t total = 0;
  std::size_t stale_count = 0;
  const auto entries = store ? store->list() : std::vector<cache::DiskEntryInfo>{};
  for (const auto& e : entries) total += e.bytes, stale_count += other_build(e);
  if (json) {
    nlohmann::ordered_json out = {{"root", root},
                                  {"exists", store != nullptr},
                                  {"writable", writable},
                                  {"count", entries.size()},
                                  {"other_builds", stale_count},
                                  {"total_bytes", total}};
    fmt::print("{}\n", out.dump(2));
    return;
  }
  print_table({{"root", store ? root : root + " (not created yet)"},
               {"writable", writable ? "yes" : "no"},
               {"count", std::to_string(entries.size())},
               {"of other builds (`cache prune`)", std::to_string(stale_count)},
               {"total bytes", fmt::format("{} ({})", total, human_bytes(total))}});
}

void prune(double days, bool dry_run, bool json) {
  std::string why;
  if (jit::nvrtc_api_or_null(&why) == nullptr) {
    throw Error(fmt::format(
        "cache prune: NVRTC could not be loaded ({}), so the entries of this build's NVRTC "
        "cannot be told from other builds'; nothing removed (set MOEGEMV_NVRTC_LIBRARY)",
        why));
  }
  auto store = open_cache();
  const auto picked = store.prune(
      [days](const cache::DiskEntryInfo& e) {
        return other_build(e) && cache::older_than(e.path, days_to_seconds(days));
      },
      dry_run);
  std::uint64_t bytes = 0;
  for (const auto& e : picked) bytes += e.bytes;
  const auto dirs = other_format_dirs(store, days);
  if (!dry_run) {
    for (const auto& d : dirs) {
      std::error_code ec;
      std::filesystem::remove_all(d, ec);
      if (ec) throw moegemv::CacheError(d.string(), "cannot remove: " + ec.message());
    }
  }
  if (json) {
    nlohmann::ordered_json out = {{"root", store.root()},
                                  {"dry_run", dry_run},
                                  {"entries", picked.size()},
                                  {"bytes", bytes},
                                  {"other_format_dirs", nlohmann::ordered_json::array()}};
    for (const auto& d : dirs) out["other_format_dirs"].push_back(d.string());
    fmt::print("{}\n", out.dump(2));
    return;
  }
  fmt::print("{} {} entries of other builds, unwritten for {} days ({}) from {}",
             dry_run ? "would remove" : "removed", picked.size(), days, human_bytes(bytes),
             store.root().empty() ? "(no cache)" : store.root());
  for (const auto& d : dirs) fmt::print(", and the other-format directory {}", d.string());
  fmt::print("\n");
}

void clear() {
  auto store = open_cache();
  const std::size_t removed = store.clear();
  fmt::print("removed {} entries from {}\n", removed, store.root());
}

}  // namespace

void add_cache_command(CLI::App& app) {
  CLI::App* cache = app.add_subcommand("cache", "Inspect or clear the disk cache of cubins");
  cache->require_subcommand(1);
  auto json = std::make_shared<bool>(false);
  CLI::App* l = cache->add_subcommand("ls", "List cached entries (key, arch, bytes)");
  l->add_flag("--json", *json, "print JSON instead of a table");
  l->callback([json] { ls(*json); });
  CLI::App* s = cache->add_subcommand("stats", "Cache root, writability, entry count, total bytes");
  s->add_flag("--json", *json, "print JSON instead of a table");
  s->callback([json] { stats(*json); });
  CLI::App* c = cache->add_subcommand("clear", "Remove every cached entry");
  c->callback([] { clear(); });
  auto dry_run = std::make_shared<bool>(false);
  auto days = std::make_shared<double>(7.0);
  CLI::App* p = cache->add_subcommand(
      "prune",
      "Remove entries this build can never read (other templates or NVRTC: other builds' entries, "
      "if several share the cache) and other entry formats' directories, unwritten for some days");
  p->add_option("--older-than", *days, "days since an entry was written (default 7; 0: all)")
      ->check(CLI::NonNegativeNumber);
  p->add_flag("--dry-run", *dry_run, "only say what would be removed");
  p->add_flag("--json", *json, "print JSON instead of a line");
  p->callback([days, dry_run, json] { prune(*days, *dry_run, *json); });
}

}  // namespace moegemv::cli
