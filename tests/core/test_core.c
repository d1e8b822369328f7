/* test_core.c: status strings from the X-macro list, logger levels and sinks, size/duration parsing (core/units.h),
 * the read-only file mapping and the whole-file reader (core/mapfile.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/mapfile.h"
#include "core/units.h"
#include "czk/log.h"
#include "czk/status.h"
#include "czk_test.h"

static int g_lines;
static char g_last[256];
static void capture(void *user, czk_log_level level, const char *component, const char *msg) {
  (void)user;
  g_lines++;
  snprintf(g_last, sizeof g_last, "%s|%s|%s", czk_log_level_str(level), component, msg);
}

static void test_units(void) {
  uint64_t v = 7;
  CHECK(czk__parse_size("2KiB", &v) && v == 2048);
  CHECK(czk__parse_size(" 32 GiB ", &v) && v == 32ull << 30);
  CHECK(czk__parse_size("18446744073709551615", &v) && v == UINT64_MAX); /* exact, not through a double */
  CHECK(czk__parse_size("9007199254740993B", &v) && v == 9007199254740993ull);
  CHECK(czk__parse_size("0.5KiB", &v) && v == 512);
  CHECK(czk__parse_size("1.5GiB", &v) && v == 3ull << 29);
  CHECK(czk__parse_size("16777215TiB", &v) && v == 16777215ull << 40);
  v = 7;
  CHECK(!czk__parse_size("16777216TiB", &v) && v == 7); /* 2^64: overflow, *out untouched */
  CHECK(!czk__parse_size("18446744073709551616", &v));
  CHECK(!czk__parse_size("1.5", &v));  /* a fraction of a byte */
  CHECK(!czk__parse_size("1.KiB", &v)); /* no digits after the point */
  CHECK(!czk__parse_size("-2048", &v));
  CHECK(!czk__parse_size("+2048", &v));
  CHECK(!czk__parse_size("2KiBx", &v));
  CHECK(!czk__parse_size("2 Ki B", &v));
  CHECK(!czk__parse_size("KiB", &v));
  CHECK(!czk__parse_size(NULL, &v) && v == 7);
  CHECK(czk__parse_duration_ms("1.5s", &v) && v == 1500);
  CHECK(czk__parse_duration_ms("0.5ms", &v) && v == 0);
  CHECK(czk__parse_duration_ms("1h", &v) && v == 3600000);
  CHECK(!czk__parse_duration_ms("1d", &v));
  CHECK(!czk__parse_duration_ms("18446744073709551615s", &v));
}

static void test_mapfile(void) {
  char path[] = "/tmp/czk-test-map-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  if (fd < 0) return;
  czk__file_map m = {.data = (const uint8_t *)"x", .len = 1};
  CHECK(czk__file_map_open(&m, path) == CZK_OK && m.data == NULL && m.len == 0); /* empty file */
  CHECK(write(fd, "hello map", 9) == 9);
  close(fd);
  CHECK(czk__file_map_open(&m, path) == CZK_OK && m.len == 9 && m.data && memcmp(m.data, "hello map", 9) == 0);
  czk__file_map_close(&m);
  CHECK(m.data == NULL && m.len == 0);
  czk__file_map_close(&m); /* idempotent */
  unlink(path);
  CHECK(czk__file_map_open(&m, path) == CZK_ERR_NOT_FOUND && m.data == NULL);
  CHECK(czk__file_map_open(&m, "/tmp") == CZK_ERR_IO); /* not a regular file */
  CHECK(czk__file_map_open(&m, NULL) == CZK_ERR_INVALID_ARG);
}

