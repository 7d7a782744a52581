/* moegemv C ABI: the two decode-MoE operations for FFI users (Python ctypes, Rust, engines in other
 * languages). Every call returns a status; on failure moegemv_last_error() returns the message
 * (thread-local, valid until the next call on the same thread). See moegemv.hpp for semantics. */
#ifndef MOEGEMV_H_
#define MOEGEMV_H_

#include <stdint.h>

#include "moegemv/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  MOEGEMV_OK = 0,
  MOEGEMV_ERROR_ARGUMENT = 1,     /* a bad argument; the message names it */
  MOEGEMV_ERROR_COMPILE = 2,      /* NVRTC rejected the generated source */
  MOEGEMV_ERROR_CUDA = 3,         /* a driver call failed, or there is no driver */
  MOEGEMV_ERROR_CACHE = 4,        /* disk cache or bundle unreadable */
  MOEGEMV_ERROR_JIT_DISABLED = 5, /* a compile was needed but not allowed or possible (strict
                                     mode, graph capture, NVRTC not loadable) */
  MOEGEMV_ERROR_INTERNAL = 6
} moegemv_status;

typedef enum {
  MOEGEMV_BF16 = 0,
  MOEGEMV_F32 = 1,
  MOEGEMV_I32 = 2,
  MOEGEMV_U8 = 3,
  MOEGEMV_E4M3 = 4
} moegemv_dtype;

typedef struct {
  uint64_t ptr;      /* device pointer (CUdeviceptr) */
  int32_t dtype;     /* moegemv_dtype */
  int32_t rank;      /* 0..4 */
  int64_t shape[4];  /* row-major */
} moegemv_tensor;

typedef struct {
  moegemv_tensor x, ids, w1, w1_sf, alpha, act, wsh, ssh, gssh, sact;
} moegemv_gate_up_args;

typedef struct {
  moegemv_tensor act, ids, tw, w2, w2_sf, alpha2, sact, wsd, ssd, gssd, out;
} moegemv_down_combine_args;

/* stream: a CUstream of the current context (NULL = legacy default stream); pdl: nonzero for
 * programmatic dependent launch. With pdl, down_combine reads ids and tw (and gate_up the shared
 * expert's weights) BEFORE waiting on the previous kernel in the stream: ids/tw must have been
 * written before that kernel started (true when down_combine follows gate_up, which waits on the
 * router). During CUDA-graph capture a kernel must already be loaded (moegemv_prepare or one call
 * before capturing), else MOEGEMV_ERROR_JIT_DISABLED. */
MOEGEMV_API moegemv_status moegemv_gate_up(const moegemv_gate_up_args* args, void* stream, int pdl);
MOEGEMV_API moegemv_status moegemv_down_combine(const moegemv_down_combine_args* args, void* stream,
                                                int pdl);
/* moegemv_gate_up with the same layer's down weights as a hint: down's w2, w2_sf, wsd, ssd (its
 * other fields are not read; down NULL: no hint). Where one token's down weights are at most 8
 * MiB and M = 1, gate_up's CTAs ask L2 for them so that the down_combine after it reads them from
 * there (v62); results never depend on it. The tensors are validated as down_combine's. */
MOEGEMV_API moegemv_status moegemv_gate_up_hinted(const moegemv_gate_up_args* args,
                                                  const moegemv_down_combine_args* down,
                                                  void* stream, int pdl);

/* key: "gate_up:H:I:SI:K" or "down_combine:H:I:SI:K". Compiles and loads in the current context. */
/* Log lines: by default to stderr at MOEGEMV_LOG_LEVEL. With fn, each line at or above `level`
 * (0 trace, 1 debug, 2 info, 3 warn, 4 error, 5 critical, 6 off) goes to fn(level, text, user)
 * instead, from the thread that logs, one call at a time; fn must not call moegemv. fn NULL:
 * stderr again, at `level`. Returns after any call of the previous fn in flight (its `user` may
 * then be freed). */
typedef void (*moegemv_log_fn)(int level, const char* message, void* user);
MOEGEMV_API moegemv_status moegemv_set_log_handler(moegemv_log_fn fn, int level, void* user);

MOEGEMV_API moegemv_status moegemv_prepare(const char* key);
MOEGEMV_API moegemv_status moegemv_add_bundle(const char* path);

MOEGEMV_API const char* moegemv_last_error(void);
MOEGEMV_API const char* moegemv_version(void);

#ifdef __cplusplus
}
#endif

#endif /* MOEGEMV_H_ */
