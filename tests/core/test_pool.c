/* test_pool.c: the thread pool: every item exactly once (many sizes and grains), concurrent callers from many
 * threads, nested calls three deep, real parallelism (chunks rendezvous across threads), inline pools, the default
 * pool, and repeated create/free (clean shutdown).
 *
 * Urgency (czk_pool_set_urgent): a 4-thread pool is saturated by one long normal call (2000 chunks of 1 ms); then
 *  - urgent_ahead: an urgent call's chunks must be taken by the busy pool: its chunks wait until 4 distinct threads
 *    run them (the urgent caller alone cannot finish them; ignoring urgency times out after 5 s and fails), and it
 *    returns while the normal call still has most of its chunks left;
 *  - urgent_control: the same call without the flag is run by its caller alone (FIFO: the workers stay in the older
 *    normal call), which shows the test above measures the flag and nothing else;
 *  - urgent_nested: parallel_for nested in an urgent chunk that runs on a pool worker is urgent too (its chunks
 *    rendezvous with another thread, which only urgency can free);
 *  - every chunk sees czk_pool_urgent() equal to its call's urgency, on whichever thread runs it;
 *  - a bench line (printed, not asserted): the urgent call's latency with and without the flag. */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "czk/pool.h"
#include "czk_test.h"

typedef struct {
  atomic_int *hits;
  size_t n;
  atomic_int bad; /* a range outside [0, n) or empty */
} count_ctx;

static void count_fn(void *vctx, size_t b, size_t e) {
  count_ctx *c = vctx;
  if (b >= e || e > c->n) atomic_fetch_add(&c->bad, 1);
  for (size_t i = b; i < e && i < c->n; i++) atomic_fetch_add(&c->hits[i], 1);
}

static int check_exactly_once(czk_pool *p, size_t n, size_t grain) {
  atomic_int *hits = calloc(n ? n : 1, sizeof *hits);
  count_ctx c = {hits, n, 0};
  czk_pool_parallel_for(p, n, grain, count_fn, &c);
  int wrong = atomic_load(&c.bad);
  for (size_t i = 0; i < n; i++) wrong += atomic_load(&hits[i]) != 1;
  free(hits);
  return wrong;
}

/* --- concurrency: many threads share one pool */
typedef struct {
  czk_pool *p;
  int wrong;
  unsigned seed;
} caller_arg;

static void *caller_main(void *varg) {
  caller_arg *a = varg;
  czk_pool_set_urgent(a->seed % 2 == 1); /* half the callers urgent: urgent and normal calls mixed on one pool */
  for (int it = 0; it < 40; it++) {
    size_t n = 1 + (size_t)((a->seed * 2654435761u + (unsigned)it * 40503u) % 3000u);
    a->wrong += check_exactly_once(a->p, n, (size_t)(it % 5) * 7);
  }
  return NULL;
}

/* --- nesting: each item of the outer loop runs an inner parallel_for, which runs another */
typedef struct {
  czk_pool *p;
  atomic_int *hits; /* [8][9][10] */
} nest_ctx;
typedef struct {
  nest_ctx *top;
  size_t i, j;
} nest_inner;

static void nest3(void *v, size_t b, size_t e) {
  nest_inner *in = v;
  for (size_t k = b; k < e; k++) atomic_fetch_add(&in->top->hits[(in->i * 9 + in->j) * 10 + k], 1);
}
static void nest2(void *v, size_t b, size_t e) {
  nest_inner *outer = v;
  for (size_t j = b; j < e; j++) {
    nest_inner in = {outer->top, outer->i, j};
    czk_pool_parallel_for(outer->top->p, 10, 1, nest3, &in);
  }
}
static void nest1(void *v, size_t b, size_t e) {
  nest_ctx *c = v;
  for (size_t i = b; i < e; i++) {
    nest_inner in = {c, i, 0};
    czk_pool_parallel_for(c->p, 9, 2, nest2, &in);
  }
}

static int check_nested(czk_pool *p) {
  atomic_int hits[8 * 9 * 10];
  for (size_t i = 0; i < CZK_ARRAY_LEN(hits); i++) atomic_init(&hits[i], 0);
  nest_ctx c = {p, hits};
  czk_pool_parallel_for(p, 8, 1, nest1, &c);
  int wrong = 0;
  for (size_t i = 0; i < CZK_ARRAY_LEN(hits); i++) wrong += atomic_load(&hits[i]) != 1;
  return wrong;
}