static void test_read_file(czk_test_rng *g) {
  char path[] = "/tmp/czk-test-read-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  if (fd < 0) return;
  uint8_t *d = (uint8_t *)"x";
  size_t n = 7;
  CHECK(czk__read_file(path, 0, &d, &n) == CZK_OK && d && n == 0 && d[0] == 0); /* empty file, NUL-terminated */
  free(d);
  /* random bytes larger than the reader's first 4 KiB, read back exactly and NUL-terminated */
  static uint8_t src[10000];
  czk_test_rng_bytes(g, src, sizeof src);
  CHECK(write(fd, src, sizeof src) == (ssize_t)sizeof src);
  close(fd);
  CHECK(czk__read_file(path, sizeof src, &d, &n) == CZK_OK && n == sizeof src && memcmp(d, src, n) == 0 && d[n] == 0);
  free(d);
  d = (uint8_t *)"x";
  CHECK(czk__read_file(path, sizeof src - 1, &d, &n) == CZK_ERR_LIMIT && d == NULL && n == 0); /* one byte over */
  /* a character device read to its end: /dev/null is empty, /dev/zero never ends and hits the limit */
  CHECK(czk__read_file("/dev/null", 16, &d, &n) == CZK_OK && n == 0);
  free(d);
  CHECK(czk__read_file("/dev/zero", 5000, &d, &n) == CZK_ERR_LIMIT && d == NULL);
  CHECK(czk__read_file("/dev/zero", 0, &d, &n) == CZK_ERR_LIMIT);
  unlink(path);
  CHECK(czk__read_file(path, 100, &d, &n) == CZK_ERR_NOT_FOUND && d == NULL && n == 0);
  CHECK(czk__read_file("/tmp", 100, &d, &n) == CZK_ERR_IO);
  CHECK(czk__read_file(NULL, 100, &d, &n) == CZK_ERR_INVALID_ARG);
}

int main(void) {
  test_units();
  test_mapfile();
  czk_test_rng g;
  czk_test_rng_seed(&g, 0x5eadf11e);
  test_read_file(&g);
  CHECK(strcmp(czk_status_str(CZK_OK), "ok") == 0);
  CHECK(strcmp(czk_status_name(CZK_ERR_NOT_ON_CURVE), "CZK_ERR_NOT_ON_CURVE") == 0);
  CHECK(strcmp(czk_status_str((czk_status)9999), "unknown status") == 0);
  /* every listed status has a distinct, non-empty text */
  const czk_status all[] = {
#define X(name, value, text) name,
      CZK_STATUS_LIST(X)
#undef X
  };
  for (size_t i = 0; i < CZK_ARRAY_LEN(all); i++) {
    CHECK(czk_status_str(all[i])[0] != 0);
    for (size_t j = i + 1; j < CZK_ARRAY_LEN(all); j++) CHECK(strcmp(czk_status_str(all[i]), czk_status_str(all[j])) != 0);
  }

  czk_log_set_sink(capture, NULL);
  czk_log_set_level(CZK_LOG_WARN);
  CZK_INFO("test", "hidden %d", 1);
  CHECK_EQ_INT(g_lines, 0);
  CZK_ERROR("test", "shown %d", 2);
  CHECK_EQ_INT(g_lines, 1);
  CHECK(strcmp(g_last, "error|test|shown 2") == 0);
  czk_log_level lv;
  CHECK(czk_log_parse_level("debug", &lv) && lv == CZK_LOG_DEBUG);
  CHECK(!czk_log_parse_level("loud", &lv));
  czk_log_set_sink(NULL, NULL);
  /* the default sink in JSON: one object per line, the message escaped */
  {
    char path[64];
    snprintf(path, sizeof path, "/tmp/czk-test-log-%d.json", (int)getpid());
    unlink(path);
    CHECK(czk_log_set_file(path) == 0);
    czk_log_set_json(true);
    CZK_WARN("job", "job 7 failed: error=\"a\\b\"\nnext\x01");
    czk_log_set_json(false);
    CZK_WARN("job", "plain");
    czk_log_set_file(NULL);
    FILE *f = fopen(path, "r");
    char l1[512] = "", l2[512] = "";
    CHECK(f && fgets(l1, sizeof l1, f) && fgets(l2, sizeof l2, f));
    if (f) fclose(f);
    unlink(path);
    CHECK_MSG(strncmp(l1, "{\"ts\":\"", 7) == 0 && strlen(l1) > 33 && l1[30] == 'Z' &&
                  strcmp(l1 + 31, "\",\"level\":\"warn\",\"component\":\"job\",\"msg\":\"job 7 failed: "
                                  "error=\\\"a\\\\b\\\"\\nnext\\u0001\"}\n") == 0,
              "json line: %s", l1);
    CHECK_MSG(strstr(l2, " warn  job: plain\n") != NULL, "text line: %s", l2);
  }
  return czk_test_done("test_core");
}
