// `moegemv cache ls|stats|clear|prune`: housekeeping of the on-disk cubin cache (MOEGEMV_CACHE_DIR).
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <tuple>

#include "cache/store.hpp"
#include "jit/nvrtc.hpp"
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

// An entry this build can never read: made from other templates or by another NVRTC (each is
// part of every content hash this build computes). Entries of another MOEGEMV_TUNE are not.
bool stale(const cache::DiskEntryInfo& e) {
  return e.template_hash != jit::templates_hash() || e.nvrtc_version != jit::nvrtc_version();
}

// The cache directories of other entry formats (<dir>/v<N>, N != this build's), none of which
// this build reads.
std::vector<std::filesystem::path> other_format_dirs(const cache::CubinStore& store) {
  std::vector<std::filesystem::path> dirs;
  if (store.root().empty()) return dirs;
  const std::filesystem::path root(store.root());
  std::error_code ec;
  for (const auto& d : std::filesystem::directory_iterator(root.parent_path(), ec)) {
    const std::string name = d.path().filename().string();
    const bool versioned = name.size() > 1 && name[0] == 'v' &&
                           name.find_first_not_of("0123456789", 1) == std::string::npos;
    if (versioned && d.is_directory(ec) && d.path() != root) dirs.push_back(d.path());
  }
  return dirs;
}

void ls(bool json) {
  auto entries = open_cache().list();
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
  const auto store = open_cache();
  std::uint64_t total = 0;
  std::size_t stale_count = 0;
  const auto entries = store.list();
  for (const auto& e : entries) total += e.bytes, stale_count += stale(e);
  if (json) {
    nlohmann::ordered_json out = {{"root", store.root()},
                                  {"writable", store.writable()},
                                  {"count", entries.size()},
                                  {"stale", stale_count},
                                  {"total_bytes", total}};
    fmt::print("{}\n", out.dump(2));
    return;
  }
  print_table({{"root", store.root()},
               {"writable", store.writable() ? "yes" : "no"},
               {"count", std::to_string(entries.size())},
               {"stale (`cache prune`)", std::to_string(stale_count)},
               {"total bytes", fmt::format("{} ({})", total, human_bytes(total))}});
}

void prune(bool dry_run, bool json) {
  auto store = open_cache();
  const auto picked = store.prune(stale, dry_run);
  std::uint64_t bytes = 0;
  for (const auto& e : picked) bytes += e.bytes;
  const auto dirs = other_format_dirs(store);
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
  fmt::print("{} {} stale entries ({}) from {}", dry_run ? "would remove" : "removed",
             picked.size(), human_bytes(bytes), store.root().empty() ? "(no cache)" : store.root());
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
  CLI::App* p = cache->add_subcommand("prune",
                                      "Remove the entries this build can never read (other "
                                      "templates or NVRTC, other entry formats)");
  p->add_flag("--dry-run", *dry_run, "only say what would be removed");
  p->add_flag("--json", *json, "print JSON instead of a line");
  p->callback([dry_run, json] { prune(*dry_run, *json); });
}

}  // namespace moegemv::cli
