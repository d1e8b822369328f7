/* test_budget.c: the memory budget (exactly-once release, all-or-nothing reservations, FIFO waiters, no barging,
 * split, notify) and the trace buffer (ring overwrite, Chrome JSON). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "czk/budget.h"
#include "czk/trace.h"
#include "czk_test.h"

static int g_notified;
static void on_release(void *ctx) { __atomic_add_fetch((int *)ctx, 1, __ATOMIC_SEQ_CST); }

typedef struct racer {
  czk_budget *b;
  uint64_t bytes;
  int order;
  int *counter;
  czk_reservation r;
  czk_status st;
} racer;
static void *racer_main(void *a) {
  racer *x = a;
  uint64_t by[1] = {x->bytes};
  x->st = czk_budget_reserve(x->b, &x->r, by, 1, UINT64_MAX);
  x->order = __atomic_add_fetch(x->counter, 1, __ATOMIC_SEQ_CST);
  return NULL;
}

static uint32_t waiters(czk_budget *b) {
  czk_budget_stats s;
  czk_budget_stats_get(b, &s);
  return s.waiters;
}

int main(void) {
  czk_budget *b;
  CHECK(czk_budget_new(&b, 1000) == CZK_OK);
  czk_budget_set_notify(b, on_release, &g_notified);
  czk_reservation r1, r2, r3;
  uint64_t a[3] = {100, 200, 300};
  CHECK(czk_budget_try_reserve(b, &r1, a, 3) == CZK_OK);
  uint64_t big[2] = {600, 1};
  CHECK(czk_budget_try_reserve(b, &r2, big, 2) == CZK_ERR_TIMEOUT); /* 601 > 400 free: all or nothing */
  uint64_t never[2] = {600, 401};
  CHECK(czk_budget_try_reserve(b, &r2, never, 2) == CZK_ERR_BUDGET);
  czk_budget_stats s;
  czk_budget_stats_get(b, &s);
  CHECK(s.used == 600 && s.used_by_cat[1] == 200 && s.made == 1 && s.peak == 600);
  uint64_t freed;
  CHECK(czk_budget_release(b, &r1, 1, &freed) == CZK_OK && freed == 200);
  CHECK(czk_budget_release(b, &r1, 1, &freed) == CZK_ERR_STATE && freed == 0); /* second release refused */
  czk_budget_stats_get(b, &s);
  CHECK(s.used == 400 && s.release_errors == 1 && s.released == 0 && g_notified == 1);
  /* split: move category 2 into its own reservation */
  CHECK(czk_budget_split(b, &r1, 2, &r3) == CZK_OK);
  CHECK(r3.bytes[2] == 300 && !(r1.held & 4));
  czk_budget_release_all(b, &r1);
  czk_budget_stats_get(b, &s);
  CHECK(s.used == 300 && s.made == 2 && s.released == 1);

  /* FIFO: two blocked reservers are served in arrival order; try_reserve does not barge past them */
  int counter = 0;
  racer x = {b, 600, 0, &counter, {{0}, 0, 0}, CZK_ERR_INTERNAL};
  racer y = {b, 100, 0, &counter, {{0}, 0, 0}, CZK_ERR_INTERNAL};
  pthread_t tx, ty;
  uint64_t fill[1] = {600};
  CHECK(czk_budget_try_reserve(b, &r2, fill, 1) == CZK_OK); /* used 900 */
  pthread_create(&tx, NULL, racer_main, &x);
  while (waiters(b) < 1) czk__clock_sleep_ns(100000);
  pthread_create(&ty, NULL, racer_main, &y); /* 100 would fit now, but x is ahead */
  while (waiters(b) < 2) czk__clock_sleep_ns(100000);
  uint64_t small[1] = {50};
  czk_reservation r4;
  CHECK(czk_budget_try_reserve(b, &r4, small, 1) == CZK_ERR_TIMEOUT);
  czk__clock_sleep_ns(2000000);
  CHECK(counter == 0);
  czk_budget_release_all(b, &r2); /* used 300: x (600) fits, then y (100) */
  pthread_join(tx, NULL);
  pthread_join(ty, NULL);
  CHECK(x.st == CZK_OK && y.st == CZK_OK && x.r.id < y.r.id); /* ids are assigned in the order memory was taken */
  /* a timed-out waiter leaves the line */
  uint64_t huge[1] = {500};
  czk_reservation r5;
  int notified0 = g_notified;
  CHECK(czk_budget_reserve(b, &r5, huge, 1, czk__clock_now_ns() + 3000000) == CZK_ERR_TIMEOUT);
  CHECK(waiters(b) == 0);
  /* and says so: a try_reserve refused only because that waiter was ahead may succeed now (the engine's dispatcher
   * waits on this notification; issue 22 defect 2); so does a waiter that leaves with its memory */
  CHECK_MSG(g_notified == notified0 + 1, "a waiter left the line without a notification (%d -> %d)", notified0,
            g_notified);
  czk_budget_release_all(b, &x.r); /* 400 used */
  uint64_t some[1] = {10};
  notified0 = g_notified;
  CHECK(czk_budget_reserve(b, &r5, some, 1, czk__clock_now_ns() + 1000 * CZK_NS_PER_MS) == CZK_OK &&
        g_notified == notified0 + 1);
  czk_budget_release_all(b, &r5);
  czk_budget_release_all(b, &y.r);
  czk_budget_release_all(b, &r3);
  czk_budget_stats_get(b, &s);
  CHECK(s.used == 0 && s.made == s.released && s.release_errors == 1 && s.peak <= s.limit);
  czk_budget_free(b);

  /* resize: a shrink always (and notifies), a growth only when it fits and nobody waits; unheld categories refused */
  CHECK(czk_budget_new(&b, 1000) == CZK_OK);
  czk_budget_set_notify(b, on_release, &g_notified);
  uint64_t k6[2] = {0, 600};
  czk_reservation rk;
  CHECK(czk_budget_try_reserve(b, &rk, k6, 2) == CZK_OK);
  int n0 = g_notified;
  CHECK(czk_budget_resize(b, &rk, 1, 200) == CZK_OK && rk.bytes[1] == 200 && g_notified == n0 + 1);
  czk_budget_stats_get(b, &s);
  CHECK(s.used == 200 && s.used_by_cat[1] == 200);
  CHECK(czk_budget_resize(b, &rk, 1, 900) == CZK_OK && rk.bytes[1] == 900);
  CHECK(czk_budget_resize(b, &rk, 1, 1001) == CZK_ERR_TIMEOUT && rk.bytes[1] == 900); /* past the limit */
  CHECK(czk_budget_resize(b, &rk, 2, 10) == CZK_ERR_STATE);
  CHECK(czk_budget_resize(b, &rk, 1, 0) == CZK_OK && czk_reservation_live(&rk)); /* held at 0 */
  CHECK(czk_budget_resize(b, &rk, 1, 500) == CZK_OK);
  racer z = {b, 600, 0, &counter, {{0}, 0, 0}, CZK_ERR_INTERNAL};
  pthread_t tz;
  pthread_create(&tz, NULL, racer_main, &z); /* 600 > 500 free: waits */
  while (waiters(b) < 1) czk__clock_sleep_ns(100000);
  CHECK(czk_budget_resize(b, &rk, 1, 510) == CZK_ERR_TIMEOUT); /* fits, but a waiter is ahead */
  CHECK(czk_budget_resize(b, &rk, 1, 400) == CZK_OK);          /* the shrink lets the waiter in */
  pthread_join(tz, NULL);
  CHECK(z.st == CZK_OK);
  czk_budget_stats_get(b, &s);
  CHECK(s.used == 1000 && s.peak == 1000);
  czk_budget_release_all(b, &z.r);
  /* try_reserve_keep: only when the headroom stays free */
  uint64_t h3[1] = {300};
  czk_reservation rh;
  CHECK(czk_budget_try_reserve_keep(b, &rh, h3, 1, 301) == CZK_ERR_TIMEOUT); /* 600 free - 300 < 301 */
  CHECK(czk_budget_try_reserve_keep(b, &rh, h3, 1, 300) == CZK_OK);
  czk_budget_release_all(b, &rh);
  czk_budget_release_all(b, &rk);
  czk_budget_stats_get(b, &s);
  CHECK(s.used == 0 && s.made == s.released && s.release_errors == 0);
  czk_budget_free(b);

  /* trace: ring keeps the newest spans; JSON export */
  czk_trace *t;
  CHECK(czk_trace_new(&t, 4) == CZK_OK);
  czk_trace_name_track(t, 1, 2, "worker \"1\"");
  for (int i = 0; i < 6; i++) {
    czk_trace_span sp = {.name = "synth", .cat = "engine", .pid = 1, .tid = 2, .t0_ns = 1000u * i,
                         .t1_ns = 1000u * i + 500, .job = (uint64_t)i, .part = 0};
    czk_trace_add(t, &sp);
  }
  czk_trace_span *spans;
  size_t n;
  uint64_t dropped;
  CHECK(czk_trace_snapshot(t, &spans, &n, &dropped) == CZK_OK && n == 4 && dropped == 2);
  CHECK(spans[0].job == 2 && spans[3].job == 5);
  free(spans);
  char *buf = NULL;
  size_t len = 0;
  FILE *mf = open_memstream(&buf, &len);
  CHECK(czk_trace_write_json(t, mf, 0) == CZK_OK);
  fclose(mf);
  CHECK(strstr(buf, "\"traceEvents\"") && strstr(buf, "worker \\\"1\\\"") && strstr(buf, "\"ts\":5.000"));
  free(buf);
  czk_trace_free(t);
  return czk_test_done("test_engine_budget");
}
