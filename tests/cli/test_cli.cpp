// The `moegemv` CLI as a user runs it: a child process per command, each test with its own empty
// cache directory, checking exit status, stdout (parsed when --json) and the error text.
#include <catch2/catch.hpp>

#include "runtime/driver.hpp"
#include "tests/cli/cli_helpers.hpp"

using namespace moegemv::cli_test;
namespace fs = std::filesystem;

TEST_CASE("every command has --help", "[cli]") {
  TempDir dir;
  const char* commands[] = {"",       "models",        "prewarm",     "emit",
                            "bundle", "bundle create", "bundle list", "bundle verify",
                            "cache",  "cache ls",      "cache stats", "cache clear",
                            "info",   "check",         "bench"};
  for (const char* command : commands) {
    std::vector<std::string> args;
    std::istringstream words(command);
    for (std::string word; words >> word;) args.push_back(word);
    args.push_back("--help");
    const Result r = run_cli(args, dir);
    INFO(joined(args) << "\nstderr: " << r.err);
    CHECK(r.status == 0);
    CHECK_THAT(r.out, Contains("Usage"));
  }
}

TEST_CASE("models lists the presets and their keys", "[cli]") {
  TempDir dir;
  const Result table = run_cli({"models"}, dir);
  CHECK(table.status == 0);
  CHECK_THAT(table.out, Contains("deepseek-v3"));
  CHECK_THAT(table.out, Contains("gate_up:7168:2048:2048:8"));
  CHECK_THAT(table.out, Contains("down_combine:7168:2048:2048:8"));

  const Result json = run_cli({"models", "--json", "--tp", "2", "--model", "deepseek-v3"}, dir);
  REQUIRE(json.status == 0);
  const auto models = parse_json(json);
  REQUIRE(models.size() == 1);
  CHECK(models[0]["i"] == 1024);
  CHECK(models[0]["keys"] ==
        nlohmann::json({"gate_up:7168:1024:1024:8", "down_combine:7168:1024:1024:8"}));
}

TEST_CASE("--model takes a comma-separated list as bench does, and names a bad one in it",
          "[cli]") {
  TempDir dir;
  const Result json = run_cli({"models", "--json", "--model", "qwen3-next,glm-4.5"}, dir);
  REQUIRE(json.status == 0);
  const auto models = parse_json(json);
  REQUIRE(models.size() == 2);
  CHECK(models[0]["name"] == "qwen3-next");
  CHECK(models[1]["name"] == "glm-4.5");

  const Result bad = run_cli({"prewarm", "--model", "qwen3-next,gpt-9", "--arch", "sm_90"}, dir);
  CHECK(bad.status != 0);
  CHECK_THAT(bad.err, Contains("--model") && Contains("gpt-9"));
  CHECK_THAT(bad.err, !Contains("qwen3-next,gpt-9"));
}

TEST_CASE("models --tp that breaks the multiple-of-64 rule fails naming --tp", "[cli]") {
  TempDir dir;
  const Result r = run_cli({"models", "--tp", "3"}, dir);
  CHECK(r.status != 0);
  CHECK_THAT(r.err, Contains("--tp"));
  CHECK(r.out.empty());
  CHECK_THAT(r.err, !Contains("terminate"));
}

TEST_CASE("bench names a bad --seed before it looks for a GPU", "[cli]") {
  TempDir dir;
  const Result r = run_cli({"bench", "--seed", "abc"}, dir);
  CHECK(r.status != 0);
  CHECK_THAT(r.err, Contains("--seed"));
}

TEST_CASE("bench names a bad --settle-ms before it looks for a GPU", "[cli]") {
  TempDir dir;
  for (const char* bad : {"-1", "60001", "abc"}) {
    INFO(bad);
    const Result r = run_cli({"bench", "--settle-ms", bad}, dir);
    CHECK(r.status != 0);
    CHECK_THAT(r.err, Contains("--settle-ms"));
  }
}

