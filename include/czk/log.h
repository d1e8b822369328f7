/* czk/log.h: leveled logger with a pluggable sink.
 *
 * The default sink writes "<ISO time> <LEVEL> <component>: message" to stderr. czk_log_set_sink() replaces it (tests
 * capture lines; the daemon reopens its log file on SIGHUP through czk_log_set_file()). Thread-safe: the level is an
 * atomic and a sink is called under a mutex so lines never interleave. */
#ifndef CZK_LOG_H
#define CZK_LOG_H

#include <stdio.h>

#include "czk/common.h"

typedef enum czk_log_level {
  CZK_LOG_TRACE = 0,
  CZK_LOG_DEBUG = 1,
  CZK_LOG_INFO = 2,
  CZK_LOG_WARN = 3,
  CZK_LOG_ERROR = 4,
  CZK_LOG_OFF = 5,
} czk_log_level;

/* A sink receives one formatted message (no trailing newline). */
typedef void (*czk_log_sink_fn)(void *user, czk_log_level level, const char *component, const char *msg);

CZK_API void czk_log_set_level(czk_log_level level);
CZK_API czk_log_level czk_log_get_level(void);
/* Parse "trace|debug|info|warn|error|off"; returns false on anything else. */
CZK_API bool czk_log_parse_level(const char *s, czk_log_level *out);
CZK_API const char *czk_log_level_str(czk_log_level level);
/* NULL restores the default stderr sink. */
CZK_API void czk_log_set_sink(czk_log_sink_fn fn, void *user);
/* Send the default sink's lines to a file (appended); NULL path = stderr. Reopen by calling again. */
CZK_API int czk_log_set_file(const char *path);
/* The default sink's format: false = text (the default), true = one JSON object per line:
 * {"ts":"2026-01-02T03:04:05.678Z","level":"info","component":"job","msg":"..."} */
CZK_API void czk_log_set_json(bool json);

CZK_API void czk_log_write(czk_log_level level, const char *component, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#define CZK_LOG(level, component, ...)                                                                                \
  do {                                                                                                                \
    if ((level) >= czk_log_get_level()) czk_log_write((level), (component), __VA_ARGS__);                             \
  } while (0)
#define CZK_TRACE(c, ...) CZK_LOG(CZK_LOG_TRACE, c, __VA_ARGS__)
#define CZK_DEBUG(c, ...) CZK_LOG(CZK_LOG_DEBUG, c, __VA_ARGS__)
#define CZK_INFO(c, ...) CZK_LOG(CZK_LOG_INFO, c, __VA_ARGS__)
#define CZK_WARN(c, ...) CZK_LOG(CZK_LOG_WARN, c, __VA_ARGS__)
#define CZK_ERROR(c, ...) CZK_LOG(CZK_LOG_ERROR, c, __VA_ARGS__)

#endif
