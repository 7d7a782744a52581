// EntrySpec::content_hash: changes with every field, with nothing else, and is pinned by a golden.
#include <cstdlib>
#include <set>

#include <catch2/catch.hpp>

#include "cache/disk_cache.hpp"
#include "tests/cache/helpers.hpp"

using namespace moegemv;
using namespace moegemv::cache;
using namespace moegemv::cache::test;

TEST_CASE("content_hash changes with every field", "[cache]") {
  const EntrySpec base = make_spec();
  std::vector<std::pair<std::string, std::function<void(EntrySpec&)>>> edits = {
      {"kind", [](EntrySpec& s) { s.key.kind = Kind::kDownCombine; }},
      {"H", [](EntrySpec& s) { s.key.h += 64; }},
      {"I", [](EntrySpec& s) { s.key.i += 64; }},
      {"SI", [](EntrySpec& s) { s.key.si = 0; }},
      {"K", [](EntrySpec& s) { s.key.k = 4; }},
      {"arch", [](EntrySpec& s) { s.arch = "sm_100a"; }},
      {"source", [](EntrySpec& s) { s.source += " "; }},
      {"option value", [](EntrySpec& s) { s.options[1] = "-arch=sm_100a"; }},
      {"option added", [](EntrySpec& s) { s.options.push_back("-lineinfo"); }},
      {"empty option added", [](EntrySpec& s) { s.options.push_back(""); }},
      {"option removed", [](EntrySpec& s) { s.options.pop_back(); }},
      {"options reordered", [](EntrySpec& s) { std::swap(s.options[0], s.options[2]); }},
      {"option split differently",
       [](EntrySpec& s) {
         s.options = {"--std=c++17-arch=sm_90", "", "-default-device"};
       }},
      {"nvrtc version", [](EntrySpec& s) { s.nvrtc_version = "13.1"; }},
      {"template hash", [](EntrySpec& s) { s.template_hash = "fedcba9876543210"; }},
      // Bytes moved across a field boundary must not collide (length prefixes).
      {"nvrtc/template boundary",
       [](EntrySpec& s) {
         s.nvrtc_version = "13.00";
         s.template_hash = "123456789abcdef";
       }},
      {"source/option boundary",
       [](EntrySpec& s) {
         s.source += "--std=c++17";
         s.options.erase(s.options.begin());
       }},
  };
  std::set<std::string> hashes = {base.content_hash()};
  for (const auto& [name, edit] : edits) {
    EntrySpec spec = base;
    edit(spec);
    INFO("field: " << name);
    CHECK(spec.content_hash() != base.content_hash());
    hashes.insert(spec.content_hash());
  }
  CHECK(hashes.size() == edits.size() + 1);
}

TEST_CASE("content_hash depends on content only", "[cache]") {
  const EntrySpec a = make_spec();
  EntrySpec b;  // built field by field, separately
  b.key = Key::parse(a.key.str());
  b.arch = std::string("sm_") + "90";
  b.source = a.source;
  b.options = {a.options[0], a.options[1], a.options[2]};
  b.nvrtc_version = a.nvrtc_version;
  b.template_hash = a.template_hash;
  CHECK(a.content_hash() == b.content_hash());
  CHECK(a.content_hash() == a.content_hash());

  const std::string hash = a.content_hash();
  REQUIRE(hash.size() == 32);
  CHECK(hash.find_first_not_of("0123456789abcdef") == std::string::npos);

  // Environment, working directory and cache location do not enter the hash or the file name.
  const char* home = std::getenv("HOME");
  const std::string saved_home = home ? home : "";
  ::setenv("MOEGEMV_CACHE_DIR", "/somewhere/else", 1);
  ::setenv("HOME", "/home/other", 1);
  CHECK(a.content_hash() == hash);
  ::unsetenv("MOEGEMV_CACHE_DIR");
  if (home) ::setenv("HOME", saved_home.c_str(), 1);
  LogCapture logs;
  TempDir one, two;
  DiskCache cache_one(one.path()), cache_two(two / "nested/deeper");
  CHECK(cache_one.entry_path(hash).substr(one.path().size()) ==
        cache_two.entry_path(hash).substr((two / "nested/deeper").size()));
  CHECK(cache_one.entry_path(hash) == one.path() + "/" + hash.substr(0, 2) + "/" + hash + ".cubin");
}

TEST_CASE("content_hash golden (a change needs a kFormatVersion bump)", "[cache]") {
  // If this fails, the hashing scheme changed: bump kFormatVersion and update this value.
  REQUIRE(kFormatVersion == 1);
  CHECK(make_spec().content_hash() == "0919a9578c6f4125c0958b16140a80d7");
}
