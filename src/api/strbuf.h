/* strbuf.h: a growable string buffer for rendering JSON / Prometheus text. On allocation failure the buffer is marked
 * failed and further appends are ignored; callers check sb->failed once at the end. */
#ifndef CZK_API_STRBUF_H
#define CZK_API_STRBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct czk_strbuf {
  char *data;
  size_t len, cap;
  bool failed;
} czk_strbuf;

void czk_sb_init(czk_strbuf *sb);
void czk_sb_free(czk_strbuf *sb);
void czk_sb_append(czk_strbuf *sb, const char *s, size_t n);
void czk_sb_puts(czk_strbuf *sb, const char *s);
void czk_sb_printf(czk_strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append s as a JSON string literal (quotes and escapes included). */
void czk_sb_json_str(czk_strbuf *sb, const char *s);
/* Detach the NUL-terminated text (caller frees); NULL when failed. */
char *czk_sb_take(czk_strbuf *sb, size_t *len);

#endif
