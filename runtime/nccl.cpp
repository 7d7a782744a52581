#include "runtime/nccl.hpp"

#include <dlfcn.h>

#include <mutex>

#include "jit/log.hpp"
#include "moegemv/errors.hpp"

namespace moegemv::nccl {

namespace {

struct Loaded {
  Api api;
  std::string error;
};

Loaded load() {
  Loaded out;
  void* lib = nullptr;
  std::string tried;
  for (const char* name : {"libnccl.so.2", "/usr/local/cuda/lib64/libnccl.so.2"}) {
    lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (lib) break;
    tried += std::string(tried.empty() ? "" : "; ") + dlerror();
  }
  if (!lib) {
    out.error = "libnccl.so.2 could not be loaded (" + tried + ")";
    return out;
  }
  auto sym = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
    if (!fn && out.error.empty()) out.error = std::string("libnccl.so.2 lacks ") + name;
  };
  Api& a = out.api;
  sym(a.GetVersion, "ncclGetVersion");
  sym(a.GetUniqueId, "ncclGetUniqueId");
  sym(a.CommInitRank, "ncclCommInitRank");
  sym(a.CommDestroy, "ncclCommDestroy");
  sym(a.AllReduce, "ncclAllReduce");
  sym(a.GetErrorString, "ncclGetErrorString");
  if (out.error.empty() && a.GetVersion(&a.version) != ncclSuccess)
    out.error = "ncclGetVersion failed";
  return out;  // the library stays loaded for the process
}

const Loaded& loaded() {
  static const Loaded l = load();
  return l;
}

}  // namespace

const Api& api() {
  const Loaded& l = loaded();
  if (!l.error.empty()) throw CudaError("dlopen(libnccl.so.2)", -1, "NCCL_NOT_LOADED", l.error);
  return l.api;
}

bool available() noexcept { return loaded().error.empty(); }

void check(ncclResult_t result, const char* call) {
  if (result == ncclSuccess) return;
  throw CudaError(call, static_cast<int>(result), "NCCL", api().GetErrorString(result));
}

Comm::Comm(const ncclUniqueId& id, int ranks, int rank) {
  check(api().CommInitRank(&comm_, ranks, id, rank), "ncclCommInitRank");
}

Comm::~Comm() {
  if (comm_ && api().CommDestroy(comm_) != ncclSuccess) logger()->warn("ncclCommDestroy failed");
}

}  // namespace moegemv::nccl
