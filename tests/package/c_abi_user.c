/* An FFI user of the installed package, in C: moegemv/moegemv.h and libmoegemv.so, nothing else.
 * Needs no GPU. argv[1]: the version the package must report. Prints one line per call (read by
 * test_install.cpp) and exits 1 if any status or message is not the documented one. Its
 * MOEGEMV_CACHE_DIR is one that cannot be created, so the library's first use logs a warning: the
 * log handler set beforehand must receive it (and stderr must not; test_install.cpp checks). */
#include <moegemv/moegemv.h>
#include <stdio.h>
#include <string.h>

static int failures = 0;

/* The message must be read before the next call: it is valid until then only. */
static void expect(const char* call, moegemv_status got, moegemv_status want, const char* needle) {
  const char* message = moegemv_last_error();
  printf("%s -> %d: %s\n", call, (int)got, message != NULL ? message : "(null)");
  if (got != want) {
    fprintf(stderr, "FAILED: %s returned %d, expected %d\n", call, (int)got, (int)want);
    ++failures;
  }
  if (message == NULL || strstr(message, needle) == NULL) {
    fprintf(stderr, "FAILED: %s: moegemv_last_error() does not name '%s'\n", call, needle);
    ++failures;
  }
}

static void on_log(int level, const char* message, void* user) {
  ++*(int*)user;
  printf("log %d: %s\n", level, message);
}

int main(int argc, char** argv) {
  int lines = 0;
  expect("moegemv_set_log_handler(level 9)", moegemv_set_log_handler(on_log, 9, &lines),
         MOEGEMV_ERROR_ARGUMENT, "level");
  if (moegemv_set_log_handler(on_log, 3 /* warn */, &lines) != MOEGEMV_OK) {
    fprintf(stderr, "FAILED: moegemv_set_log_handler(warn): %s\n", moegemv_last_error());
    ++failures;
  }
  const char* version = moegemv_version();
  printf("moegemv_version() = %s\n", version != NULL ? version : "(null)");
  if (argc < 2 || version == NULL || strcmp(version, argv[1]) != 0) {
    fprintf(stderr, "FAILED: moegemv_version() is not the package's %s\n",
            argc > 1 ? argv[1] : "?");
    ++failures;
  }

  expect("moegemv_prepare(\"not a key\")", moegemv_prepare("not a key"), MOEGEMV_ERROR_ARGUMENT,
         "got not a key");
  expect("moegemv_prepare(NULL)", moegemv_prepare(NULL), MOEGEMV_ERROR_ARGUMENT, "NULL");
  expect("moegemv_prepare(K = 99)", moegemv_prepare("gate_up:2048:768:0:99"),
         MOEGEMV_ERROR_ARGUMENT, "K of key gate_up:2048:768:0:99");
  /* A valid key is loaded into the calling thread's current CUDA context. This process has none
   * (and a machine without a GPU has no driver either): a driver error, not a crash. */
  expect("moegemv_prepare(valid key)", moegemv_prepare("gate_up:2048:768:0:8"), MOEGEMV_ERROR_CUDA,
         "failed");
  expect("moegemv_add_bundle(missing)", moegemv_add_bundle("/nonexistent/moegemv.bundle"),
         MOEGEMV_ERROR_CACHE, "/nonexistent/moegemv.bundle");
  expect("moegemv_gate_up(NULL)", moegemv_gate_up(NULL, NULL, 1), MOEGEMV_ERROR_ARGUMENT, "args");
  expect("moegemv_gate_up_hinted(NULL)", moegemv_gate_up_hinted(NULL, NULL, NULL, 1),
         MOEGEMV_ERROR_ARGUMENT, "args");
  expect("moegemv_down_combine(NULL)", moegemv_down_combine(NULL, NULL, 1), MOEGEMV_ERROR_ARGUMENT,
         "args");

  /* The cache's warning came through the handler, once, on the first call that opened the cache. */
  printf("log lines: %d\n", lines);
  if (lines != 1) {
    fprintf(stderr, "FAILED: the handler got %d lines, expected the cache's one warning\n", lines);
    ++failures;
  }
  if (moegemv_set_log_handler(NULL, 3, NULL) != MOEGEMV_OK) {
    fprintf(stderr, "FAILED: moegemv_set_log_handler(NULL): %s\n", moegemv_last_error());
    ++failures;
  }

  printf("%d failure(s)\n", failures);
  return failures == 0 ? 0 : 1;
}