/* --- parallelism: each of 2 chunks waits (up to 10 s) until both are running at the same time */
typedef struct {
  atomic_int inside;
  atomic_int met;
} meet_ctx;
static void meet_fn(void *v, size_t b, size_t e) {
  (void)b;
  (void)e;
  meet_ctx *m = v;
  atomic_fetch_add(&m->inside, 1);
  struct timespec ts = {0, 1000000};
  for (int i = 0; i < 10000 && atomic_load(&m->inside) < 2; i++) nanosleep(&ts, NULL);
  if (atomic_load(&m->inside) >= 2) atomic_fetch_add(&m->met, 1);
}

static void *nested_caller_main(void *varg) {
  caller_arg *a = varg;
  czk_pool_set_urgent(a->seed % 2 == 1);
  for (int it = 0; it < 5; it++) a->wrong += check_nested(a->p);
  return NULL;
}

/* --- urgency */
static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}
static void sleep_us(long us) {
  struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
  nanosleep(&ts, NULL);
}

/* The saturating normal call: chunk i sleeps 1 ms; once `stop` is set the remaining chunks return at once. */
typedef struct {
  czk_pool *p;
  size_t n;
  atomic_int inside, max_inside, done, stop;
  atomic_int urgent_seen; /* chunks that saw czk_pool_urgent() set */
} load_ctx;
static void load_fn(void *v, size_t b, size_t e) {
  load_ctx *l = v;
  if (czk_pool_urgent()) atomic_fetch_add(&l->urgent_seen, 1);
  int in = atomic_fetch_add(&l->inside, 1) + 1;
  int mx = atomic_load(&l->max_inside);
  while (in > mx && !atomic_compare_exchange_weak(&l->max_inside, &mx, in)) {
  }
  for (size_t i = b; i < e; i++)
    if (!atomic_load(&l->stop)) sleep_us(1000);
  atomic_fetch_sub(&l->inside, 1);
  atomic_fetch_add(&l->done, (int)(e - b));
}
static void *load_main(void *v) {
  load_ctx *l = v;
  czk_pool_parallel_for(l->p, l->n, 1, load_fn, l);
  return NULL;
}
/* Start the load and return once every pool thread (3 workers + the load's caller) is inside a load chunk. */
static void load_start(load_ctx *l, czk_pool *p, pthread_t *th) {
  memset(l, 0, sizeof *l);
  l->p = p;
  l->n = 2000;
  pthread_create(th, NULL, load_main, l);
  for (int i = 0; i < 10000 && atomic_load(&l->max_inside) < 4; i++) sleep_us(500);
}
static void load_stop(load_ctx *l, pthread_t th) {
  atomic_store(&l->stop, 1);
  pthread_join(th, NULL);
}

/* The latency-critical call: 64 chunks; each may wait (5 s at most, in total) until `need` distinct threads have run
 * one of its chunks, then sleeps `work_us`. */