TEST_CASE("bench names a bad --timeline-replays, and one given without --timeline", "[cli]") {
  TempDir dir;
  const Result zero = run_cli({"bench", "--timeline", "--timeline-replays", "0"}, dir);
  CHECK(zero.status != 0);
  CHECK_THAT(zero.err, Contains("--timeline-replays"));
  const Result alone = run_cli({"bench", "--timeline-replays", "3"}, dir);
  CHECK(alone.status != 0);
  CHECK_THAT(alone.err, Contains("--timeline-replays") && Contains("--timeline"));
}

TEST_CASE("bench takes one diagnostic at a time and says so before it looks for a GPU", "[cli]") {
  TempDir dir;
  const Result r = run_cli({"bench", "--hot", "--patterns"}, dir);
  CHECK(r.status != 0);
  CHECK_THAT(r.err, Contains("--hot") && Contains("--patterns") && !Contains("GPU"));
}

TEST_CASE("check --shard-control sums CPU reference shards without a GPU", "[cli]") {
  TempDir dir;
  const Result r =
      run_cli({"check", "--shard-control", "1", "--shape", "1024:512:512:4", "--e", "8"}, dir);
  INFO(r.err);
  CHECK(r.status == 0);
  for (const char* mode : {"tp=2", "tp=4", "tp=8", "ep=2", "ep=4", "ep=8"})
    CHECK_THAT(r.out, Contains(std::string("E=8 M=4 ") + mode + ": ") && Contains("of 1 layers"));
  // A split the shape cannot take is named and skipped, the others still run.
  const Result odd =
      run_cli({"check", "--shard-control", "1", "--shape", "256:192:128:4", "--e", "6"}, dir);
  CHECK(odd.status == 0);
  CHECK_THAT(odd.out, Contains("tp=2: not possible") && Contains("E=6 M=4 ep=2: ") &&
                          Contains("ep=4: not possible"));
  // --shape takes a comma-separated list as --m and --e do.
  const Result both = run_cli(
      {"check", "--shard-control", "1", "--shape", "1024:512:512:4,256:192:128:4", "--e", "8"},
      dir);
  CHECK(both.status == 0);
  CHECK_THAT(both.out, Contains("CPU 1024:512:512:4 E=8 M=4 ep=2: ") &&
                           Contains("CPU 256:192:128:4 E=8 M=4 ep=2: "));
  const Result bad = run_cli({"check", "--shard-control", "0"}, dir);
  CHECK(bad.status != 0);
  CHECK_THAT(bad.err, Contains("--shard-control"));
}

TEST_CASE("emit prints the generated source", "[cli]") {
  TempDir dir;
  const Result r = run_cli({"emit", "gate_up:2048:512:512:10"}, dir);
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Contains("moegemv_gate_up_2048_512_512_10"));
}

TEST_CASE("emit rejects a bad key or arch and names the problem", "[cli]") {
  TempDir dir;
  const Result odd = run_cli({"emit", "gate_up:2048:500:512:10"}, dir);
  CHECK(odd.status != 0);
  CHECK_THAT(odd.err, Contains("I of key") && Contains("multiple of 64") && Contains("500"));

  const Result garbage = run_cli({"emit", "up:1:2"}, dir);
  CHECK(garbage.status != 0);
  CHECK_THAT(garbage.err, Contains("KEY") && Contains("up:1:2"));

  const Result arch = run_cli({"emit", "gate_up:2048:512:512:10", "--arch", "sm_80"}, dir);
  CHECK(arch.status != 0);
  CHECK_THAT(arch.err, Contains("--arch") && Contains("sm_80"));
}

