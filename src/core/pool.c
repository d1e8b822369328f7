/* pool.c: the bounded CPU thread pool behind czk/pool.h.
 *
 * Design: a pool owns (threads - 1) worker threads and one list of open tasks. czk_pool_parallel_for builds a task on
 * the caller's stack ({fn, ctx, n, grain, next chunk, helper count}), links it into the list, wakes workers, then
 * claims chunks itself with an atomic fetch-add on `next` until none are left. Workers pick any listed task that still
 * has unclaimed chunks, register as a helper (refs++ under the mutex), claim chunks the same way, and unregister.
 * When the caller runs out of chunks it unlinks the task and waits until refs == 0; after that no other thread can
 * touch the task, so it may go out of scope.
 *
 * Invariants:
 *  - Every chunk index in [0, nchunks) is claimed by exactly one fetch-add, so each item runs exactly once.
 *  - A thread touches a task only while it is listed (under the mutex) or while it holds a ref; the caller unlinks
 *    the task and waits for refs == 0 under the same mutex, so the stack frame outlives every access.
 *  - Nested and concurrent calls cannot deadlock: a caller never waits for a chunk nobody executes. It runs chunks
 *    itself until none is unclaimed; every claimed chunk belongs to a running thread that finishes it (by induction
 *    on the nesting depth, since that thread's nested calls obey the same rule).
 *  - No lost wakeups: every predicate a thread sleeps on (a listed task with work, shutdown, refs == 0) is changed
 *    under the mutex and followed by a broadcast on the condition variable the sleeper uses.
 * A pool with 1 thread (no workers) runs every call inline on the caller.
 *
 * Urgency (czk_pool_set_urgent, czk_pool_parallel_for_urgent): a task created by a thread whose thread-local urgent
 * flag is set goes into a second list, `urgent`, which find_work scans before the normal one; while such a task runs
 * its chunks, every thread executing them has the flag set, so nested calls from inside an urgent chunk are urgent
 * too. `urgent_open` counts urgent tasks that still have unclaimed chunks: +1 when one is linked (mutex), -1 exactly
 * once per task by whoever first sees it drained (an atomic exchange on the task's `open` flag). Threads inside a
 * normal task read urgent_open (one relaxed load, its own cache line) before claiming each chunk; when it is non-zero
 * a worker leaves the normal task (refs--) and goes back to find_work, and a normal caller helps the urgent tasks
 * inline (help_urgent) before resuming its own. Running chunks are never preempted: an urgent task waits at most one
 * chunk per thread. Normal calls pay no extra lock round-trip; only urgent calls and the switch to them take the mutex.
 * Deadlock freedom still holds: a thread only blocks at the top of its stack, waiting for the helpers of the task it
 * created there; a helper entered that task's chunk after the task was created, and any task it blocks on it created
 * later still (higher on its own stack), so every wait points to a strictly newer task and no cycle exists. The help
 * adds at most one level per nesting level (normal chunk -> urgent chunks; urgent code never helps), so stacks stay
 * bounded. */
#include "czk/pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct pool_task {
  czk_pool_fn fn;
  void *ctx;
  size_t n, grain, nchunks;
  atomic_size_t next;     /* next unclaimed chunk */
  unsigned refs;          /* helpers currently inside the task (mutex) */
  bool listed;            /* linked into the pool's list (mutex) */
  bool urgent;            /* which list; the urgency its chunks run with (immutable) */
  atomic_bool open;       /* urgent only: still counted in urgent_open */
  struct pool_task *prev_t, *next_t;
} pool_task;

struct czk_pool {
  pthread_mutex_t mu;
  pthread_cond_t work_cv; /* workers: a task appeared or shutdown */
  pthread_cond_t done_cv; /* callers: a helper left a task */
  pool_task *head[2];     /* open tasks, newest first: [0] normal, [1] urgent */
  bool shutdown;
  unsigned nworkers;
  pthread_t *workers;
  /* urgent tasks with unclaimed chunks; read before every normal chunk, so padded away from the mutex's line (the
   * pool is calloc'ed, so padding rather than _Alignas, which calloc would not honour) */
  char pad0_[64];
  atomic_uint urgent_open;
  char pad1_[64 - sizeof(atomic_uint)];
};

/* The calling thread's urgency; while a thread runs a task's chunks it is the task's. */
static _Thread_local bool tls_urgent;

