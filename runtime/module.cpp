#include "runtime/module.hpp"

#include <elf.h>
#include <fmt/format.h>

#include <cstring>
#include <string>

#include "moegemv/errors.hpp"
#include "runtime/driver.hpp"

namespace moegemv::driver {
namespace {

constexpr unsigned kDefaultSmemLimit = 48 * 1024;

// cuModuleLoadData takes no size: it trusts the ELF header. A truncated cubin (a torn cache file)
// would be read out of bounds, so check the header and that the section table (stored last)
// lies inside the image.
void check_cubin(std::span<const std::uint8_t> image) {
  Elf64_Ehdr header;
  if (image.size() < sizeof(header) || std::memcmp(image.data(), ELFMAG, SELFMAG) != 0 ||
      image[EI_CLASS] != ELFCLASS64) {
    throw ArgumentError("cubin image", "a 64-bit ELF cubin",
                        fmt::format("{} bytes that are not one", image.size()));
  }
  std::memcpy(&header, image.data(), sizeof(header));
  const std::uint64_t end =
      header.e_shoff + std::uint64_t{header.e_shnum} * std::uint64_t{header.e_shentsize};
  if (end > image.size()) {
    throw ArgumentError("cubin image", fmt::format("at least {} bytes (per its ELF header)", end),
                        fmt::format("{} bytes (truncated)", image.size()));
  }
}

}  // namespace

void detail::ModuleUnloader::operator()(CUmodule module) const noexcept {
  // api() cannot throw here: it succeeded when the module was loaded.
  log_failure(api().cuModuleUnload(module), "cuModuleUnload");
}

Module::Module(std::span<const std::uint8_t> image) {
  check_cubin(image);
  MOEGEMV_CU(api().cuCtxGetCurrent(&context_));
  CUmodule module = nullptr;
  MOEGEMV_CU(api().cuModuleLoadData(&module, image.data()));
  module_.reset(module);
}

CUfunction Module::function(const char* name) const {
  CUfunction f = nullptr;
  const CUresult result = api().cuModuleGetFunction(&f, module_.get(), name);
  if (result == CUDA_ERROR_NOT_FOUND) {
    throw CudaError(fmt::format("cuModuleGetFunction({})", name), result, error_name(result),
                    fmt::format("the module has no kernel named '{}'", name));
  }
  if (result != CUDA_SUCCESS) {
    check(result, fmt::format("cuModuleGetFunction({})", name).c_str());
  }
  return f;
}

void set_max_dynamic_smem(CUfunction f, unsigned smem_bytes) {
  if (smem_bytes <= kDefaultSmemLimit) return;
  const std::string call =
      fmt::format("cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES, {})", smem_bytes);
  check(api().cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                 static_cast<int>(smem_bytes)),
        call.c_str());
}

void set_preferred_carveout(CUfunction f, int percent) {
  const std::string call = fmt::format("cuFuncSetAttribute(PREFERRED_SHARED_MEMORY_CARVEOUT, {})", percent);
  check(api().cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, percent), call.c_str());
}

int max_active_ctas_per_sm(CUfunction f, int threads, int smem_bytes) {
  int ctas = 0;
  check(api().cuOccupancyMaxActiveBlocksPerMultiprocessor(&ctas, f, threads, static_cast<std::size_t>(smem_bytes)),
        "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  return ctas;
}

}  // namespace moegemv::driver
