// The C ABI over the C++ API: exceptions become status codes plus a thread-local message.
#include <string>

#include "moegemv/log.hpp"
#include "moegemv/moegemv.h"
#include "moegemv/moegemv.hpp"

namespace {

thread_local std::string last_error;

moegemv::Tensor to_tensor(const moegemv_tensor& t, const char* name) {
  if (t.rank < 0 || t.rank > 4)
    throw moegemv::ArgumentError(name, "rank 0..4", std::to_string(t.rank));
  if (t.dtype < MOEGEMV_BF16 || t.dtype > MOEGEMV_E4M3)
    throw moegemv::ArgumentError(name, "a moegemv_dtype", std::to_string(t.dtype));
  moegemv::Tensor out;
  out.ptr = t.ptr;
  out.dtype = static_cast<moegemv::DType>(t.dtype);
  out.rank = t.rank;
  for (int d = 0; d < t.rank; ++d) out.shape[d] = t.shape[d];
  return out;
}

template <class F>
moegemv_status guarded(F&& body) {
  try {
    body();
    last_error.clear();
    return MOEGEMV_OK;
  } catch (const moegemv::ArgumentError& e) {
    last_error = e.what();
    return MOEGEMV_ERROR_ARGUMENT;
  } catch (const moegemv::CompileError& e) {
    last_error = e.what();
    return MOEGEMV_ERROR_COMPILE;
  } catch (const moegemv::CudaError& e) {
    last_error = e.what();
    return MOEGEMV_ERROR_CUDA;
  } catch (const moegemv::CacheError& e) {
    last_error = e.what();
    return MOEGEMV_ERROR_CACHE;
  } catch (const moegemv::JitDisabledError& e) {
    last_error = e.what();
    return MOEGEMV_ERROR_JIT_DISABLED;
  } catch (const std::exception& e) {
    last_error = e.what();
    return MOEGEMV_ERROR_INTERNAL;
  } catch (...) {  // nothing may unwind through the C ABI
    last_error = "moegemv: unknown exception";
    return MOEGEMV_ERROR_INTERNAL;
  }
}

#define MOEGEMV_T(field) to_tensor(args->field, #field)

}  // namespace

extern "C" {

moegemv_status moegemv_gate_up_hinted(const moegemv_gate_up_args* args,
                                      const moegemv_down_combine_args* down, void* stream,
                                      int pdl) {
  return guarded([&] {
    if (!args) throw moegemv::ArgumentError("args", "a non-null moegemv_gate_up_args*", "NULL");
    moegemv::GateUpArgs a{MOEGEMV_T(x),     MOEGEMV_T(ids), MOEGEMV_T(w1),  MOEGEMV_T(w1_sf),
                          MOEGEMV_T(alpha), MOEGEMV_T(act), MOEGEMV_T(wsh), MOEGEMV_T(ssh),
                          MOEGEMV_T(gssh),  MOEGEMV_T(sact), {},            {},
                          {},               {}};
    if (down) {  // the down-weight hint (GateUpArgs::down_*)
      a.down_w2 = to_tensor(down->w2, "down_w2");
      a.down_w2_sf = to_tensor(down->w2_sf, "down_w2_sf");
      a.down_wsd = to_tensor(down->wsd, "down_wsd");
      a.down_ssd = to_tensor(down->ssd, "down_ssd");
    }
    moegemv::gate_up(a, static_cast<CUstream>(stream), moegemv::LaunchOptions{pdl != 0});
  });
}

moegemv_status moegemv_gate_up(const moegemv_gate_up_args* args, void* stream, int pdl) {
  return moegemv_gate_up_hinted(args, nullptr, stream, pdl);
}

moegemv_status moegemv_down_combine(const moegemv_down_combine_args* args, void* stream, int pdl) {
  return guarded([&] {
    if (!args)
      throw moegemv::ArgumentError("args", "a non-null moegemv_down_combine_args*", "NULL");
    moegemv::DownCombineArgs a{MOEGEMV_T(act),  MOEGEMV_T(ids),    MOEGEMV_T(tw),
                               MOEGEMV_T(w2),   MOEGEMV_T(w2_sf),  MOEGEMV_T(alpha2),
                               MOEGEMV_T(sact), MOEGEMV_T(wsd),    MOEGEMV_T(ssd),
                               MOEGEMV_T(gssd), MOEGEMV_T(out)};
    moegemv::down_combine(a, static_cast<CUstream>(stream), moegemv::LaunchOptions{pdl != 0});
  });
}

moegemv_status moegemv_prepare(const char* key) {
  return guarded([&] {
    if (!key) throw moegemv::ArgumentError("key", "a key string", "NULL");
    moegemv::prepare(moegemv::Key::parse(key));
  });
}

moegemv_status moegemv_add_bundle(const char* path) {
  return guarded([&] {
    if (!path) throw moegemv::ArgumentError("path", "a bundle path", "NULL");
    moegemv::add_bundle(path);
  });
}

moegemv_status moegemv_set_log_handler(moegemv_log_fn fn, int level, void* user) {
  return guarded([&] {
    if (level < 0 || level > static_cast<int>(moegemv::LogLevel::kOff))
      throw moegemv::ArgumentError("level", "0 (trace) .. 6 (off)", std::to_string(level));
    moegemv::LogHandler handler;
    if (fn != nullptr) {
      handler = [fn, user](moegemv::LogLevel l, std::string_view text) {
        const std::string line(text);  // NUL-terminated for C
        fn(static_cast<int>(l), line.c_str(), user);
      };
    }
    moegemv::set_log_handler(std::move(handler), static_cast<moegemv::LogLevel>(level));
  });
}

const char* moegemv_last_error(void) { return last_error.c_str(); }
const char* moegemv_version(void) { return moegemv::version(); }

}  // extern "C"