void czk_pool_set_urgent(bool on) { tls_urgent = on; }
bool czk_pool_urgent(void) { return tls_urgent; }

/* An urgent task stops counting in urgent_open once; called by whoever first sees it drained. */
static void close_urgent(czk_pool *p, pool_task *t) {
  if (t->urgent && atomic_exchange_explicit(&t->open, false, memory_order_relaxed))
    atomic_fetch_sub_explicit(&p->urgent_open, 1, memory_order_relaxed);
}

static void unlink_task(czk_pool *p, pool_task *t) {
  if (!t->listed) return;
  if (t->prev_t) t->prev_t->next_t = t->next_t;
  else p->head[t->urgent] = t->next_t;
  if (t->next_t) t->next_t->prev_t = t->prev_t;
  t->listed = false;
}

/* With the mutex held: a listed task that still has unclaimed chunks, urgent ones first; drained ones are unlinked
 * on the way. urgent_only: skip the normal list. */
static pool_task *find_work(czk_pool *p, bool urgent_only) {
  for (int u = 1; u >= (urgent_only ? 1 : 0); u--) {
    pool_task *t = p->head[u];
    while (t) {
      pool_task *nx = t->next_t;
      if (atomic_load_explicit(&t->next, memory_order_relaxed) < t->nchunks) return t;
      close_urgent(p, t);
      unlink_task(p, t);
      t = nx;
    }
  }
  return NULL;
}

/* How a thread leaves a normal task when urgent work appears: a worker returns (and picks the urgent task up in its
 * loop); the task's caller, which must not return before its own chunks are claimed, helps the urgent tasks inline. */
enum { RUN_URGENT, RUN_WORKER, RUN_CALLER };

static void run_chunks(czk_pool *p, pool_task *t, int mode);

/* Run chunks of urgent tasks until none has unclaimed chunks (a normal caller's detour). */
static void help_urgent(czk_pool *p) {
  pthread_mutex_lock(&p->mu);
  pool_task *u;
  while ((u = find_work(p, true)) != NULL) {
    u->refs++;
    pthread_mutex_unlock(&p->mu);
    run_chunks(p, u, RUN_URGENT);
    pthread_mutex_lock(&p->mu);
    if (--u->refs == 0) pthread_cond_broadcast(&p->done_cv);
  }
  pthread_mutex_unlock(&p->mu);
}

static void run_chunks(czk_pool *p, pool_task *t, int mode) {
  bool saved = tls_urgent;
  for (;;) {
    if (mode != RUN_URGENT && atomic_load_explicit(&p->urgent_open, memory_order_relaxed) != 0) {
      if (mode == RUN_WORKER) break;
      help_urgent(p);
    }
    size_t c = atomic_fetch_add_explicit(&t->next, 1, memory_order_relaxed);
    if (c >= t->nchunks) {
      close_urgent(p, t);
      break;
    }
    size_t b = c * t->grain;
    size_t e = b + t->grain < t->n ? b + t->grain : t->n;
    tls_urgent = t->urgent; /* chunks, and calls nested in them, run with the task's urgency */
    t->fn(t->ctx, b, e);
  }
  tls_urgent = saved;
}

static void *worker_main(void *arg) {
  czk_pool *p = (czk_pool *)arg;
  pthread_mutex_lock(&p->mu);
  for (;;) {
    pool_task *t = NULL;
    while (!p->shutdown && (t = find_work(p, false)) == NULL) pthread_cond_wait(&p->work_cv, &p->mu);
    if (p->shutdown) break;
    t->refs++;
    pthread_mutex_unlock(&p->mu);
    run_chunks(p, t, t->urgent ? RUN_URGENT : RUN_WORKER);
    pthread_mutex_lock(&p->mu);
    if (--t->refs == 0) pthread_cond_broadcast(&p->done_cv);
  }
  pthread_mutex_unlock(&p->mu);
  return NULL;
}

static unsigned online_cpus(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (unsigned)n : 1u;
}

