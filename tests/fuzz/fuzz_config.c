/* fuzz_config: the daemon's configuration file (czk__config_load_file's parser, fed from memory by
 * czk__config_load_mem: the same stream code, no file written per input): the first input byte picks the form (even:
 * czk's flat `key = value` file, named input.conf (a first line that is a [section] makes it TOML, as for a file);
 * odd: the reference daemon's TOML, named input.toml, read by the vendored tomlc99 and mapped by config_toml.c), the
 * rest is the file. Then, as the daemon does, the computed
 * defaults and cross-key checks (czk__config_finalize) and --dump-config (czk__config_dump). Properties: a refusal
 * names its reason; an accepted file dumps to a flat file that loads back and dumps the same text. */
#include "api/config.h"
#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  fuzz_quiet();
  /* finalize looks at XDG_RUNTIME_DIR / HOME: keep it inside the private folder */
  setenv("XDG_RUNTIME_DIR", fuzz_dir(), 1);
  setenv("HOME", fuzz_dir(), 1);
  return 0;
}

/* --dump-config's text without its "# warning:" lines (a reloaded flat file has no TOML warnings) */
static char *dump(const czk__config *c, size_t *len) {
  char *text = NULL;
  FILE *f = open_memstream(&text, len);
  FUZZ_CHECK(f != NULL);
  czk__config_dump(c, f);
  FUZZ_CHECK(fclose(f) == 0);
  size_t o = 0;
  for (char *p = text; *p;) {
    char *nl = strchr(p, '\n');
    size_t n = nl ? (size_t)(nl - p) + 1 : strlen(p);
    if (strncmp(p, "# warning: ", 11) != 0) memmove(text + o, p, n), o += n;
    p += n;
  }
  text[o] = 0;
  *len = o;
  return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  const char *name = data[0] & 1 ? "input.toml" : "input.conf";
  czk__config c;
  FUZZ_CHECK(czk__config_init(&c) == CZK_OK);
  char err[1024] = "";
  czk_status st = czk__config_load_mem(&c, name, data + 1, size - 1, err, sizeof err);
  if (st != CZK_OK) {
    FUZZ_CHECK(fuzz_has_reason(err));
    czk__config_free(&c);
    return 0;
  }
  size_t n1;
  char *d1 = dump(&c, &n1);
  /* the dump is a flat file that loads back to the same settings */
  czk__config c2;
  FUZZ_CHECK(czk__config_init(&c2) == CZK_OK);
  err[0] = 0;
  st = czk__config_load_mem(&c2, "input.conf", d1, n1, err, sizeof err);
  if (st != CZK_OK) fprintf(stderr, "dump does not load back: %s\n--\n%s--\n", err, d1);
  FUZZ_CHECK(st == CZK_OK);
  size_t n2;
  char *d2 = dump(&c2, &n2);
  FUZZ_CHECK(n1 == n2 && memcmp(d1, d2, n1) == 0);
  free(d2);
  czk__config_free(&c2);
  free(d1);
  err[0] = 0;
  st = czk__config_finalize(&c, err, sizeof err);
  if (st != CZK_OK) FUZZ_CHECK(fuzz_has_reason(err));
  czk__config_free(&c);
  return 0;
}
