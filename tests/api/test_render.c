/* test_render.c: the daemon's own memory in /metrics (czk__process_mem_read, czk__render_metrics): the resident set
 * split into anonymous and file-backed parts, and glibc's malloc heap (in use, free inside the arenas, mmapped blocks).
 * Each gauge is checked against memory this test allocates and touches: a 64 MiB block (served by mmap) raises the
 * anonymous RSS and the heap's mmapped bytes by at least its size, 32 MiB of small blocks raise the heap in use, and
 * freeing them brings both back. Heap checks are skipped in sanitized builds (ASan's allocator replaces glibc's). */
#include <stdlib.h>
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "api/render.h"
#include "api/strbuf.h"
#include "czk_test.h"

/* The value of the series `series` (name with labels, exactly) in a Prometheus text; -1 when absent. */
static double series_value(const char *text, const char *series) {
  size_t n = strlen(series);
  for (const char *p = text; p && *p;) {
    if (strncmp(p, series, n) == 0 && p[n] == ' ') return strtod(p + n + 1, NULL);
    p = strchr(p, '\n');
    if (p) p++;
  }
  return -1;
}

static char *render(void) {
  czk_engine_status st;
  memset(&st, 0, sizeof st);
  czk__strbuf sb;
  czk__sb_init(&sb);
  czk__render_metrics(&sb, &st, NULL, NULL);
  size_t len;
  return czk__sb_take(&sb, &len);
}

int main(void) {
  const double MiB = 1024.0 * 1024.0;
#if defined(__GLIBC__)
  (void)mallopt(M_MMAP_THRESHOLD, 1 << 20); /* as the daemon runs: large blocks mmapped, small ones in the arenas */
#endif
  char *t0 = render();
  CHECK(t0 != NULL);
  double rss0 = series_value(t0, "czk_process_resident_memory_bytes");
  double anon0 = series_value(t0, "czk_process_resident_anon_bytes");
  double file0 = series_value(t0, "czk_process_resident_file_bytes");
  CHECK_MSG(rss0 > 0 && anon0 > 0 && file0 > 0, "rss %.0f anon %.0f file %.0f", rss0, anon0, file0);
  CHECK_MSG(anon0 + file0 <= rss0 + 1, "anon %.0f + file %.0f > rss %.0f", anon0, file0, rss0); /* RssShmem the rest */
  CHECK(strstr(t0, "# TYPE czk_process_resident_anon_bytes gauge\n") != NULL);
  CHECK(strstr(t0, "# TYPE czk_process_resident_file_bytes gauge\n") != NULL);

  /* one large block, touched: anonymous RSS (and, in glibc, the heap's mmapped bytes) rise by its size */
  size_t big = 64u << 20;
  char *b = malloc(big);
  CHECK(b != NULL);
  if (b) memset(b, 0x5a, big);
  char *t1 = render();
  double anon1 = series_value(t1, "czk_process_resident_anon_bytes");
  CHECK_MSG(anon1 - anon0 >= 60 * MiB, "anonymous RSS rose %.1f MiB for a 64 MiB block", (anon1 - anon0) / MiB);

#if defined(__GLIBC__) && !defined(CZK_SANITIZED)
  double in0 = series_value(t0, "czk_process_heap_bytes{state=\"in_use\"}");
  double fr0 = series_value(t0, "czk_process_heap_bytes{state=\"free\"}");
  double mm0 = series_value(t0, "czk_process_heap_bytes{state=\"mmapped\"}");
  CHECK_MSG(in0 > 0 && fr0 >= 0 && mm0 >= 0, "in_use %.0f free %.0f mmapped %.0f", in0, fr0, mm0);
  CHECK(strstr(t0, "# TYPE czk_process_heap_bytes gauge\n") != NULL);
  double mm1 = series_value(t1, "czk_process_heap_bytes{state=\"mmapped\"}");
  CHECK_MSG(mm1 - mm0 >= 64 * MiB, "mmapped rose %.1f MiB for a 64 MiB block", (mm1 - mm0) / MiB);
  free(b);
  b = NULL;
  char *t2 = render();
  double mm2 = series_value(t2, "czk_process_heap_bytes{state=\"mmapped\"}");
  CHECK_MSG(mm2 - mm0 < 1 * MiB, "mmapped %.1f MiB over the start after the free", (mm2 - mm0) / MiB);

  /* 32 MiB in 4 KiB blocks: inside the arenas, counted in use; freed, the bytes leave in_use */
  enum { NSMALL = 8192 };
  static char *small[NSMALL];
  int got = 0;
  for (int i = 0; i < NSMALL; i++) got += (small[i] = malloc(4096)) != NULL;
  CHECK_EQ_INT(got, NSMALL);
  char *t3 = render();
  double in3 = series_value(t3, "czk_process_heap_bytes{state=\"in_use\"}");
  CHECK_MSG(in3 - in0 >= 32 * MiB, "in_use rose %.1f MiB for 32 MiB of small blocks", (in3 - in0) / MiB);
  for (int i = 0; i < NSMALL; i++) free(small[i]);
  char *t4 = render();
  double in4 = series_value(t4, "czk_process_heap_bytes{state=\"in_use\"}");
  CHECK_MSG(in3 - in4 >= 31 * MiB, "in_use fell %.1f MiB when 32 MiB of small blocks were freed", (in3 - in4) / MiB);
  free(t2);
  free(t3);
  free(t4);

  /* the idle trim: 32 MiB of small blocks freed below one that stays (the arena cannot shrink from its top), then
   * czk__process_idle_trim gives their pages back: RssAnon falls; once per activity value, counted and reported */
  for (int i = 0; i < NSMALL; i++) got += (small[i] = malloc(4096)) != NULL;
  for (int i = 0; i < NSMALL; i++) memset(small[i], 0x33, 4096);
  char *pin = malloc(4096);
  CHECK(pin != NULL);
  for (int i = 0; i < NSMALL; i++) free(small[i]);
  char *t5 = render();
  const double anon5 = series_value(t5, "czk_process_resident_anon_bytes");
  const double trims5 = series_value(t5, "czk_process_heap_trims_total");
  CHECK(czk__process_idle_trim(41));
  CHECK(!czk__process_idle_trim(41)); /* no activity since: nothing to do */
  char *t6 = render();
  const double anon6 = series_value(t6, "czk_process_resident_anon_bytes");
  CHECK_MSG(anon5 - anon6 >= 24 * MiB, "the trim gave back %.1f MiB of 32 MiB freed in the arena", (anon5 - anon6) / MiB);
  CHECK_MSG(series_value(t6, "czk_process_heap_trims_total") == trims5 + 1, "trims %.0f -> %.0f", trims5,
            series_value(t6, "czk_process_heap_trims_total"));
  CHECK(strstr(t6, "# TYPE czk_process_heap_trims_total counter\n") != NULL);
  CHECK(series_value(t6, "czk_process_heap_trimmed") == 0); /* the snapshot's activity (0) is not the trim's (41) */
  CHECK(czk__process_idle_trim(0));
  char *t7 = render();
  CHECK(series_value(t7, "czk_process_heap_trimmed") == 1);
  free(pin);
  free(t5);
  free(t6);
  free(t7);
#endif
  free(b);
  free(t0);
  free(t1);
  return czk_test_done("test_render");
}
