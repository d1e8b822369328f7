/* test_core.c: status strings from the X-macro list, logger levels and sinks. */
#include <string.h>

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

int main(void) {
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
  return czk_test_done("test_core");
}
