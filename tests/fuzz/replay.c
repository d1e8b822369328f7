/* replay.c: test_fuzz_replay (CTest, label quick): every committed seed and regression input of tests/fuzz/corpus/
 * <target>/ through its harness, without libFuzzer, so that any build (gcc included, and build-asan under ASan +
 * UBSan) re-checks the fixed findings and the harness properties on valid inputs. The harnesses are compiled into
 * this one binary with their entry points renamed (czk_fuzz_one_<target>, czk_fuzz_init_<target>). A failed
 * property aborts (the test fails); an empty or missing corpus folder fails too. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_targets.h"

#define FUZZ_DECL(t)                                                                                                  \
  int czk_fuzz_init_##t(int *argc, char ***argv);                                                                     \
  int czk_fuzz_one_##t(const uint8_t *data, size_t size);
CZK_FUZZ_REPLAY_TARGETS(FUZZ_DECL)

typedef struct target {
  const char *name;
  int (*init)(int *, char ***);
  int (*one)(const uint8_t *, size_t);
} target;

#define FUZZ_ROW(t) {#t, czk_fuzz_init_##t, czk_fuzz_one_##t},
static const target k_targets[] = {CZK_FUZZ_REPLAY_TARGETS(FUZZ_ROW)};

static uint8_t *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  uint8_t *buf = NULL;
  size_t cap = 0, n = 0, got;
  do {
    if (n == cap) {
      cap = cap ? 2 * cap : 65536;
      uint8_t *nb = realloc(buf, cap);
      if (!nb) break;
      buf = nb;
    }
    got = fread(buf + n, 1, cap - n, f);
    n += got;
  } while (got > 0);
  fclose(f);
  *len = n;
  return buf;
}

int main(int argc, char **argv) {
  const char *src = getenv("CZK_SOURCE_DIR");
  if (!src) src = CZK_SOURCE_DIR_DEFAULT;
  int fails = 0;
  for (size_t i = 0; i < sizeof k_targets / sizeof k_targets[0]; i++) {
    const target *t = &k_targets[i];
    if (argc > 1 && strcmp(argv[1], t->name) != 0) continue;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/tests/fuzz/corpus/%s", src, t->name);
    DIR *d = opendir(dir);
    if (!d) {
      fprintf(stderr, "test_fuzz_replay: %s: cannot open\n", dir);
      fails++;
      continue;
    }
    t->init(&argc, &argv);
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
      if (e->d_name[0] == '.') continue;
      char path[2048];
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      size_t len = 0;
      uint8_t *data = slurp(path, &len);
      if (!data) {
        fprintf(stderr, "test_fuzz_replay: %s: cannot read\n", path);
        fails++;
        continue;
      }
      t->one(data, len);
      free(data);
      n++;
    }
    closedir(d);
    printf("test_fuzz_replay: %-13s %zu inputs\n", t->name, n);
    if (n == 0) fails++;
  }
  printf("test_fuzz_replay: %s\n", fails ? "FAILED" : "ok");
  return fails ? 1 : 0;
}
