/* test_config.c: the daemon config table: defaults, units, files, flags, rejection with key and reason, and that
 * docs/config.md and etc/czk.conf agree with the table (they are generated from it; this catches drift). */
#include <grp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/config.h"
#include "czk/engine.h"
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
  char *argv1[] = {"--memory-budget", "4GiB", "--config", path, "--self-verify=false", "--allow_cpu_fallback"};
  CHECK(czk__config_parse_args(&c, 6, argv1, 0, err, sizeof err) == CZK_OK);
  CHECK(c.memory_budget == 4ull << 30);
  CHECK(c.synthesis_workers == 3);
  CHECK(strcmp(c.listen, "unix:/tmp/a # not a comment.sock") == 0);
  CHECK(!c.self_verify && c.allow_cpu_fallback);
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

  /* string values: no control character (a TOML "\n" would make --dump-config write another key) and no double
   * quote (the flat file has no escapes); found by fuzz_config (docs/reliability.md) */
  {
    const char *bad[] = {"a\"b", "/tmp/x\nmemory_budget = 1", "tab\there", "del\x7f"};
    for (int i = 0; i < 4; i++) {
      CHECK(czk__config_init(&c) == CZK_OK);
      err[0] = 0;
      CHECK(czk__config_set(&c, "listen", bad[i], err, sizeof err) == CZK_ERR_CONFIG && strstr(err, "listen:"));
      czk__config_free(&c);
    }
    CHECK(czk__config_init(&c) == CZK_OK);
    CHECK(czk__config_set(&c, "log_file", "/var/log/czk #1.log", err, sizeof err) == CZK_OK);
    czk__config_free(&c);
    /* and no value longer than a flat file's line can hold (a TOML value may be; its dump would not load back:
     * found by fuzz_config on the 16-core run, session 11) */
    static char longv[CZK__CONFIG_MAX_VALUE + 2];
    memset(longv, 'x', sizeof longv - 1);
    longv[sizeof longv - 1] = 0;
    CHECK(czk__config_init(&c) == CZK_OK);
    CHECK(czk__config_set(&c, "listen", longv, err, sizeof err) == CZK_ERR_CONFIG && strstr(err, "too long"));
    longv[CZK__CONFIG_MAX_VALUE] = 0; /* the longest accepted: its dump loads back */
    CHECK(czk__config_set(&c, "listen", longv, err, sizeof err) == CZK_OK);
    czk__config_free(&c);
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
  /* gpu_key_tier / gpu_lane_shape: auto (the defaults) or one word each, as the plan's masks; anything else is
   * refused by finalize, naming the key */
  {
    uint32_t t = 9, h = 9;
    CHECK(czk__config_init(&c) == CZK_OK);
    CHECK(strcmp(c.gpu_key_tier, "auto") == 0 && strcmp(c.gpu_lane_shape, "auto") == 0);
    CHECK(czk__config_plan_choice(c.gpu_key_tier, c.gpu_lane_shape, &t, &h, err, sizeof err) == CZK_OK && !t && !h);
    CHECK(czk__config_set(&c, "gpu_key_tier", "partial", err, sizeof err) == CZK_OK);
    CHECK(czk__config_set(&c, "gpu_lane_shape", "lean", err, sizeof err) == CZK_OK);
    CHECK_MSG(czk__config_finalize(&c, err, sizeof err) == CZK_OK, "partial / lean: %s", err);
    CHECK(czk__config_plan_choice(c.gpu_key_tier, c.gpu_lane_shape, &t, &h, err, sizeof err) == CZK_OK &&
          t == CZK_TIER_BIT_PARTIAL && h == 1u << CZK_LANE_LEAN);
    CHECK(czk__config_plan_choice("streamed", "full", &t, &h, err, sizeof err) == CZK_OK &&
          t == CZK_TIER_BIT_STREAMED && h == 1u << CZK_LANE_FULL);
    CHECK(czk__config_plan_choice("resident", "compact", &t, &h, err, sizeof err) == CZK_OK &&
          t == CZK_TIER_BIT_RESIDENT && h == 1u << CZK_LANE_COMPACT);
    CHECK(czk__config_plan_choice("partial", "full", &t, &h, err, sizeof err) == CZK_ERR_CONFIG &&
          strstr(err, "gpu_key_tier partial with gpu_lane_shape full")); /* can never fit */
    czk__config_free(&c);
    const char *keys[2] = {"gpu_key_tier", "gpu_lane_shape"}, *bad[3] = {"fast", "Resident", ""};
    for (int k = 0; k < 2; k++)
      for (int i = 0; i < 3; i++) {
        CHECK(czk__config_init(&c) == CZK_OK);
        if (czk__config_set(&c, keys[k], bad[i], err, sizeof err) == CZK_OK)
          CHECK_MSG(czk__config_finalize(&c, err, sizeof err) != CZK_OK && strstr(err, keys[k]), "%s=%s accepted",
                    keys[k], bad[i]);
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
  /* socket permissions and http:// addresses (issue 20 item 3) */
  {
    unsigned mode;
    long gid;
    CHECK(czk__config_init(&c) == CZK_OK);
    CHECK(czk__config_socket_perms(&c, &mode, &gid, err, sizeof err) == CZK_OK && mode == 0600 && gid == -1);
    CHECK(czk__config_set(&c, "socket_mode", "0660", err, sizeof err) == CZK_OK);
    char gnum[32];
    snprintf(gnum, sizeof gnum, "%u", (unsigned)getegid());
    CHECK(czk__config_set(&c, "socket_group", gnum, err, sizeof err) == CZK_OK);
    CHECK(czk__config_set(&c, "listen", "http://127.0.0.1:9820/", err, sizeof err) == CZK_OK);
    CHECK(czk__config_set(&c, "http", "http://127.0.0.1:9821", err, sizeof err) == CZK_OK);
    CHECK_MSG(czk__config_finalize(&c, err, sizeof err) == CZK_OK, "%s", err);
    CHECK(czk__config_socket_perms(&c, &mode, &gid, err, sizeof err) == CZK_OK && mode == 0660 &&
          gid == (long)getegid());
    CHECK(strcmp(c.listen, "127.0.0.1:9820") == 0 && strcmp(c.http, "127.0.0.1:9821") == 0);
    struct group *gr = getgrgid(getegid());
    if (gr) { /* by name */
      CHECK(czk__config_set(&c, "socket_group", gr->gr_name, err, sizeof err) == CZK_OK);
      CHECK(czk__config_socket_perms(&c, &mode, &gid, err, sizeof err) == CZK_OK && gid == (long)getegid());
    }
    CHECK(czk__config_set(&c, "log_format", "yaml", err, sizeof err) == CZK_OK);
    CHECK(czk__config_finalize(&c, err, sizeof err) == CZK_ERR_CONFIG && strstr(err, "log_format"));
    CHECK(czk__config_set(&c, "log_format", "json", err, sizeof err) == CZK_OK);
    const char *bad_modes[] = {"0999", "01777", "0400", "rw", ""};
    for (int i = 0; i < 5; i++) {
      CHECK(czk__config_set(&c, "socket_mode", bad_modes[i], err, sizeof err) == CZK_OK);
      CHECK_MSG(czk__config_finalize(&c, err, sizeof err) == CZK_ERR_CONFIG && strstr(err, "socket_mode"),
                "socket_mode=%s", bad_modes[i]);
    }
    CHECK(czk__config_set(&c, "socket_mode", "660", err, sizeof err) == CZK_OK);
    CHECK(czk__config_set(&c, "socket_group", "no-such-group-czk", err, sizeof err) == CZK_OK);
    CHECK(czk__config_finalize(&c, err, sizeof err) == CZK_ERR_CONFIG && strstr(err, "no-such-group-czk"));
    czk__config_free(&c);
  }
  /* TOML nesting is bounded before parsing (fuzz_config, reliability finding 4: 6,000 '[' overflowed tomlc99's
   * recursion): 32 levels parse, 33 and 100,000 are refused naming the line; brackets inside strings and comments do
   * not count; a NUL byte and a text over 1 MiB are refused */
  {
    const size_t deep[] = {32, 33, 100000};
    for (int k = 0; k < 3; k++) {
      size_t d = deep[k], m = 0;
      char *t = malloc(2 * d + 256);
      m += (size_t)sprintf(t + m, "[daemon]\n# [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[ a comment\n"
                                  "status_listen = \"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\"\n"
                                  "x = '''[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n[[[[[[[[[[[[[[[[[['''\ny = ");
      for (size_t i = 0; i < d; i++) t[m++] = '[';
      for (size_t i = 0; i < d; i++) t[m++] = ']';
      t[m++] = '\n';
      FILE *mf = fmemopen(t, m, "r");
      CHECK(czk__config_init(&c) == CZK_OK);
      czk_status st = czk__config_load_toml_stream(&c, "deep.toml", mf, err, sizeof err);
      if (d <= 32) CHECK_MSG(st == CZK_OK, "depth %zu: %s", d, err);
      else CHECK_MSG(st == CZK_ERR_CONFIG && strstr(err, "deep.toml:6:") && strstr(err, "nested more than 32"),
                     "depth %zu: %s", d, err);
      fclose(mf);
      czk__config_free(&c);
      free(t);
    }
    /* a warning that quotes a value holding a newline stays one comment line, and the dump loads back
     * (fuzz_config, reliability finding 5) */
    {
      char w[] = "[logging]\nvel = \"io\"\nformat = \"_ti\\nssten\"\n";
      FILE *wf = fmemopen(w, sizeof w - 1, "r");
      CHECK(czk__config_init(&c) == CZK_OK);
      CHECK_MSG(czk__config_load_toml_stream(&c, "w.toml", wf, err, sizeof err) == CZK_OK, "%s", err);
      fclose(wf);
      char *d = NULL;
      size_t dn = 0;
      FILE *df = open_memstream(&d, &dn);
      czk__config_dump(&c, df);
      fclose(df);
      CHECK(strstr(d, "\"_ti?ssten\"") != NULL);
      czk__config c3;
      CHECK(czk__config_init(&c3) == CZK_OK);
      char path3[] = "/tmp/czk-test-dump-XXXXXX";
      int fd3 = mkstemp(path3);
      CHECK(fd3 >= 0 && write(fd3, d, dn) == (ssize_t)dn);
      close(fd3);
      char *a3[] = {"--config", path3};
      CHECK_MSG(czk__config_parse_args(&c3, 2, a3, 0, err, sizeof err) == CZK_OK, "the dump does not load back: %s", err);
      unlink(path3);
      czk__config_free(&c3);
      czk__config_free(&c);
      free(d);
    }
    char nul[] = "[daemon]\nlisten = \"unix:/tmp/x.sock\"\0garbage";
    FILE *mf = fmemopen(nul, sizeof nul - 1, "r");
    CHECK(czk__config_init(&c) == CZK_OK);
    CHECK(czk__config_load_toml_stream(&c, "nul.toml", mf, err, sizeof err) == CZK_ERR_CONFIG && strstr(err, "NUL"));
    fclose(mf);
    czk__config_free(&c);
    size_t bn = ((size_t)1 << 20) + 10;
    char *big = malloc(bn);
    memset(big, '\n', bn);
    mf = fmemopen(big, bn, "r");
    CHECK(czk__config_init(&c) == CZK_OK);
    CHECK(czk__config_load_toml_stream(&c, "big.toml", mf, err, sizeof err) == CZK_ERR_CONFIG &&
          strstr(err, "larger than 1 MiB"));
    fclose(mf);
    czk__config_free(&c);
    free(big);
  }
  /* the reference daemon's (cuzk) TOML file as an operator has it: each key mapped or warned about once */
  {
    char tp[128];
    snprintf(tp, sizeof tp, "/tmp/czk-test-cuzk-%d.toml", (int)getpid());
    f = fopen(tp, "w");
    fprintf(f, "# cuzk.toml\n"
               "[daemon]\nlisten = \"unix:///run/curio/test-cuzk.sock\"\nstatus_listen = \"127.0.0.1:9821\"\n"
               "[memory]\ntotal_budget = \"200GiB\"\nsafety_margin = \"5GiB\"\neviction_min_idle = \"5m\"\n"
               "pinned_budget = \"50GiB\"\n"
               "[gpus]\ndevices = [0, 2]\ngpu_threads = 32\ngpu_workers_per_device = 3\n"
               "[scheduler]\nmax_batch_size = 1\n"
               "[synthesis]\nthreads = 12\n"
               "[pipeline]\nenabled = true\nsynthesis_lookahead = 1\nsynthesis_concurrency = 4\nslot_size = 3\n"
               "[srs]\nparam_cache = \"/data/zk/params-test\"\n"
               "[logging]\nlevel = \"debug\"\nformat = \"pretty\"\n"
               "[czk]\nself_verify = false\nresult_ttl = \"2m\"\nsocket_mode = 0o660\n"
               "[telemetry]\nendpoint = \"x\"\n");
    fclose(f);
    CHECK(czk__config_is_toml(tp));
    CHECK(czk__config_init(&c) == CZK_OK);
    char *targs[] = {"--config", tp, "--synthesis-workers", "5"};
    CHECK_MSG(czk__config_parse_args(&c, 4, targs, 0, err, sizeof err) == CZK_OK, "%s", err);
    CHECK_MSG(czk__config_finalize(&c, err, sizeof err) == CZK_OK, "%s", err);
    CHECK(strcmp(c.listen, "unix:///run/curio/test-cuzk.sock") == 0);
    CHECK(strcmp(c.http, "127.0.0.1:9821") == 0);
    CHECK(c.memory_budget == 200ull << 30);
    CHECK(strcmp(c.gpus, "0,2") == 0 && c.gpu_workers_per_device == 3);
    CHECK(c.threads == 12);
    CHECK(c.synthesis_workers == 5); /* the flag overrides the file's synthesis_concurrency */
    CHECK(strcmp(c.param_dir, "/data/zk/params-test") == 0);
    CHECK(strcmp(c.log_level, "debug") == 0 && strcmp(c.log_format, "text") == 0); /* "pretty": text, warned */
    CHECK(!c.self_verify && c.result_ttl == 120000 && strcmp(c.socket_mode, "0660") == 0);
    /* one warning per ignored key, naming it */
    const char *ignored[] = {"[memory] safety_margin", "[memory] eviction_min_idle", "[memory] pinned_budget",
                             "[gpus] gpu_threads", "[scheduler] max_batch_size", "[pipeline] synthesis_lookahead",
                             "[pipeline] slot_size", "[logging] format", "[telemetry]"};
    CHECK_MSG(c.nwarnings == sizeof ignored / sizeof ignored[0], "%zu warnings", c.nwarnings);
    for (size_t i = 0; i < sizeof ignored / sizeof ignored[0]; i++) {
      size_t hits = 0;
      for (size_t j = 0; j < c.nwarnings; j++)
        if (strstr(c.warnings[j], ignored[i]) && strstr(c.warnings[j], "ignored")) hits++;
      CHECK_MSG(hits == 1, "%s: %zu warnings", ignored[i], hits);
    }
    /* --dump-config shows the mapped values and the warnings */
    char dp[128];
    snprintf(dp, sizeof dp, "/tmp/czk-test-dump-%d", (int)getpid());
    FILE *df = fopen(dp, "w");
    czk__config_dump(&c, df);
    fclose(df);
    char *dump = slurp(dp);
    unlink(dp);
    CHECK(dump && strstr(dump, "memory_budget = 200GiB") && strstr(dump, "gpus = \"0,2\"") &&
          strstr(dump, "# warning: [gpus] gpu_threads: ignored"));
    free(dump);
    czk__config_free(&c);

    /* auto budget with a safety margin: physical memory minus the margin, as in cuzk; silent file -> cuzk's paths */
    f = fopen(tp, "w");
    fprintf(f, "[memory]\ntotal_budget = \"auto\"\nsafety_margin = \"1GiB\"\n[logging]\nformat = \"json\"\n");
    fclose(f);
    CHECK(czk__config_init(&c) == CZK_OK);
    CHECK_MSG(czk__config_load_file(&c, tp, err, sizeof err) == CZK_OK, "%s", err);
    CHECK(c.memory_budget == czk__config_physical_memory() - (1ull << 30) && c.nwarnings == 0);
    CHECK(strcmp(c.log_format, "json") == 0);
    CHECK(strcmp(c.listen, "unix:///run/curio/cuzk.sock") == 0 && strcmp(c.param_dir, "/data/zk/params") == 0);
    czk__config_free(&c);
    /* a bad value names the section and key; broken TOML is refused */
    f = fopen(tp, "w");
    fprintf(f, "[pipeline]\nsynthesis_concurrency = \"many\"\n");
    fclose(f);
    CHECK(czk__config_init(&c) == CZK_OK);
    CHECK(czk__config_load_file(&c, tp, err, sizeof err) == CZK_ERR_CONFIG &&
          strstr(err, "[pipeline] synthesis_concurrency"));
    f = fopen(tp, "w");
    fprintf(f, "[gpus]\ndevices = [\"zero\"]\n");
    fclose(f);
    CHECK(czk__config_load_file(&c, tp, err, sizeof err) == CZK_ERR_CONFIG && strstr(err, "devices"));
    f = fopen(tp, "w");
    fprintf(f, "[daemon\nlisten = 1\n");
    fclose(f);
    CHECK(czk__config_load_file(&c, tp, err, sizeof err) == CZK_ERR_CONFIG && strstr(err, "not valid TOML"));
    czk__config_free(&c);
    unlink(tp);
    /* czk's own flat file is not mistaken for TOML */
    f = fopen(path, "w");
    fprintf(f, "# flat\nmemory_budget = 8GiB\n");
    fclose(f);
    CHECK(!czk__config_is_toml(path));
    unlink(path);
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