typedef struct {
  atomic_int gen_threads; /* distinct threads that ran a chunk */
  int gen, need;
  long work_us;
  atomic_int gave_up, done, flag_wrong;
  atomic_int load_done_max; /* the load's progress seen by the last urgent chunk */
  load_ctx *load;
  bool want_urgent;
} urgent_ctx;
static _Thread_local int tls_gen;
static int g_gen;
static void mark_thread(atomic_int *distinct, int gen) {
  if (tls_gen != gen) {
    tls_gen = gen;
    atomic_fetch_add(distinct, 1);
  }
}
static void rendezvous(atomic_int *distinct, int need, atomic_int *gave_up) {
  double t0 = now_ms();
  while (atomic_load(distinct) < need && !atomic_load(gave_up)) {
    if (now_ms() - t0 > 5000) atomic_store(gave_up, 1);
    sleep_us(100);
  }
}
static void urgent_fn(void *v, size_t b, size_t e) {
  urgent_ctx *u = v;
  if (czk_pool_urgent() != u->want_urgent) atomic_fetch_add(&u->flag_wrong, 1);
  mark_thread(&u->gen_threads, u->gen);
  rendezvous(&u->gen_threads, u->need, &u->gave_up);
  for (size_t i = b; i < e; i++) sleep_us(u->work_us);
  atomic_store(&u->load_done_max, atomic_load(&u->load->done));
  atomic_fetch_add(&u->done, (int)(e - b));
}
typedef struct {
  czk_pool *p;
  urgent_ctx *u;
  bool urgent;
  double ms;
  int load_done_before, load_done_after;
} urgent_call;
static void *urgent_main(void *v) {
  urgent_call *c = v;
  czk_pool_set_urgent(c->urgent);
  c->load_done_before = atomic_load(&c->u->load->done);
  double t0 = now_ms();
  czk_pool_parallel_for(c->p, 64, 1, urgent_fn, c->u);
  c->ms = now_ms() - t0;
  c->load_done_after = atomic_load(&c->u->load->done);
  czk_pool_set_urgent(false);
  return NULL;
}
static urgent_call run_urgent_call(czk_pool *p, load_ctx *l, bool urgent, int need, long work_us, urgent_ctx *u) {
  memset(u, 0, sizeof *u);
  u->gen = ++g_gen;
  u->need = need;
  u->work_us = work_us;
  u->load = l;
  u->want_urgent = urgent;
  urgent_call c = {p, u, urgent, 0, 0, 0};
  pthread_t th;
  pthread_create(&th, NULL, urgent_main, &c);
  pthread_join(th, NULL);
  return c;
}

static void check_urgent_ahead(czk_pool *p) {
  load_ctx l;
  pthread_t lt;
  load_start(&l, p, &lt);
  CHECK_MSG(atomic_load(&l.max_inside) >= 4, "the load never occupied all 4 pool threads");
  urgent_ctx u;
  urgent_call c = run_urgent_call(p, &l, true, 4, 100, &u);
  int left = (int)l.n - c.load_done_after;
  fprintf(stderr, "urgent_ahead: urgent call %.1f ms on %d threads; load chunks done before %d, after %d (of %zu)\n",
          c.ms, atomic_load(&u.gen_threads), c.load_done_before, c.load_done_after, l.n);
  CHECK_MSG(!atomic_load(&u.gave_up), "urgent chunks never reached 4 threads (%d)", atomic_load(&u.gen_threads));
  CHECK_EQ_INT(atomic_load(&u.done), 64);
  CHECK_EQ_INT(atomic_load(&u.flag_wrong), 0);
  CHECK_MSG(left > 1000, "the load had only %d chunks left when the urgent call returned", left);
  load_stop(&l, lt);
  CHECK_EQ_INT(atomic_load(&l.done), (int)l.n);
  CHECK_EQ_INT(atomic_load(&l.urgent_seen), 0); /* workers and the load's caller dropped the flag after helping */
}

static void check_urgent_control(czk_pool *p) {
  load_ctx l;
  pthread_t lt;
  load_start(&l, p, &lt);
  urgent_ctx u;
  urgent_call c = run_urgent_call(p, &l, false, 0, 100, &u);
  int left = (int)l.n - c.load_done_after;
  fprintf(stderr, "urgent_control: plain call %.1f ms on %d threads; load chunks done before %d, after %d\n", c.ms,
          atomic_load(&u.gen_threads), c.load_done_before, c.load_done_after);
  CHECK_MSG(left > 4, "inconclusive: the load finished (%d left) before the plain call returned", left);
  CHECK_EQ_INT(atomic_load(&u.gen_threads), 1); /* FIFO: the busy workers never reached it; its caller ran it all */
  CHECK_EQ_INT(atomic_load(&u.done), 64);
  CHECK_EQ_INT(atomic_load(&u.flag_wrong), 0);
  load_stop(&l, lt);
  CHECK_EQ_INT(atomic_load(&l.done), (int)l.n);
}

/* Nested: an urgent call of 2 chunks that meet on 2 threads, so one runs on a pool thread; that one (only) runs a
 * nested call of 16 chunks that must meet on 2 threads. Without propagation the nested call is normal, the urgent
 * caller is not in it, and the busy workers never reach it. */
