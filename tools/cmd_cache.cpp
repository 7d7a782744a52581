// `moegemv cache ls|stats|clear`: housekeeping of the on-disk cubin cache (MOEGEMV_CACHE_DIR).
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <tuple>

#include "cache/store.hpp"
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
  const auto entries = store.list();
  for (const auto& e : entries) total += e.bytes;
  if (json) {
    nlohmann::ordered_json out = {{"root", store.root()},
                                  {"writable", store.writable()},
                                  {"count", entries.size()},
                                  {"total_bytes", total}};
    fmt::print("{}\n", out.dump(2));
    return;
  }
  print_table({{"root", store.root()},
               {"writable", store.writable() ? "yes" : "no"},
               {"count", std::to_string(entries.size())},
               {"total bytes", fmt::format("{} ({})", total, human_bytes(total))}});
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
}

}  // namespace moegemv::cli