czk_status czk_pool_new(czk_pool **out, unsigned nthreads) {
  if (!out) return CZK_ERR_INVALID_ARG;
  *out = NULL;
  if (nthreads == 0) nthreads = online_cpus();
  if (nthreads > 4096) return CZK_ERR_INVALID_ARG;
  czk_pool *p = calloc(1, sizeof *p);
  if (!p) return CZK_ERR_NOMEM;
  if (nthreads > 1) {
    p->workers = calloc(nthreads - 1, sizeof *p->workers);
    if (!p->workers) {
      free(p);
      return CZK_ERR_NOMEM;
    }
  }
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->work_cv, NULL);
  pthread_cond_init(&p->done_cv, NULL);
  atomic_init(&p->urgent_open, 0);
  for (unsigned i = 0; i + 1 < nthreads; i++) {
    if (pthread_create(&p->workers[i], NULL, worker_main, p) != 0) {
      czk_pool_free(p); /* joins the ones already started */
      return CZK_ERR_INTERNAL;
    }
    p->nworkers++;
  }
  *out = p;
  return CZK_OK;
}

void czk_pool_free(czk_pool *p) {
  if (!p) return;
  pthread_mutex_lock(&p->mu);
  p->shutdown = true;
  pthread_cond_broadcast(&p->work_cv);
  pthread_mutex_unlock(&p->mu);
  for (unsigned i = 0; i < p->nworkers; i++) pthread_join(p->workers[i], NULL);
  pthread_cond_destroy(&p->done_cv);
  pthread_cond_destroy(&p->work_cv);
  pthread_mutex_destroy(&p->mu);
  free(p->workers);
  free(p);
}

static czk_pool g_inline_pool = {.mu = PTHREAD_MUTEX_INITIALIZER,
                                 .work_cv = PTHREAD_COND_INITIALIZER,
                                 .done_cv = PTHREAD_COND_INITIALIZER};

unsigned czk_pool_threads(const czk_pool *p) {
  if (!p) p = czk_pool_default();
  return p->nworkers + 1;
}

static czk_pool *g_default;
static pthread_once_t g_default_once = PTHREAD_ONCE_INIT;

static void default_init(void) {
  unsigned n = 0;
  const char *s = getenv("CZK_THREADS");
  if (s && *s) {
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (*end == 0 && v > 0 && v <= 4096) n = (unsigned)v;
  }
  if (czk_pool_new(&g_default, n) != CZK_OK) g_default = &g_inline_pool; /* degrade to inline, never NULL */
}

czk_pool *czk_pool_default(void) {
  pthread_once(&g_default_once, default_init);
  return g_default;
}

void czk_pool_parallel_for(czk_pool *p, size_t n, size_t grain, czk_pool_fn fn, void *ctx) {
  if (n == 0 || !fn) return;
  if (!p) p = czk_pool_default();
  unsigned threads = p->nworkers + 1;
  if (grain == 0) {
    size_t target = (size_t)threads * 4; /* a few chunks per thread for load balance */
    grain = (n + target - 1) / target;
    if (grain == 0) grain = 1;
  }
  if (p->nworkers == 0 || n <= grain) {
    fn(ctx, 0, n);
    return;
  }
  pool_task t;
  t.fn = fn;
  t.ctx = ctx;
  t.n = n;
  t.grain = grain;
  t.nchunks = (n - 1) / grain + 1;
  atomic_init(&t.next, 0);
  t.refs = 0;
  t.prev_t = NULL;
  t.urgent = tls_urgent;
  atomic_init(&t.open, t.urgent);

  pthread_mutex_lock(&p->mu);
  t.next_t = p->head[t.urgent];
  if (t.next_t) t.next_t->prev_t = &t;
  p->head[t.urgent] = &t;
  t.listed = true;
  if (t.urgent) atomic_fetch_add_explicit(&p->urgent_open, 1, memory_order_relaxed);
  if (t.nchunks - 1 >= p->nworkers) pthread_cond_broadcast(&p->work_cv);
  else
    for (size_t i = 0; i + 1 < t.nchunks; i++) pthread_cond_signal(&p->work_cv);
  pthread_mutex_unlock(&p->mu);

  run_chunks(p, &t, t.urgent ? RUN_URGENT : RUN_CALLER);

  pthread_mutex_lock(&p->mu);
  unlink_task(p, &t);
  while (t.refs > 0) pthread_cond_wait(&p->done_cv, &p->mu);
  pthread_mutex_unlock(&p->mu);
}

void czk_pool_parallel_for_urgent(czk_pool *p, size_t n, size_t grain, czk_pool_fn fn, void *ctx) {
  bool saved = tls_urgent;
  tls_urgent = true;
  czk_pool_parallel_for(p, n, grain, fn, ctx);
  tls_urgent = saved;
}
