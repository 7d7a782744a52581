// The driver layer: loading libcuda, devices, memory, streams/events/graphs, modules, launch.
// The [gpu] tests need a CUDA device and skip visibly without one; the rest run anywhere.

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <memory>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "gpu_guard.hpp"
#include "jit/nvrtc.hpp"
#include "moegemv/errors.hpp"
#include "runtime/device.hpp"
#include "runtime/driver.hpp"
#include "runtime/launch.hpp"
#include "runtime/memory.hpp"
#include "runtime/module.hpp"

namespace drv = moegemv::driver;
using Catch::Matchers::Contains;
using moegemv::ArgumentError;
using moegemv::CudaError;

namespace {

// One struct by value, the calling convention of every moegemv kernel. The waits make the PDL
// launches correct: a dependent may start before this kernel's writes are visible.
constexpr const char* kAdd1Source = R"(
struct Add1Params { int* p; int n; };
extern "C" __global__ void add1(const __grid_constant__ Add1Params prm) {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < prm.n) prm.p[i] += 1;
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;");
#endif
}
extern "C" __global__ void add1_smem(const __grid_constant__ Add1Params prm) {
  extern __shared__ int tile[];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < prm.n ? prm.p[i] : 0;
  __syncthreads();
  if (i < prm.n) prm.p[i] = tile[threadIdx.x] + 1;
}
)";

struct Add1Params {
  CUdeviceptr p;
  int n;
};

std::vector<std::uint8_t> compile_add1(const std::string& arch) {
  return moegemv::jit::compile(kAdd1Source, "add1", arch, {"--gpu-architecture=" + arch}).cubin;
}

drv::DeviceInfo fake_device(int major, int minor) {
  drv::DeviceInfo info;
  info.cc_major = major;
  info.cc_minor = minor;
  return info;
}

std::vector<int> random_ints(std::size_t n) {
  std::mt19937 rng(std::random_device{}());
  std::uniform_int_distribution<int> dist(-1000000, 1000000);
  std::vector<int> values(n);
  for (int& v : values) v = dist(rng);
  return values;
}

}  // namespace

TEST_CASE("DeviceInfo::arch is the exact NVRTC target", "[runtime]") {
  CHECK(fake_device(9, 0).arch() == "sm_90");
  CHECK(fake_device(8, 9).arch() == "sm_89");
  CHECK(fake_device(10, 0).arch() == "sm_100a");
  CHECK(fake_device(10, 3).arch() == "sm_103a");
  CHECK(fake_device(12, 0).arch() == "sm_120a");
}

TEST_CASE("without a usable driver, api() throws a CudaError that says why", "[runtime]") {
  if (drv::available()) {
    CHECK(drv::unavailable_reason().empty());
    CHECK_NOTHROW(drv::api());
    return;
  }
  const std::string reason = drv::unavailable_reason();
  WARN("CUDA unavailable here: " << reason);
  CHECK_FALSE(reason.empty());
  try {
    drv::api();
    // The driver loaded but sees no device: then nothing is left to explain.
    CHECK(drv::device_count() == 0);
  } catch (const CudaError& e) {
    if (e.call == "dlopen(libcuda.so.1)") {
      CHECK(e.code == -1);
      CHECK_THAT(e.what(), Contains("libcuda could not be loaded"));
      CHECK_THAT(reason, Contains("libcuda could not be loaded"));
    }
    CHECK_THROWS_AS(drv::api(), CudaError);  // the same error, every time
    CHECK_THROWS_AS(drv::device_count(), CudaError);
    CHECK_THROWS_AS(drv::device_info(0), CudaError);
  }
}

TEST_CASE("the driver is loaded once, safely from many threads", "[runtime]") {
  std::vector<std::string> reasons(8);
  std::vector<std::thread> threads;
  for (auto& reason : reasons) {
    threads.emplace_back([&reason] { reason = drv::unavailable_reason(); });
  }
  for (auto& t : threads) t.join();
  CHECK(std::set<std::string>(reasons.begin(), reasons.end()).size() == 1);
}

