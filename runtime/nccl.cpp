#include "runtime/nccl.hpp"

#include <mutex>

#include "jit/dynlib.hpp"
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
  std::string tried;
  void* lib = jit::open_first({"libnccl.so.2", "/usr/local/cuda/lib64/libnccl.so.2"}, tried);
  if (lib == nullptr) {
    out.error = "libnccl.so.2 could not be loaded (" + tried + ")";
    return out;
  }
  jit::Symbols sym(lib);
  Api& a = out.api;
  sym.bind(a.GetVersion, "ncclGetVersion");
  sym.bind(a.GetUniqueId, "ncclGetUniqueId");
  sym.bind(a.CommInitRank, "ncclCommInitRank");
  sym.bind(a.CommDestroy, "ncclCommDestroy");
  sym.bind(a.AllReduce, "ncclAllReduce");
  sym.bind(a.GetErrorString, "ncclGetErrorString");
  if (!sym.missing().empty())
    out.error = "libnccl.so.2 lacks " + sym.missing();
  else if (a.GetVersion(&a.version) != ncclSuccess)
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
