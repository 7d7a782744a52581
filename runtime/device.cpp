#include "runtime/device.hpp"

#include <fmt/format.h>

#include <array>
#include <utility>

#include "moegemv/errors.hpp"
#include "runtime/driver.hpp"

namespace moegemv::driver {
namespace {

// From 10.0 on, features we rely on (hardware e2m1 cvt) exist only on the arch-specific target.
constexpr int kFirstArchSpecificMajor = 10;

int attribute(CUdevice device, CUdevice_attribute which) {
  int value = 0;
  MOEGEMV_CU(api().cuDeviceGetAttribute(&value, which, device));
  return value;
}

CUdevice get_device(int ordinal) {
  const int count = device_count();
  if (ordinal < 0 || ordinal >= count) {
    throw ArgumentError("device ordinal", fmt::format("0 <= ordinal < {}", count),
                        std::to_string(ordinal));
  }
  CUdevice device = 0;
  MOEGEMV_CU(api().cuDeviceGet(&device, ordinal));
  return device;
}

}  // namespace

std::string DeviceInfo::arch() const {
  return fmt::format("sm_{}{}{}", cc_major, cc_minor,
                     cc_major >= kFirstArchSpecificMajor ? "a" : "");
}

int device_count() {
  int count = 0;
  MOEGEMV_CU(api().cuDeviceGetCount(&count));
  return count;
}

DeviceInfo device_info(int ordinal) {
  const CUdevice device = get_device(ordinal);
  DeviceInfo info;
  info.ordinal = ordinal;
  std::array<char, 256> name{};
  MOEGEMV_CU(api().cuDeviceGetName(name.data(), static_cast<int>(name.size()), device));
  info.name = name.data();
  info.cc_major = attribute(device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  info.cc_minor = attribute(device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  info.sm_count = attribute(device, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  info.l2_bytes = static_cast<std::size_t>(attribute(device, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE));
  MOEGEMV_CU(api().cuDeviceTotalMem(&info.total_mem, device));
  return info;
}

PrimaryContext::PrimaryContext(int ordinal) : ordinal_(ordinal), device_(get_device(ordinal)) {
  MOEGEMV_CU(api().cuDevicePrimaryCtxRetain(&context_, device_));
}

PrimaryContext::~PrimaryContext() { release(); }

PrimaryContext::PrimaryContext(PrimaryContext&& other) noexcept
    : ordinal_(std::exchange(other.ordinal_, -1)),
      device_(std::exchange(other.device_, 0)),
      context_(std::exchange(other.context_, nullptr)) {}

PrimaryContext& PrimaryContext::operator=(PrimaryContext&& other) noexcept {
  if (this != &other) {
    release();
    ordinal_ = std::exchange(other.ordinal_, -1);
    device_ = std::exchange(other.device_, 0);
    context_ = std::exchange(other.context_, nullptr);
  }
  return *this;
}

void PrimaryContext::release() noexcept {
  if (context_ == nullptr) return;
  // api() cannot throw here: it succeeded when this context was retained.
  log_failure(api().cuDevicePrimaryCtxRelease(device_), "cuDevicePrimaryCtxRelease");
  context_ = nullptr;
}

void PrimaryContext::make_current() const { MOEGEMV_CU(api().cuCtxSetCurrent(context_)); }

CUcontext current_context() {
  CUcontext context = nullptr;
  MOEGEMV_CU(api().cuCtxGetCurrent(&context));
  return context;
}

ScopedContext::ScopedContext(CUcontext context) : previous_(current_context()) {
  if (previous_ != context) {
    MOEGEMV_CU(api().cuCtxSetCurrent(context));
    switched_ = true;
  }
}

ScopedContext::~ScopedContext() {
  if (switched_) log_failure(api().cuCtxSetCurrent(previous_), "cuCtxSetCurrent(previous)");
}

}  // namespace moegemv::driver