TEST_CASE("check and MOEGEMV_CU throw typed errors naming the call", "[runtime]") {
  CHECK_NOTHROW(drv::check(CUDA_SUCCESS, "nothing"));
  try {
    drv::check(CUDA_ERROR_OUT_OF_MEMORY, "cuMemAlloc(big)");
    FAIL("check did not throw");
  } catch (const CudaError& e) {
    CHECK(e.call == "cuMemAlloc(big)");
    CHECK(e.code == CUDA_ERROR_OUT_OF_MEMORY);
    if (drv::available()) CHECK(e.name == "CUDA_ERROR_OUT_OF_MEMORY");
    CHECK_FALSE(e.message.empty());
  }
  try {
    MOEGEMV_CU(CUDA_ERROR_INVALID_VALUE);
    FAIL("MOEGEMV_CU did not throw");
  } catch (const CudaError& e) {
    CHECK_THAT(e.call, Contains("CUDA_ERROR_INVALID_VALUE at ") && Contains("test_driver.cpp:"));
  }
}

TEST_CASE("argument errors come before any driver call", "[runtime]") {
  const drv::LaunchConfig config;
  CHECK_THROWS_AS(drv::launch(nullptr, config, nullptr, nullptr), ArgumentError);
  // A cluster of 0, of more than 8 or not dividing the grid: named before the driver is asked.
  int param = 0;
  for (unsigned cluster : {0u, 3u, 16u}) {
    drv::LaunchConfig clustered;
    clustered.grid[0] = 8;
    clustered.cluster = cluster;
    CHECK_THROWS_WITH(drv::launch(nullptr, clustered, nullptr, &param), Contains("config.cluster"));
  }
  CHECK_THROWS_AS(drv::capture(nullptr, [] {}), ArgumentError);
  const std::vector<std::uint8_t> not_elf(128, 0x42);
  CHECK_THROWS_AS(drv::Module(not_elf), ArgumentError);
  CHECK_THROWS_AS(drv::Module(std::vector<std::uint8_t>{}), ArgumentError);
  const drv::DeviceBuffer empty(0);
  CHECK(empty.ptr() == 0);
  CHECK(empty.bytes() == 0);
}

TEST_CASE("device info is sane", "[runtime][gpu]") {
  MOEGEMV_REQUIRE_GPU();
  REQUIRE(drv::device_count() >= 1);
  const drv::DeviceInfo info = drv::device_info(0);
  INFO(info.name << " " << info.arch());
  CHECK_FALSE(info.name.empty());
  CHECK(info.sm_count > 0);
  CHECK(info.l2_bytes > 0);
  CHECK(info.total_mem > 0);
  if (info.cc_major == 9 && info.cc_minor == 0) CHECK(info.arch() == "sm_90");
  CHECK_THROWS_AS(drv::device_info(drv::device_count()), ArgumentError);

  const drv::PrimaryContext context(0);
  const CUcontext before = drv::current_context();
  {
    const drv::ScopedContext scoped(context.get());
    CHECK(drv::current_context() == context.get());
  }
  CHECK(drv::current_context() == before);
}

TEST_CASE("device buffers round-trip and fill", "[runtime][gpu]") {
  MOEGEMV_REQUIRE_GPU();
  const drv::PrimaryContext context(0);
  context.make_current();
  const std::vector<int> host = random_ints(100003);
  drv::DeviceBuffer buffer(host.size() * sizeof(int));
  buffer.upload(host.data(), host.size() * sizeof(int));
  std::vector<int> back(host.size(), 0);
  buffer.download(back.data(), back.size() * sizeof(int));
  CHECK(back == host);
  CHECK_THROWS_AS(buffer.upload(host.data(), buffer.bytes() + 1), ArgumentError);

  drv::DeviceBuffer moved = std::move(buffer);
  CHECK(buffer.ptr() == 0);
  const drv::Stream stream;
  constexpr std::uint16_t kBf16Nan = 0x7FC1;
  moved.fill_u16(kBf16Nan, stream.get());
  stream.synchronize();
  std::vector<std::uint16_t> words(moved.bytes() / 2, 0);
  moved.download(words.data(), moved.bytes());
  CHECK(std::all_of(words.begin(), words.end(), [](std::uint16_t w) { return w == kBf16Nan; }));
}