typedef struct {
  atomic_int outer_threads, inner_threads, gave_up, flag_wrong, inner_done, nested_calls;
  int gen_outer, gen_inner;
  pthread_t caller;
  czk_pool *p;
} nested_urgent_ctx;
static void nested_inner_fn(void *v, size_t b, size_t e) {
  nested_urgent_ctx *c = v;
  if (!czk_pool_urgent()) atomic_fetch_add(&c->flag_wrong, 1);
  mark_thread(&c->inner_threads, c->gen_inner);
  rendezvous(&c->inner_threads, 2, &c->gave_up);
  atomic_fetch_add(&c->inner_done, (int)(e - b));
}
static void nested_outer_fn(void *v, size_t b, size_t e) {
  (void)b;
  (void)e;
  nested_urgent_ctx *c = v;
  if (!czk_pool_urgent()) atomic_fetch_add(&c->flag_wrong, 1);
  mark_thread(&c->outer_threads, c->gen_outer);
  rendezvous(&c->outer_threads, 2, &c->gave_up);
  if (pthread_equal(pthread_self(), c->caller)) return;
  atomic_fetch_add(&c->nested_calls, 1);
  czk_pool_parallel_for(c->p, 16, 1, nested_inner_fn, c);
}
static void *nested_urgent_main(void *v) {
  nested_urgent_ctx *c = v;
  c->caller = pthread_self();
  czk_pool_parallel_for_urgent(c->p, 2, 1, nested_outer_fn, c);
  if (czk_pool_urgent()) atomic_fetch_add(&c->flag_wrong, 1); /* restored after the call */
  return NULL;
}
static void check_urgent_nested(czk_pool *p) {
  load_ctx l;
  pthread_t lt, th;
  load_start(&l, p, &lt);
  nested_urgent_ctx c;
  memset(&c, 0, sizeof c);
  c.p = p;
  c.gen_outer = ++g_gen;
  c.gen_inner = ++g_gen;
  pthread_create(&th, NULL, nested_urgent_main, &c);
  pthread_join(th, NULL);
  int left = (int)l.n - atomic_load(&l.done);
  fprintf(stderr, "urgent_nested: outer on %d threads, nested on %d threads; load chunks left %d\n",
          atomic_load(&c.outer_threads), atomic_load(&c.inner_threads), left);
  CHECK_MSG(!atomic_load(&c.gave_up), "nested urgent chunks did not meet (outer %d, inner %d threads)",
            atomic_load(&c.outer_threads), atomic_load(&c.inner_threads));
  CHECK_EQ_INT(atomic_load(&c.nested_calls), 1);
  CHECK_EQ_INT(atomic_load(&c.inner_done), 16);
  CHECK_EQ_INT(atomic_load(&c.flag_wrong), 0);
  CHECK_MSG(left > 1000, "the load had only %d chunks left when the nested urgent call returned", left);
  load_stop(&l, lt);
  CHECK_EQ_INT(atomic_load(&l.urgent_seen), 0);
}

/* Printed, not asserted: latency of a 64-chunk call (0.5 ms per chunk, 32 ms of work) under the saturating load. */
static void bench_urgent(czk_pool *p) {
  double sum[2] = {0, 0}, mx[2] = {0, 0};
  const int reps = 5;
  load_ctx l;
  pthread_t lt;
  load_start(&l, p, &lt);
  for (int r = 0; r < reps; r++)
    for (int f = 0; f < 2; f++) {
      urgent_ctx u;
      urgent_call c = run_urgent_call(p, &l, f == 1, 0, 500, &u);
      sum[f] += c.ms;
      if (c.ms > mx[f]) mx[f] = c.ms;
    }
  int left = (int)l.n - atomic_load(&l.done);
  load_stop(&l, lt);
  fprintf(stderr,
          "bench pool urgency: 64 x 0.5 ms call vs 4-thread pool saturated by 2000 x 1 ms chunks: plain mean %.1f ms "
          "(max %.1f), urgent mean %.1f ms (max %.1f)%s\n",
          sum[0] / reps, mx[0], sum[1] / reps, mx[1], left > 0 ? "" : " [load ran out: numbers understate]");
}

