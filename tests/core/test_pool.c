/* test_pool.c: the thread pool: every item exactly once (many sizes and grains), concurrent callers from many
 * threads, nested calls three deep, real parallelism (chunks rendezvous across threads), inline pools, the default
 * pool, and repeated create/free (clean shutdown). */
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
  for (int it = 0; it < 5; it++) a->wrong += check_nested(a->p);
  return NULL;
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

  /* 8 threads calling concurrently */
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

  /* nesting, alone and from concurrent callers */
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
  czk_pool_free(p);

  /* a 1-thread pool runs inline; nesting works there too */
  CHECK(czk_pool_new(&p, 1) == CZK_OK);
  CHECK_EQ_INT(czk_pool_threads(p), 1);
  CHECK_EQ_INT(check_exactly_once(p, 1000, 10), 0);
  CHECK_EQ_INT(check_nested(p), 0);
  czk_pool_free(p);

  /* the default pool (NULL) */
  CHECK(czk_pool_default() != NULL);
  CHECK(czk_pool_threads(NULL) >= 1);
  CHECK_EQ_INT(check_exactly_once(NULL, 5000, 0), 0);
  CHECK_EQ_INT(check_nested(NULL), 0);

  /* create/free repeatedly: idle, after work, with more threads than cores */
  for (int i = 0; i < 20; i++) {
    CHECK(czk_pool_new(&p, (unsigned)(2 + i % 7)) == CZK_OK);
    if (i % 2) CHECK_EQ_INT(check_exactly_once(p, 333, 5), 0);
    czk_pool_free(p);
  }
  czk_pool_free(NULL);
  return czk_test_done("test_pool");
}