TEST_CASE("events time stream work", "[runtime][gpu]") {
  MOEGEMV_REQUIRE_GPU();
  const drv::PrimaryContext context(0);
  context.make_current();
  const drv::Stream stream;
  drv::DeviceBuffer buffer(64 << 20);
  drv::Event start, end;
  start.record(stream.get());
  for (int i = 0; i < 10; ++i) buffer.fill_u16(static_cast<std::uint16_t>(i), stream.get());
  end.record(stream.get());
  const float ms = drv::elapsed_ms(start, end);
  CHECK(ms > 0.0f);
  CHECK(ms < 10000.0f);
}

TEST_CASE("an NVRTC cubin loads, launches with and without PDL, and replays in a graph",
          "[runtime][gpu]") {
  MOEGEMV_REQUIRE_GPU();
  const drv::PrimaryContext context(0);
  context.make_current();
  const drv::Module module(compile_add1(drv::device_info(0).arch()));
  CHECK(module.context() == context.get());
  const CUfunction add1 = module.function("add1");
  try {
    module.function("no_such_kernel");
    FAIL("a missing kernel was found");
  } catch (const CudaError& e) {
    CHECK_THAT(e.what(), Contains("no_such_kernel"));
  }

  const std::vector<int> host = random_ints(1000);
  drv::DeviceBuffer buffer(host.size() * sizeof(int));
  buffer.upload(host.data(), buffer.bytes());
  Add1Params params{buffer.ptr(), static_cast<int>(host.size())};
  drv::LaunchConfig config;
  config.grid[0] = (host.size() + 127) / 128;
  config.block[0] = 128;
  const drv::Stream stream;
  auto expect_added = [&](int added) {
    stream.synchronize();
    std::vector<int> back(host.size());
    buffer.download(back.data(), buffer.bytes());
    for (std::size_t i = 0; i < host.size(); ++i) {
      if (back[i] != host[i] + added)
        FAIL("element " << i << ": " << back[i] << " != " << host[i] + added);
    }
  };

  CHECK_FALSE(drv::stream_is_capturing(stream.get()));
  config.pdl = false;
  drv::launch(add1, config, stream.get(), &params);
  config.pdl = true;
  for (int i = 0; i < 4; ++i) drv::launch(add1, config, stream.get(), &params);
  expect_added(5);

  bool captured_while_capturing = false;
  const drv::GraphExec graph = drv::capture(stream.get(), [&] {
    captured_while_capturing = drv::stream_is_capturing(stream.get());
    config.pdl = false;
    drv::launch(add1, config, stream.get(), &params);
    config.pdl = true;
    drv::launch(add1, config, stream.get(), &params);
    drv::launch(add1, config, stream.get(), &params);
  });
  CHECK(captured_while_capturing);
  CHECK_FALSE(drv::stream_is_capturing(stream.get()));
  expect_added(5);  // capturing ran nothing
  for (int i = 0; i < 4; ++i) graph.launch(stream.get());
  expect_added(5 + 12);

  CHECK_THROWS_AS(drv::capture(stream.get(), [] { throw std::runtime_error("body failed"); }),
                  std::runtime_error);
  CHECK_FALSE(drv::stream_is_capturing(stream.get()));
}

TEST_CASE("dynamic shared memory above 48 KiB needs the opt-in", "[runtime][gpu]") {
  MOEGEMV_REQUIRE_GPU();
  const drv::PrimaryContext context(0);
  context.make_current();
  const drv::Module module(compile_add1(drv::device_info(0).arch()));
  const CUfunction f = module.function("add1_smem");
  const std::vector<int> host = random_ints(4096);
  drv::DeviceBuffer buffer(host.size() * sizeof(int));
  buffer.upload(host.data(), buffer.bytes());
  Add1Params params{buffer.ptr(), static_cast<int>(host.size())};
  drv::LaunchConfig config;
  config.grid[0] = host.size() / 256;
  config.block[0] = 256;
  config.smem_bytes = 64 * 1024;
  const drv::Stream stream;
  CHECK_THROWS_AS(drv::launch(f, config, stream.get(), &params), CudaError);
  drv::set_max_dynamic_smem(f, config.smem_bytes);
  drv::launch(f, config, stream.get(), &params);
  stream.synchronize();
  std::vector<int> back(host.size());
  buffer.download(back.data(), buffer.bytes());
  std::vector<int> expected = host;
  for (int& v : expected) v += 1;
  CHECK(back == expected);
}