TEST_CASE("prewarm compiles once, then hits the cache", "[cli]") {
  TempDir dir;
  const std::vector<std::string> args = {"prewarm", "--key", kSmallKey,
                                         "--arch",  "sm_90", "--json"};
  const Result first = run_cli(args, dir);
  REQUIRE(first.status == 0);
  const auto cold = parse_json(first);
  CHECK(cold["compiled"] == 1);
  CHECK(cold["cache_hits"] == 0);
  CHECK(cold["failed"] == 0);
  REQUIRE(cold["entries"].size() == 1);
  CHECK(cold["entries"][0]["key"] == kSmallKey);
  CHECK(cold["entries"][0]["arch"] == "sm_90");
  CHECK(cold["entries"][0]["source"] == "compiled");
  CHECK(cold["entries"][0]["saved"] == true);
  CHECK(cold["unsaved"] == 0);

  const auto warm = parse_json(run_cli(args, dir));
  CHECK(warm["compiled"] == 0);
  CHECK(warm["cache_hits"] == 1);
  CHECK(warm["entries"][0]["source"] == "cache");
}

TEST_CASE("prewarm fails when the cache cannot keep what it compiled", "[cli]") {
  // A cache directory that cannot exist (its parent is a regular file): the kernel compiles, but
  // into this process's memory only, which is not what a prewarm is for.
  TempDir dir;
  { std::ofstream(dir / "file") << "x"; }
  const std::string root = dir / "file/cache";
  const Result r = run_cli({"prewarm", "--key", kSmallKey, "--arch", "sm_90", "--json"}, dir,
                           {{"MOEGEMV_CACHE_DIR", root}});
  INFO(r.err);
  CHECK(r.status == 1);
  CHECK_THAT(r.err, Contains("not saved") && Contains(root) && Contains("MOEGEMV_CACHE_DIR"));
  const auto j = parse_json(r);
  CHECK(j["compiled"] == 1);
  CHECK(j["unsaved"] == 1);
  CHECK(j["entries"][0]["saved"] == false);
}

TEST_CASE("prewarm argument errors", "[cli]") {
  TempDir dir;
  const Result none = run_cli({"prewarm", "--arch", "sm_90"}, dir);
  CHECK(none.status != 0);
  CHECK_THAT(none.err, Contains("--model") && Contains("--key"));

  const Result model = run_cli({"prewarm", "--model", "gpt-9", "--arch", "sm_90"}, dir);
  CHECK(model.status != 0);
  CHECK_THAT(model.err, Contains("--model") && Contains("deepseek-v3"));

  const Result arch = run_cli({"prewarm", "--key", kSmallKey, "--arch", "sm_90,sm_7"}, dir);
  CHECK(arch.status != 0);
  CHECK_THAT(arch.err, Contains("--arch") && Contains("sm_7"));

  if (moegemv::driver::available()) {
    WARN("a GPU is visible: prewarm without --arch uses its arch; not checking the error");
    return;
  }
  const Result no_arch = run_cli({"prewarm", "--key", kSmallKey}, dir);
  CHECK(no_arch.status != 0);
  CHECK_THAT(no_arch.err, Contains("--arch is required"));
}

