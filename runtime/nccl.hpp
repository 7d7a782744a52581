#pragma once
// NCCL, opened at run time like libcuda (issue #6): CPU-only builds and machines without NCCL
// still work; only the multi-GPU benchmark needs it.
#include <nccl.h>

#include <string>

namespace moegemv::nccl {

struct Api {
  int version = 0;  ///< ncclGetVersion, e.g. 22703
  decltype(&::ncclGetVersion) GetVersion = nullptr;
  decltype(&::ncclGetUniqueId) GetUniqueId = nullptr;
  decltype(&::ncclCommInitRank) CommInitRank = nullptr;
  decltype(&::ncclCommDestroy) CommDestroy = nullptr;
  decltype(&::ncclAllReduce) AllReduce = nullptr;
  decltype(&::ncclGetErrorString) GetErrorString = nullptr;
};

/// Loaded once (libnccl.so.2, then the CUDA toolkit's lib64). Throws CudaError naming the library
/// when it cannot be loaded or lacks an entry point.
const Api& api();
bool available() noexcept;

/// Throws CudaError{call, result, "NCCL", ncclGetErrorString} unless result == ncclSuccess.
void check(ncclResult_t result, const char* call);

/// One rank's communicator (ncclCommDestroy in the destructor, failures logged).
class Comm {
 public:
  Comm(const ncclUniqueId& id, int ranks, int rank);
  ~Comm();
  Comm(const Comm&) = delete;
  Comm& operator=(const Comm&) = delete;
  ncclComm_t get() const { return comm_; }

 private:
  ncclComm_t comm_ = nullptr;
};

}  // namespace moegemv::nccl
