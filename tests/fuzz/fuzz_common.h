/* fuzz_common.h: shared by the libFuzzer harnesses of tests/fuzz (one target per parser; see docs/reliability.md).
 *
 * Every harness feeds one input to one parser entry point and checks what must hold for ANY input: the call returns
 * (a status, never a crash, a hang or a leak: ASan + UBSan + LeakSanitizer watch it), an error carries a reason, and
 * whatever was accepted is internally consistent (re-encoding reproduces it where the format is canonical). Parsers
 * that only take a path read the input from a private file in /dev/shm (else $TMPDIR / /tmp), one folder per process,
 * removed at exit. FUZZ_CHECK aborts (a libFuzzer crash with a reproducer) when a property fails. */
#ifndef CZK_FUZZ_COMMON_H
#define CZK_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "czk/log.h"
#include "czk/status.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define FUZZ_CHECK(cond)                                                                                              \
  do {                                                                                                                \
    if (!(cond)) {                                                                                                    \
      fprintf(stderr, "%s:%d: fuzz property failed: %s\n", __FILE__, __LINE__, #cond);                                \
      abort();                                                                                                        \
    }                                                                                                                 \
  } while (0)

static char fuzz_dir_path[256];

/* Removes the files a harness writes (plain names, one level) and the folder. */
static inline void fuzz_dir_remove(void) {
  static const char *const names[] = {"input", "input.toml", "input.conf", "request.json", "vanilla-0.bin", "c1.json"};
  char path[512];
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    snprintf(path, sizeof path, "%s/%s", fuzz_dir_path, names[i]);
    unlink(path);
  }
  rmdir(fuzz_dir_path);
}

/* The process's private folder (created once). */
static inline const char *fuzz_dir(void) {
  if (!fuzz_dir_path[0]) {
    struct stat st;
    const char *base = getenv("CZK_FUZZ_TMP"); /* scripts/fuzz.sh: one folder per run */
    if (!base || !*base) base = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) ? "/dev/shm" : getenv("TMPDIR");
    if (!base || !*base) base = "/tmp";
    snprintf(fuzz_dir_path, sizeof fuzz_dir_path, "%s/czk-fuzz-%ld", base, (long)getpid());
    if (mkdir(fuzz_dir_path, 0700) != 0 && stat(fuzz_dir_path, &st) != 0) {
      perror(fuzz_dir_path);
      abort();
    }
    atexit(fuzz_dir_remove);
  }
  return fuzz_dir_path;
}

/* Writes data to <private folder>/<name> (replacing it) and returns the path (static storage). */
static inline const char *fuzz_file(const char *name, const uint8_t *data, size_t size) {
  static char path[512];
  snprintf(path, sizeof path, "%s/%s", fuzz_dir(), name);
  FILE *f = fopen(path, "wb");
  if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
    perror(path);
    abort();
  }
  return path;
}

/* A NUL-terminated copy of the input (free()). */
static inline char *fuzz_text(const uint8_t *data, size_t size) {
  char *t = malloc(size + 1);
  if (!t) abort();
  memcpy(t, data, size);
  t[size] = 0;
  return t;
}

/* An error buffer must hold a reason after a failure (the status is printed when it does not). */
#define fuzz_has_reason(err) fuzz_has_reason_(err, st)
static inline int fuzz_has_reason_(const char *err, czk_status st) {
  if (err[0] != 0) return 1;
  fprintf(stderr, "status %d (%s) without a reason\n", (int)st, czk_status_str(st));
  return 0;
}

static inline void fuzz_quiet(void) { czk_log_set_level(CZK_LOG_OFF); }

#endif
