/* test_config.c: the daemon config table: defaults, units, files, flags, rejection with key and reason, and that
 * docs/config.md and etc/czk.conf agree with the table (they are generated from it; this catches drift). */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/config.h"
#include "core/units.h"
#include "czk_test.h"

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  if (fread(s, 1, (size_t)n, f) != (size_t)n) n = 0;
  s[n] = 0;
  fclose(f);
  return s;
}

int main(void) {
  uint64_t v;
  CHECK(czk__parse_size("64GiB", &v) && v == 64ull << 30);
  CHECK(czk__parse_size("512MiB", &v) && v == 512ull << 20);
  CHECK(czk__parse_size("1.5GiB", &v) && v == 3ull << 29);
  CHECK(czk__parse_size("1000", &v) && v == 1000);
  CHECK(czk__parse_size("2GB", &v) && v == 2000000000ull);
  CHECK(!czk__parse_size("12 parsecs", &v));
  CHECK(!czk__parse_size("-1GiB", &v));
  CHECK(!czk__parse_size("99999999999TiB", &v));
  CHECK(!czk__parse_size("", &v));
  CHECK(czk__parse_duration_ms("30s", &v) && v == 30000);
  CHECK(czk__parse_duration_ms("250ms", &v) && v == 250);
  CHECK(czk__parse_duration_ms("2m", &v) && v == 120000);
  CHECK(czk__parse_duration_ms("7", &v) && v == 7000);
  CHECK(!czk__parse_duration_ms("soon", &v));

  czk__config c;
  char err[512];
  CHECK(czk__config_init(&c) == CZK_OK);
  CHECK(c.gpu_workers_per_device == 2 && c.self_verify && c.max_message_size == 128ull << 20);
  CHECK(c.result_ttl == 600000 && strcmp(c.gpus, "all") == 0);

  /* flags, both spellings, override a file */
  char path[128];
  snprintf(path, sizeof path, "/tmp/czk-test-config-%d.conf", (int)getpid());
  FILE *f = fopen(path, "w");
  fprintf(f, "# comment\nmemory_budget = 8GiB\nlisten = \"unix:/tmp/a # not a comment.sock\"\n\nsynthesis_workers=3\n");
  fclose(f);
  char *argv1[] = {"--memory-budget", "4GiB", "--config", path, "--self-verify=false", "--cpu_fallback"};
  CHECK(czk__config_parse_args(&c, 6, argv1, 0, err, sizeof err) == CZK_OK);
  CHECK(c.memory_budget == 4ull << 30);
  CHECK(c.synthesis_workers == 3);
  CHECK(strcmp(c.listen, "unix:/tmp/a # not a comment.sock") == 0);
  CHECK(!c.self_verify && c.cpu_fallback);
  CHECK(czk__config_finalize(&c, err, sizeof err) == CZK_OK);

  /* rejections name the key and the reason */
  char *bad1[] = {"--memory-budget", "lots"};
  CHECK(czk__config_parse_args(&c, 2, bad1, 0, err, sizeof err) == CZK_ERR_CONFIG && strstr(err, "memory_budget"));
  char *bad2[] = {"--no-such-key", "1"};
  CHECK(czk__config_parse_args(&c, 2, bad2, 0, err, sizeof err) == CZK_ERR_CONFIG && strstr(err, "unknown"));
  char *bad3[] = {"--synthesis-workers"};
  CHECK(czk__config_parse_args(&c, 1, bad3, 0, err, sizeof err) == CZK_ERR_CONFIG && strstr(err, "missing"));
  char *bad4[] = {"stray"};
  CHECK(czk__config_parse_args(&c, 1, bad4, 0, err, sizeof err) == CZK_ERR_CONFIG);
  f = fopen(path, "w");
  fprintf(f, "self_verify = maybe\n");
  fclose(f);
  CHECK(czk__config_load_file(&c, path, err, sizeof err) == CZK_ERR_CONFIG && strstr(err, ":1: self_verify"));
  f = fopen(path, "w");
  fprintf(f, "just words\n");
  fclose(f);
  CHECK(czk__config_load_file(&c, path, err, sizeof err) == CZK_ERR_CONFIG && strstr(err, "key = value"));
  unlink(path);
  CHECK(czk__config_load_file(&c, path, err, sizeof err) == CZK_ERR_IO);
  czk__config_free(&c);

  CHECK(czk__config_init(&c) == CZK_OK);
  char *bad5[] = {"--synthesis-workers", "0"};
  CHECK(czk__config_parse_args(&c, 2, bad5, 0, err, sizeof err) == CZK_OK);
  CHECK(czk__config_finalize(&c, err, sizeof err) == CZK_ERR_CONFIG && strstr(err, "synthesis_workers"));
  czk__config_free(&c);
  CHECK(czk__config_init(&c) == CZK_OK);
  char *bad6[] = {"--gpus", "0,x"};
  CHECK(czk__config_parse_args(&c, 2, bad6, 0, err, sizeof err) == CZK_OK);
  CHECK(czk__config_finalize(&c, err, sizeof err) == CZK_ERR_CONFIG && strstr(err, "gpus"));
  czk__config_free(&c);

  /* computed defaults */
  CHECK(czk__config_init(&c) == CZK_OK);
  CHECK(czk__config_finalize(&c, err, sizeof err) == CZK_OK);
  CHECK(strncmp(c.listen, "unix:", 5) == 0 && c.memory_budget >= (64ull << 20) && c.keys_dir[0]);
  czk__config_free(&c);
  /* param_dir: the config key, else $FIL_PROOFS_PARAMETER_CACHE, else the Filecoin default */
  {
    const char *saved = getenv("FIL_PROOFS_PARAMETER_CACHE");
    char keep[1024] = "";
    if (saved) snprintf(keep, sizeof keep, "%s", saved);
    unsetenv("FIL_PROOFS_PARAMETER_CACHE");
    CHECK(czk__config_init(&c) == CZK_OK);
    CHECK(czk__config_finalize(&c, err, sizeof err) == CZK_OK);
    CHECK(strcmp(c.param_dir, "/var/tmp/filecoin-proof-parameters") == 0);
    czk__config_free(&c);
    setenv("FIL_PROOFS_PARAMETER_CACHE", "/srv/params", 1);
    CHECK(czk__config_init(&c) == CZK_OK);
    CHECK(czk__config_finalize(&c, err, sizeof err) == CZK_OK);
    CHECK(strcmp(c.param_dir, "/srv/params") == 0);
    czk__config_free(&c);
    CHECK(czk__config_init(&c) == CZK_OK);
    CHECK(czk__config_set(&c, "param_dir", "/data/zk/params", err, sizeof err) == CZK_OK);
    CHECK(czk__config_finalize(&c, err, sizeof err) == CZK_OK);
    CHECK(strcmp(c.param_dir, "/data/zk/params") == 0);
    czk__config_free(&c);
    if (saved) setenv("FIL_PROOFS_PARAMETER_CACHE", keep, 1);
    else unsetenv("FIL_PROOFS_PARAMETER_CACHE");
  }

  /* gpu_key_memory: auto (the default), a size, or 0; anything else is refused by finalize */
  {
    const char *ok[] = {"auto", "96GiB", "0"}, *bad[] = {"lots", "-1", ""};
    for (int i = 0; i < 3; i++) {
      CHECK(czk__config_init(&c) == CZK_OK);
      CHECK(strcmp(c.gpu_key_memory, "auto") == 0);
      CHECK(czk__config_set(&c, "gpu_key_memory", ok[i], err, sizeof err) == CZK_OK);
      CHECK_MSG(czk__config_finalize(&c, err, sizeof err) == CZK_OK, "gpu_key_memory=%s: %s", ok[i], err);
      czk__config_free(&c);
      CHECK(czk__config_init(&c) == CZK_OK);
      if (czk__config_set(&c, "gpu_key_memory", bad[i], err, sizeof err) == CZK_OK)
        CHECK_MSG(czk__config_finalize(&c, err, sizeof err) != CZK_OK && strstr(err, "gpu_key_memory"),
                  "gpu_key_memory=%s accepted", bad[i]);
      czk__config_free(&c);
    }
  }
  /* the private socket directory (/tmp/czk-$UID without XDG_RUNTIME_DIR, issue 22 defect 6): created 0700, or
   * accepted only when it is a real directory of ours that group and others cannot write */
  {
    char base[] = "/tmp/czk-test-privdir-XXXXXX", d[160], l[160];
    CHECK(mkdtemp(base) != NULL);
    snprintf(d, sizeof d, "%s/sock", base);
    CHECK_MSG(czk__config_private_dir(d, err, sizeof err) == CZK_OK, "%s", err); /* created */
    struct stat st;
    CHECK(lstat(d, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 077) == 0);
    CHECK_MSG(czk__config_private_dir(d, err, sizeof err) == CZK_OK, "%s", err); /* exists, ours, 0700 */
    CHECK(chmod(d, 0777) == 0);
    CHECK(czk__config_private_dir(d, err, sizeof err) == CZK_ERR_CONFIG && strstr(err, d) && strstr(err, "writable"));
    CHECK(chmod(d, 0720) == 0);
    CHECK(czk__config_private_dir(d, err, sizeof err) == CZK_ERR_CONFIG && strstr(err, "writable"));
    CHECK(chmod(d, 0755) == 0); /* readable is fine: the socket itself is 0600 */
    CHECK_MSG(czk__config_private_dir(d, err, sizeof err) == CZK_OK, "%s", err);
    if (geteuid() == 0) { /* another owner (only root can make one) */
      CHECK(chown(d, 4242, 4242) == 0);
      CHECK(czk__config_private_dir(d, err, sizeof err) == CZK_ERR_CONFIG && strstr(err, "owned by uid 4242"));
      CHECK(chown(d, 0, 0) == 0);
    }
    /* a symbolic link to a good directory is not followed */
    snprintf(l, sizeof l, "%s/link", base);
    CHECK(symlink(d, l) == 0);
    CHECK(czk__config_private_dir(l, err, sizeof err) == CZK_ERR_CONFIG && strstr(err, "symbolic link"));
    unlink(l);
    /* a file in its place */
    FILE *pf = fopen(l, "w");
    CHECK(pf != NULL);
    if (pf) fclose(pf);
    CHECK(czk__config_private_dir(l, err, sizeof err) == CZK_ERR_CONFIG && strstr(err, "not a directory"));
    unlink(l);
    rmdir(d);
    rmdir(base);
  }
  /* docs/config.md holds the generated table; etc/czk.conf sets every key */
  const char *src = getenv("CZK_SOURCE_DIR");
  if (src) {
    char p[1024];
    snprintf(p, sizeof p, "%s/docs/config.md", src);
    char *docs = slurp(p);
    CHECK_MSG(docs != NULL, "missing %s", p);
    char tmp[128];
    snprintf(tmp, sizeof tmp, "/tmp/czk-test-md-%d", (int)getpid());
    f = fopen(tmp, "w");
    czk__config_print_markdown(f);
    fclose(f);
    char *table = slurp(tmp);
    unlink(tmp);
    CHECK_MSG(docs && table && strstr(docs, table), "docs/config.md is out of date: regenerate with "
                                                    "`czk daemon --print-config-docs`");
    free(docs);
    free(table);
    snprintf(p, sizeof p, "%s/etc/czk.conf", src);
    CHECK(czk__config_init(&c) == CZK_OK);
    CHECK_MSG(czk__config_load_file(&c, p, err, sizeof err) == CZK_OK, "%s", err);
    czk__config_free(&c);
  }
  return czk_test_done("test_config");
}