TEST_CASE("bundle create, list, verify, and serve a cold cache", "[cli]") {
  TempDir dir;
  const std::string bundle = dir / "kernels.moegemv";
  const Result create =
      run_cli({"bundle", "create", "-o", bundle, "--key", kSmallKey, "--arch", "sm_90"}, dir);
  INFO(create.err);
  REQUIRE(create.status == 0);

  const Result list = run_cli({"bundle", "list", bundle, "--json"}, dir);
  REQUIRE(list.status == 0);
  const auto manifest = parse_json(list);
  REQUIRE(manifest["entries"].size() == 1);
  const auto& entry = manifest["entries"][0];
  CHECK(entry["key"] == kSmallKey);
  CHECK(entry["arch"] == "sm_90");
  CHECK(entry["template_current"] == true);
  CHECK(entry["usable"] == true);
  CHECK(entry["unusable_reason"] == "");
  CHECK(entry["size"].get<std::uint64_t>() > 0);
  CHECK(entry["checksum"].get<std::string>().size() == 16);

  const Result verify = run_cli({"bundle", "verify", bundle}, dir);
  INFO(verify.out << verify.err);
  CHECK(verify.status == 0);

  // A fresh cache with MOEGEMV_BUNDLE set: served from the bundle, nothing compiled.
  TempDir cold;
  const auto served =
      parse_json(run_cli({"prewarm", "--key", kSmallKey, "--arch", "sm_90", "--json"}, cold,
                         {{"MOEGEMV_BUNDLE", bundle}}));
  CHECK(served["bundle_hits"] == 1);
  CHECK(served["compiled"] == 0);

  // Damage the last cubin byte: verify must fail and say which entry.
  {
    std::fstream file(bundle, std::ios::in | std::ios::out | std::ios::binary);
    file.seekg(-1, std::ios::end);
    const char last = static_cast<char>(file.get());
    file.seekp(-1, std::ios::end);
    file.put(static_cast<char>(last ^ 0x5a));
  }
  const Result damaged = run_cli({"bundle", "verify", bundle}, dir);
  CHECK(damaged.status != 0);
  CHECK_THAT(damaged.err, Contains(kSmallKey));
}

TEST_CASE("bundle list, verify and info judge entries as the runtime does", "[cli]") {
  // Built under another MOEGEMV_TUNE: same templates and NVRTC, other generated source, so the
  // runtime skips it. list, verify and info must say so, not call it current.
  TempDir dir;
  const std::string bundle = dir / "tuned.moegemv";
  const Result create =
      run_cli({"bundle", "create", "-o", bundle, "--key", kSmallKey, "--arch", "sm_90"}, dir,
              {{"MOEGEMV_TUNE", "gu_warps=8"}});
  INFO(create.err);
  REQUIRE(create.status == 0);

  const auto manifest = parse_json(run_cli({"bundle", "list", bundle, "--json"}, dir));
  REQUIRE(manifest["entries"].size() == 1);
  CHECK(manifest["entries"][0]["template_current"] == true);
  CHECK(manifest["entries"][0]["usable"] == false);
  CHECK_THAT(manifest["entries"][0]["unusable_reason"].get<std::string>(),
             Contains("generated source or compile options differ"));
  // ... and usable under the tune it was built with.
  const auto tuned = parse_json(
      run_cli({"bundle", "list", bundle, "--json"}, dir, {{"MOEGEMV_TUNE", "gu_warps=8"}}));
  CHECK(tuned["entries"][0]["usable"] == true);

  const Result verify = run_cli({"bundle", "verify", bundle}, dir);
  CHECK(verify.status == 1);
  CHECK_THAT(verify.err, Contains(kSmallKey) && Contains("not used by this build"));

  const Result info = run_cli({"info"}, dir, {{"MOEGEMV_BUNDLE", bundle}});
  CHECK(info.status == 0);
  CHECK_THAT(info.out, Contains("1 entries (0 usable by this build)"));
}

TEST_CASE("cache prune: other entry formats' caches, by age, and nothing else", "[cli]") {
  TempDir dir;
  REQUIRE(run_cli({"prewarm", "--key", kSmallKey, "--arch", "sm_90"}, dir).status == 0);
  fs::create_directories(dir.path() / "cache" / "v0" / "ab");  // an older format's cache
  { std::ofstream(dir / "cache/v0/ab/old.cubin") << "old"; }
  fs::create_directories(dir.path() / "cache" / "v9");  // not a cache: never touched
  { std::ofstream(dir / "cache/v9/notes.txt") << "mine"; }
  auto stats = parse_json(run_cli({"cache", "stats", "--json"}, dir));
  CHECK(stats["other_builds"] == 0);
  // Written just now: kept by the default age (7 days).
  const auto young = parse_json(run_cli({"cache", "prune", "--json"}, dir));
  CHECK(young["entries"] == 0);
  CHECK(young["other_format_dirs"].empty());
  CHECK(fs::exists(dir.path() / "cache" / "v0"));
  const auto dry = parse_json(run_cli({"cache", "prune", "--older-than", "0", "--dry-run", "--json"}, dir));
  REQUIRE(dry["other_format_dirs"].size() == 1);
  CHECK(fs::exists(dir.path() / "cache" / "v0"));
  const Result pruned = run_cli({"cache", "prune", "--older-than", "0"}, dir);
  INFO(pruned.err);
  CHECK(pruned.status == 0);
  CHECK_THAT(pruned.out, Contains("removed 0 entries of other builds") && Contains("v0"));
  CHECK_FALSE(fs::exists(dir.path() / "cache" / "v0"));
  CHECK(fs::exists(dir.path() / "cache" / "v9" / "notes.txt"));
  CHECK(parse_json(run_cli({"cache", "stats", "--json"}, dir))["count"] == 1);
  CHECK(run_cli({"cache", "prune", "--older-than", "-1"}, dir).status != 0);
}

