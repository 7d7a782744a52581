// Several processes on one cache: each entry compiles once; a killed compiler blocks nobody.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <sstream>

#include <catch2/catch.hpp>

#include "cache/disk_cache.hpp"
#include "cache/posix_io.hpp"
#include "tests/cache/helpers.hpp"

using namespace moegemv;
using namespace moegemv::cache;
using namespace moegemv::cache::test;

namespace {

constexpr int kProcesses = 8;
constexpr int kEntries = 4;

// Appends "<content hash>\n" to `log_path` (O_APPEND makes each short write atomic), then takes a
// while, like NVRTC, so that the other processes pile up on the lock.
CompileFn logged_compile(const EntrySpec& spec, const std::string& log_path) {
  return [spec, log_path] {
    Fd fd(::open(log_path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644));
    std::string line = spec.content_hash() + "\n";
    if (!fd || ::write(fd.get(), line.data(), line.size()) != ssize_t(line.size())) {
      throw std::runtime_error("cannot log compile");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    return fake_cubin(spec);
  };
}

}  // namespace

TEST_CASE("8 processes on a cold cache compile each entry exactly once", "[cache]") {
  LogCapture logs;  // inherited by the children: keeps their INFO lines out of the test output
  TempDir dir;
  const std::string log_path = dir / "compiles.log";
  const Options options = options_for(dir / "cache");
  std::vector<EntrySpec> specs;
  for (int e = 0; e < kEntries; ++e) specs.push_back(make_spec(e));

  int start[2];
  REQUIRE(::pipe(start) == 0);
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    children.push_back(fork_child([&, p] {
      ::close(start[1]);
      char byte;
      while (::read(start[0], &byte, 1) < 0 && errno == EINTR) {
      }  // returns 0 (EOF) when the parent closes its end: every child starts together
      CubinStore store(options);
      for (int e = 0; e < kEntries; ++e) {
        const EntrySpec& spec = specs[(e + p) % kEntries];  // contend on different entries
        Cubin cubin = store.get(spec, logged_compile(spec, log_path));
        if (cubin.bytes != fake_cubin(spec)) return 1;
      }
      return 0;
    }));
  }
  ::close(start[0]);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // let them all reach read()
  ::close(start[1]);
  for (pid_t pid : children) CHECK(wait_child(pid) == 0);

  std::map<std::string, int> compiles;
  std::ifstream log(log_path);
  for (std::string line; std::getline(log, line);) ++compiles[line];
  REQUIRE(compiles.size() == kEntries);
  for (const auto& spec : specs) CHECK(compiles[spec.content_hash()] == 1);

  CubinStore store(options);
  CHECK(store.list().size() == kEntries);
  CountingCompiler compiler;
  for (const auto& spec : specs) {
    Cubin cubin = store.get(spec, compiler.fn(spec));
    CHECK(cubin.origin == Origin::kDisk);
    CHECK(cubin.bytes == fake_cubin(spec));
  }
  CHECK(compiler.calls == 0);
  CHECK(logs.warnings() == 0);
}

TEST_CASE("a process killed while holding the entry lock blocks nobody", "[cache]") {
  LogCapture logs;
  TempDir dir;
  const Options options = options_for(dir / "cache");
  const EntrySpec spec = make_spec();

  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  pid_t victim = fork_child([&] {
    ::close(ready[0]);
    CubinStore store(options);
    store.get(spec, [&]() -> std::vector<std::uint8_t> {
      (void)!::write(ready[1], "x", 1);  // "I hold the lock and am compiling"
      for (;;) ::pause();
    });
    return 3;
  });
  ::close(ready[1]);
  pollfd pfd{ready[0], POLLIN, 0};
  REQUIRE(::poll(&pfd, 1, 10000) == 1);
  char byte = 0;
  REQUIRE(::read(ready[0], &byte, 1) == 1);
  ::close(ready[0]);

  // The lock really is held now.
  const std::string lock_path = DiskCache(options.cache_dir + "/v1").lock_path(spec.content_hash());
  bool busy = false;
  std::string error;
  CHECK_FALSE(FileLock::acquire(lock_path, /*wait=*/false, &busy, &error).has_value());
  CHECK(busy);

  ::kill(victim, SIGKILL);
  CHECK(wait_child(victim) == 128 + SIGKILL);

  // The next process must get through (bounded wait: a hang fails instead of stalling the run).
  pid_t next = fork_child([&] {
    CubinStore store(options);
    CountingCompiler compiler;
    Cubin cubin = store.get(spec, compiler.fn(spec));
    return cubin.origin == Origin::kCompiled && compiler.calls == 1 ? 0 : 1;
  });
  CHECK(wait_child(next, std::chrono::seconds(10)) == 0);

  CubinStore store(options);
  CountingCompiler compiler;
  CHECK(store.get(spec, compiler.fn(spec)).origin == Origin::kDisk);
}

TEST_CASE("a lock holder that never lets go is waited for only so long, and named", "[cache]") {
  // A stopped or hung holder (SIGSTOP, a debugger, a frozen cgroup) keeps its flock: the waiter
  // warns naming the lock file and the holder's pid, then gives up and compiles itself.
  LogCapture logs;
  TempDir dir;
  const EntrySpec spec = make_spec();
  const std::string hash = spec.content_hash();
  DiskCache cache(dir / "v1");
  bool busy = false;
  std::string error;
  REQUIRE(make_dirs(dir / ("v1/" + hash.substr(0, 2)), &error));
  auto held = FileLock::acquire(cache.lock_path(hash), /*wait=*/false, &busy, &error);
  REQUIRE(held);
  held->note_holder();
  CHECK(FileLock::holder(cache.lock_path(hash)) == "pid " + std::to_string(::getpid()));
  const auto start = std::chrono::steady_clock::now();
  auto lock = cache.lock(spec, hash, std::chrono::milliseconds(50), std::chrono::milliseconds(300));
  const auto waited = std::chrono::steady_clock::now() - start;
  CHECK_FALSE(lock);
  CHECK(waited >= std::chrono::milliseconds(300));
  CHECK(waited < std::chrono::seconds(5));
  INFO(logs.dump());
  CHECK(logs.warnings("still waiting") == 1);
  CHECK(logs.warnings("gave up") == 1);
  CHECK(logs.warnings("pid " + std::to_string(::getpid())) == 2);
  held.reset();  // released: the next one takes it at once and records itself
  auto next = cache.lock(spec, hash, std::chrono::milliseconds(50), std::chrono::milliseconds(300));
  CHECK(next);
}
