// libmoegemv.so's dynamic symbol table and dependencies, read with binutils as a packager would.
// What is public is read from include/moegemv/: the declarations marked MOEGEMV_API.
#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <regex>
#include <set>

#include "process.hpp"

namespace moegemv::package_test {
namespace {

struct PublicApi {
  std::set<std::string> c_functions;  // moegemv.h
  std::set<std::string> classes;      // class/struct MOEGEMV_API X
  std::set<std::string> functions;    // MOEGEMV_API ... f( at namespace scope in the .hpp files
  std::set<std::string> error_classes;
};

std::set<std::string> matches(const std::string& text, const std::regex& pattern) {
  std::set<std::string> found;
  for (std::sregex_iterator it(text.begin(), text.end(), pattern), end; it != end; ++it)
    found.insert((*it)[1].str());
  return found;
}

PublicApi public_api() {
  const fs::path dir = fs::path(MOEGEMV_SOURCE_DIR) / "include" / "moegemv";
  const std::regex c_function(R"(MOEGEMV_API[^;(]*?\b(moegemv_\w+)\s*\()");
  const std::regex klass(R"((?:class|struct)\s+MOEGEMV_API\s+(\w+))");
  const std::regex function(R"(MOEGEMV_API\s+[^;{(]*?(\w+)\s*\()");
  PublicApi api;
  api.c_functions = matches(slurp(dir / "moegemv.h"), c_function);
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".hpp") continue;
    const std::string text = slurp(entry.path());
    for (const auto& name : matches(text, klass)) api.classes.insert(name);
    for (const auto& name : matches(text, function)) api.functions.insert(name);
    if (entry.path().filename() == "errors.hpp") api.error_classes = matches(text, klass);
  }
  // Sanity of the parse itself: a regex that finds nothing would make the checks below vacuous.
  REQUIRE(api.c_functions.count("moegemv_prepare") == 1);
  REQUIRE(api.classes.count("ArgumentError") == 1);
  REQUIRE(api.classes.count("Key") == 1);
  REQUIRE(api.functions.count("gate_up") == 1);
  return api;
}

std::string demangle(const std::string& name) {
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> text(
      abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), &std::free);
  return status == 0 && text ? std::string(text.get()) : name;
}

// nm -D --defined-only: "<address> <type> <name>" per symbol.
std::vector<std::string> exported_symbols(const fs::path& scratch) {
  const Output r = run_ok({"nm", "-D", "--defined-only", MOEGEMV_SHARED_LIBRARY}, scratch);
  std::vector<std::string> names;
  for (const auto& line : lines(r.out)) {
    std::istringstream fields(line);
    std::string address, type, name;
    if (fields >> address >> type >> name) names.push_back(name);
  }
  return names;
}

// Why `symbol` may be exported, or "" when it may not. C++ symbols: moegemv::<Public>... or the
// typeinfo/vtable of a public class.
std::string public_reason(const std::string& symbol, const PublicApi& api) {
  if (api.c_functions.count(symbol)) return "C ABI";
  const std::string name = demangle(symbol);
  if (name == symbol) return "";  // an unmangled name that moegemv.h does not declare
  std::string rest = name;
  bool class_data = false;
  for (const char* prefix : {"typeinfo name for ", "typeinfo for ", "vtable for "}) {
    if (rest.rfind(prefix, 0) == 0) {
      rest = rest.substr(std::string(prefix).size());
      class_data = true;
      break;
    }
  }
  const std::string ns = "moegemv::";
  if (rest.rfind(ns, 0) != 0) return "";
  const std::string head = rest.substr(ns.size(), rest.find_first_of(":(<", ns.size()) - ns.size());
  if (api.classes.count(head)) return "public class " + head;
  if (!class_data && api.functions.count(head)) return "public function " + head;
  return "";
}

TEST_CASE("libmoegemv.so exports exactly the public API", "[package]") {
  TempDir scratch;
  const PublicApi api = public_api();
  const std::vector<std::string> symbols = exported_symbols(scratch.path());
  REQUIRE(!symbols.empty());

  std::string leaked;
  for (const auto& s : symbols)
    if (public_reason(s, api).empty()) leaked += "  " + demangle(s) + "\n";
  INFO("exported but not public (not moegemv_* of moegemv.h nor moegemv::<MOEGEMV_API name>):\n"
       << leaked);
  CHECK(leaked.empty());

  const std::set<std::string> have(symbols.begin(), symbols.end());
  std::set<std::string> demangled;
  for (const auto& s : symbols) demangled.insert(demangle(s));
  auto has_prefix = [&](const std::string& prefix) {
    return std::any_of(demangled.begin(), demangled.end(),
                       [&](const std::string& d) { return d.rfind(prefix, 0) == 0; });
  };
  for (const auto& f : api.c_functions) {
    INFO("C function of moegemv.h not exported: " << f);
    CHECK(have.count(f) == 1);
  }
  for (const auto& f : api.functions) {
    INFO("public C++ function not exported: moegemv::" << f);
    CHECK(has_prefix("moegemv::" + f + "("));
  }
  // Catching moegemv::ArgumentError (or its base) outside the .so compares type_infos.
  for (const auto& e : api.error_classes) {
    INFO("typeinfo of a public error class not exported: moegemv::" << e);
    CHECK(demangled.count("typeinfo for moegemv::" + e) == 1);
  }
}

TEST_CASE("libmoegemv.so carries its SONAME and needs only the C and C++ runtimes", "[package]") {
  TempDir scratch;
  const Output r = run_ok({"readelf", "-dW", MOEGEMV_SHARED_LIBRARY}, scratch.path());
  const std::set<std::string> allowed = {
      "libc.so.6",  "libm.so.6",       "libstdc++.so.6",       "libgcc_s.so.1",
      "libdl.so.2", "libpthread.so.0", "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1"};
  const std::regex entry(R"(\((NEEDED|SONAME|RPATH|RUNPATH)\)[^\[]*\[([^\]]*)\])");
  std::vector<std::string> needed, soname, paths;
  for (std::sregex_iterator it(r.out.begin(), r.out.end(), entry), end; it != end; ++it) {
    const std::string tag = (*it)[1], value = (*it)[2];
    (tag == "NEEDED" ? needed : tag == "SONAME" ? soname : paths).push_back(value);
  }
  REQUIRE(!needed.empty());  // the parse found the dynamic section
  for (const auto& lib : needed) {
    INFO("unexpected run-time dependency: " << lib << " (fmt, spdlog, CUDA libraries must not be)");
    CHECK(allowed.count(lib) == 1);
  }
  REQUIRE(soname.size() == 1);
  CHECK(soname[0] == std::string("libmoegemv.so.") + MOEGEMV_SOVERSION);
  INFO("the library must not search this machine's paths at run time");
  CHECK(paths.empty());
}

}  // namespace
}  // namespace moegemv::package_test