int main(void) {
  czk_pool *p = NULL;
  CHECK(czk_pool_new(&p, 4) == CZK_OK && p);
  CHECK_EQ_INT(czk_pool_threads(p), 4);
  CHECK(czk_pool_new(NULL, 4) == CZK_ERR_INVALID_ARG);

  /* sizes and grains, including n = 0, n < grain, n = grain, ragged last chunk */
  const size_t sizes[] = {0, 1, 2, 3, 7, 64, 100, 1000, 4097, 100000};
  const size_t grains[] = {0, 1, 3, 64, 1000, 200000};
  for (size_t i = 0; i < CZK_ARRAY_LEN(sizes); i++)
    for (size_t j = 0; j < CZK_ARRAY_LEN(grains); j++)
      CHECK_MSG(check_exactly_once(p, sizes[i], grains[j]) == 0, "n=%zu grain=%zu", sizes[i], grains[j]);

  /* 8 threads calling concurrently (4 of them urgent) */
  pthread_t th[8];
  caller_arg args[8];
  for (unsigned i = 0; i < 8; i++) {
    args[i] = (caller_arg){p, 0, i + 1};
    pthread_create(&th[i], NULL, caller_main, &args[i]);
  }
  for (unsigned i = 0; i < 8; i++) {
    pthread_join(th[i], NULL);
    CHECK_EQ_INT(args[i].wrong, 0);
  }

  /* nesting, alone and from concurrent callers (2 of them urgent) */
  CHECK_EQ_INT(check_nested(p), 0);
  for (unsigned i = 0; i < 4; i++) {
    args[i] = (caller_arg){p, 0, i};
    pthread_create(&th[i], NULL, nested_caller_main, &args[i]);
  }
  for (unsigned i = 0; i < 4; i++) {
    pthread_join(th[i], NULL);
    CHECK_EQ_INT(args[i].wrong, 0);
  }

  /* two chunks really run at the same time */
  meet_ctx m;
  atomic_init(&m.inside, 0);
  atomic_init(&m.met, 0);
  czk_pool_parallel_for(p, 2, 1, meet_fn, &m);
  CHECK_EQ_INT(atomic_load(&m.met), 2);

  /* urgency: ahead of a saturating load, the FIFO control, propagation into nested calls, latency */
  CHECK(!czk_pool_urgent());
  check_urgent_ahead(p);
  check_urgent_control(p);
  check_urgent_nested(p);
  bench_urgent(p);
  CHECK(!czk_pool_urgent());
  czk_pool_free(p);

  /* a 1-thread pool runs inline; nesting works there too */
  CHECK(czk_pool_new(&p, 1) == CZK_OK);
  CHECK_EQ_INT(czk_pool_threads(p), 1);
  CHECK_EQ_INT(check_exactly_once(p, 1000, 10), 0);
  CHECK_EQ_INT(check_nested(p), 0);
  /* urgent calls on an inline pool: still exactly once, flag restored */
  czk_pool_set_urgent(true);
  CHECK_EQ_INT(check_exactly_once(p, 1000, 10), 0);
  czk_pool_set_urgent(false);
  czk_pool_free(p);

  /* the default pool (NULL) */
  CHECK(czk_pool_default() != NULL);
  CHECK(czk_pool_threads(NULL) >= 1);
  CHECK_EQ_INT(check_exactly_once(NULL, 5000, 0), 0);
  CHECK_EQ_INT(check_nested(NULL), 0);
  czk_pool_set_urgent(true); /* urgent calls keep every guarantee: exactly once, nested, concurrent with normal ones */
  CHECK_EQ_INT(check_exactly_once(NULL, 5000, 0), 0);
  CHECK_EQ_INT(check_nested(NULL), 0);
  czk_pool_set_urgent(false);

  /* create/free repeatedly: idle, after work, with more threads than cores */
  for (int i = 0; i < 20; i++) {
    CHECK(czk_pool_new(&p, (unsigned)(2 + i % 7)) == CZK_OK);
    if (i % 2) CHECK_EQ_INT(check_exactly_once(p, 333, 5), 0);
    czk_pool_free(p);
  }
  czk_pool_free(NULL);
  return czk_test_done("test_pool");
}
