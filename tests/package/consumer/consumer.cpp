// An engine's use of the installed C++ API without a GPU: every error below is thrown inside
// libmoegemv.so and must be caught here by its type, which needs the exported typeinfo.
#include <cstdio>
#include <cstdlib>
#include <moegemv/moegemv.hpp>
#include <moegemv/options.hpp>
#include <string>

namespace {

int failures = 0;

void check(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "FAILED: %s\n", what.c_str());
    ++failures;
  }
}

template <class Expected, class F>
void expect_throw(const char* call, F&& body, void (*inspect)(const Expected&)) {
  try {
    body();
    check(false, std::string(call) + " did not throw");
  } catch (const Expected& e) {
    std::printf("%s threw: %s\n", call, e.what());
    inspect(e);
  } catch (const std::exception& e) {
    check(false, std::string(call) + " threw another type: " + e.what());
  }
}

}  // namespace

int main() {
  std::printf("moegemv %s\n", moegemv::version());

  expect_throw<moegemv::ArgumentError>(
      "Key::parse", [] { moegemv::Key::parse("gate_up:7168:x:0:8", "engine key"); },
      [](const moegemv::ArgumentError& e) {
        check(e.argument == "engine key", "ArgumentError::argument is '" + e.argument + "'");
        check(e.got == "gate_up:7168:x:0:8", "ArgumentError::got is '" + e.got + "'");
      });
  // The base class catches it too: the .so and this program agree on the hierarchy.
  expect_throw<moegemv::Error>(
      "Key::validate",
      [] {
        moegemv::Key{moegemv::Kind::kGateUp, 100, 64, 0, 8}.validate();
      },
      [](const moegemv::Error& e) {
        check(dynamic_cast<const moegemv::ArgumentError*>(&e) != nullptr, "not an ArgumentError");
      });
  expect_throw<moegemv::ArgumentError>(
      "Options::from_env",
      [] {
        setenv("MOEGEMV_LOG_LEVEL", "loud", 1);
        moegemv::Options::from_env();
      },
      [](const moegemv::ArgumentError& e) {
        check(e.argument == "MOEGEMV_LOG_LEVEL", "names '" + e.argument + "'");
      });
  unsetenv("MOEGEMV_LOG_LEVEL");

  // std::string and std::string_view cross the boundary both ways.
  const moegemv::Key key = moegemv::Key::parse("down_combine:7168:2048:2048:8");
  check(key.kind == moegemv::Kind::kDownCombine && key.h == 7168 && key.k == 8, "parsed fields");
  check(key.str() == "down_combine:7168:2048:2048:8", "Key::str() is " + key.str());
  check(moegemv::kind_name(key.kind) == "down_combine", "kind_name");

  // No current CUDA context in this process (no driver at all without a GPU).
  expect_throw<moegemv::CudaError>(
      "prepare", [&] { moegemv::prepare(key); },
      [](const moegemv::CudaError& e) { check(!e.call.empty(), "CudaError::call is empty"); });

  std::printf("%d failure(s)\n", failures);
  return failures == 0 ? 0 : 1;
}