TEST_CASE("cache stats, ls and clear", "[cli]") {
  TempDir dir;
  // Looking at a cache that does not exist yet creates nothing.
  auto stats = parse_json(run_cli({"cache", "stats", "--json"}, dir));
  CHECK(stats["count"] == 0);
  CHECK(stats["exists"] == false);
  CHECK(stats["writable"] == true);
  CHECK(fs::path(stats["root"].get<std::string>()).parent_path() == dir.path() / "cache");
  CHECK(run_cli({"cache", "ls"}, dir).status == 0);
  const auto info = parse_json(run_cli({"info", "--json"}, dir));
  CHECK(info["cache_exists"] == false);
  CHECK(info["cache_writable"] == true);
  CHECK_FALSE(fs::exists(dir.path() / "cache"));
  // Under a regular file nothing can be created: said, not attempted.
  std::ofstream(dir / "file") << "x";
  const auto blocked =
      parse_json(run_cli({"cache", "stats", "--json"}, dir, {{"MOEGEMV_CACHE_DIR", dir / "file/c"}}));
  CHECK(blocked["writable"] == false);

  REQUIRE(run_cli({"prewarm", "--key", kSmallKey, "--arch", "sm_90"}, dir).status == 0);
  stats = parse_json(run_cli({"cache", "stats", "--json"}, dir));
  CHECK(stats["exists"] == true);
  CHECK(stats["count"] == 1);
  CHECK(stats["total_bytes"].get<std::uint64_t>() > 0);

  const Result ls = run_cli({"cache", "ls"}, dir);
  CHECK(ls.status == 0);
  CHECK_THAT(ls.out, Contains(kSmallKey) && Contains("sm_90"));

  const Result clear = run_cli({"cache", "clear"}, dir);
  CHECK(clear.status == 0);
  CHECK_THAT(clear.out, Contains("removed 1"));
  stats = parse_json(run_cli({"cache", "stats", "--json"}, dir));
  CHECK(stats["count"] == 0);
}

TEST_CASE("info reports versions, cache and the driver", "[cli]") {
  TempDir dir;
  const Result r = run_cli({"info", "--json"}, dir);
  REQUIRE(r.status == 0);
  const auto info = parse_json(r);
  CHECK(info["moegemv"].get<std::string>().size() > 0);
  CHECK(info["template_hash"].get<std::string>().size() == 16);
  CHECK(info["driver"]["available"] == moegemv::driver::available());
  CHECK(run_cli({"info"}, dir).status == 0);
}

TEST_CASE("a missing subcommand or unknown option is a usage error", "[cli]") {
  TempDir dir;
  const Result none = run_cli({}, dir);
  CHECK(none.status != 0);
  CHECK_THAT(none.err, Contains("moegemv: error"));
  const Result unknown = run_cli({"models", "--bogus"}, dir);
  CHECK(unknown.status != 0);
  CHECK_THAT(unknown.err, Contains("--bogus"));
}
