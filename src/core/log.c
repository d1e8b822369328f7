/* log.c: leveled logger; one mutex serializes sink calls so lines never interleave. The default sink writes text
 * ("<time> <level> <component>: message") or, after czk_log_set_json(true), one JSON object per line with the
 * message escaped (RFC 8259: quote, backslash and control characters). */
#include "czk/log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

static _Atomic int g_level = CZK_LOG_INFO;
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static czk_log_sink_fn g_sink;
static void *g_sink_user;
static FILE *g_file; /* NULL = stderr */
static bool g_json;

static const char *const k_names[] = {"trace", "debug", "info", "warn", "error", "off"};

void czk_log_set_level(czk_log_level level) { atomic_store(&g_level, (int)level); }
czk_log_level czk_log_get_level(void) { return (czk_log_level)atomic_load(&g_level); }

const char *czk_log_level_str(czk_log_level level) {
  return (unsigned)level < CZK_ARRAY_LEN(k_names) ? k_names[level] : "?";
}

bool czk_log_parse_level(const char *s, czk_log_level *out) {
  for (size_t i = 0; i < CZK_ARRAY_LEN(k_names); i++) {
    if (s && strcmp(s, k_names[i]) == 0) {
      *out = (czk_log_level)i;
      return true;
    }
  }
  return false;
}

void czk_log_set_sink(czk_log_sink_fn fn, void *user) {
  pthread_mutex_lock(&g_mu);
  g_sink = fn;
  g_sink_user = user;
  pthread_mutex_unlock(&g_mu);
}

int czk_log_set_file(const char *path) {
  FILE *f = NULL;
  if (path) {
    f = fopen(path, "a");
    if (!f) return -1;
    setvbuf(f, NULL, _IOLBF, 0);
  }
  pthread_mutex_lock(&g_mu);
  FILE *old = g_file;
  g_file = f;
  pthread_mutex_unlock(&g_mu);
  if (old) fclose(old);
  return 0;
}

void czk_log_set_json(bool json) {
  pthread_mutex_lock(&g_mu);
  g_json = json;
  pthread_mutex_unlock(&g_mu);
}

/* s as the inside of a JSON string */
static void json_escaped(FILE *out, const char *s) {
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\') fprintf(out, "\\%c", *p);
    else if (*p == '\n') fputs("\\n", out);
    else if (*p == '\t') fputs("\\t", out);
    else if (*p < 0x20) fprintf(out, "\\u%04x", *p);
    else fputc(*p, out);
  }
}

void czk_log_write(czk_log_level level, const char *component, const char *fmt, ...) {
  char msg[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  pthread_mutex_lock(&g_mu);
  if (g_sink) {
    g_sink(g_sink_user, level, component ? component : "-", msg);
  } else {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    char tbuf[32];
    strftime(tbuf, sizeof tbuf, "%Y-%m-%dT%H:%M:%S", &tm);
    FILE *out = g_file ? g_file : stderr;
    if (g_json) {
      fprintf(out, "{\"ts\":\"%s.%03ldZ\",\"level\":\"%s\",\"component\":\"", tbuf, ts.tv_nsec / 1000000,
              czk_log_level_str(level));
      json_escaped(out, component ? component : "-");
      fputs("\",\"msg\":\"", out);
      json_escaped(out, msg);
      fputs("\"}\n", out);
    } else {
      fprintf(out, "%s.%03ldZ %-5s %s: %s\n", tbuf, ts.tv_nsec / 1000000, czk_log_level_str(level),
              component ? component : "-", msg);
    }
  }
  pthread_mutex_unlock(&g_mu);
}
