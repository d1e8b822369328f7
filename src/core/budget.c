/* budget.c: the global memory budget (see czk/budget.h).
 *
 * One mutex guards the counters. FIFO fairness: blocking reservers queue in an intrusive list (nodes on their stacks)
 * and only the head may take memory; a timed-out waiter unlinks itself; try_reserve succeeds only when the line is
 * empty. Every release broadcasts the condition (waiters re-check) and then calls the notify hook outside the lock; so
 * does a blocking reserver leaving the line (with or without its memory), since try_reserve may succeed then. */
#include "czk/budget.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"

typedef struct waiter {
  struct waiter *next;
} waiter;

struct czk_budget {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  uint64_t limit, used, peak;
  uint64_t used_by_cat[CZK_BUDGET_CATS];
  uint64_t made, released, release_errors, next_id;
  waiter *head, *tail; /* FIFO line of blocking reservers */
  uint32_t nwaiters;
  czk_budget_notify_fn notify;
  void *notify_ctx;
  czk_budget_observe_fn observe;
  void *observe_ctx;
};

czk_status czk_budget_new(czk_budget **out, uint64_t limit) {
  if (!out) return CZK_ERR_INVALID_ARG;
  czk_budget *b = calloc(1, sizeof *b);
  if (!b) return CZK_ERR_NOMEM;
  pthread_mutex_init(&b->mu, NULL);
  if (czk__cond_init_mono(&b->cv)) {
    pthread_mutex_destroy(&b->mu);
    free(b);
    return CZK_ERR_INTERNAL;
  }
  b->limit = limit;
  b->next_id = 1;
  *out = b;
  return CZK_OK;
}

void czk_budget_free(czk_budget *b) {
  if (!b) return;
  pthread_cond_destroy(&b->cv);
  pthread_mutex_destroy(&b->mu);
  free(b);
}

void czk_budget_set_observer(czk_budget *b, czk_budget_observe_fn fn, void *ctx) {
  pthread_mutex_lock(&b->mu);
  b->observe = fn;
  b->observe_ctx = ctx;
  pthread_mutex_unlock(&b->mu);
}

/* Call the observer (outside the lock) with a use value captured under it. */
static void observe(czk_budget *b, czk_budget_observe_fn fn, void *ctx, uint64_t used) {
  (void)b;
  if (fn) fn(ctx, used);
}

void czk_budget_set_notify(czk_budget *b, czk_budget_notify_fn fn, void *ctx) {
  pthread_mutex_lock(&b->mu);
  b->notify = fn;
  b->notify_ctx = ctx;
  pthread_mutex_unlock(&b->mu);
}

uint64_t czk_budget_limit(const czk_budget *b) { return b->limit; }

static bool sum_bytes(const uint64_t *bytes, unsigned ncat, uint64_t *total) {
  uint64_t t = 0;
  for (unsigned c = 0; c < ncat; c++) {
    if (bytes[c] > UINT64_MAX - t) return false;
    t += bytes[c];
  }
  *total = t;
  return true;
}

/* Under mu: take the bytes. */
static void take_locked(czk_budget *b, czk_reservation *r, const uint64_t *bytes, unsigned ncat, uint64_t total) {
  memset(r, 0, sizeof *r);
  for (unsigned c = 0; c < ncat; c++) {
    r->bytes[c] = bytes[c];
    r->held |= 1u << c;
    b->used_by_cat[c] += bytes[c];
  }
  b->used += total;
  if (b->used > b->peak) b->peak = b->used;
  r->id = b->next_id++;
  b->made++;
}

static czk_status check_args(czk_budget *b, czk_reservation *r, const uint64_t *bytes, unsigned ncat,
                             uint64_t *total) {
  if (!b || !r || (!bytes && ncat) || ncat == 0 || ncat > CZK_BUDGET_CATS) return CZK_ERR_INVALID_ARG;
  if (!sum_bytes(bytes, ncat, total) || *total > b->limit) return CZK_ERR_BUDGET;
  return CZK_OK;
}

czk_status czk_budget_try_reserve(czk_budget *b, czk_reservation *r, const uint64_t *bytes, unsigned ncat) {
  return czk_budget_try_reserve_keep(b, r, bytes, ncat, 0);
}

czk_status czk_budget_try_reserve_keep(czk_budget *b, czk_reservation *r, const uint64_t *bytes, unsigned ncat,
                                       uint64_t keep_free) {
  uint64_t total;
  CZK_TRY(check_args(b, r, bytes, ncat, &total));
  czk_status st = CZK_ERR_TIMEOUT;
  pthread_mutex_lock(&b->mu);
  if (!b->head && b->used + total <= b->limit && b->limit - b->used - total >= keep_free) {
    take_locked(b, r, bytes, ncat, total);
    st = CZK_OK;
  }
  uint64_t used = b->used;
  czk_budget_observe_fn ofn = st == CZK_OK ? b->observe : NULL;
  void *octx = b->observe_ctx;
  pthread_mutex_unlock(&b->mu);
  observe(b, ofn, octx, used);
  return st;
}

static void notify(czk_budget *b) {
  pthread_mutex_lock(&b->mu);
  czk_budget_notify_fn fn = b->notify;
  void *ctx = b->notify_ctx;
  pthread_mutex_unlock(&b->mu);
  if (fn) fn(ctx);
}

czk_status czk_budget_reserve(czk_budget *b, czk_reservation *r, const uint64_t *bytes, unsigned ncat,
                              uint64_t deadline_ns) {
  uint64_t total;
  CZK_TRY(check_args(b, r, bytes, ncat, &total));
  waiter w = {NULL};
  pthread_mutex_lock(&b->mu);
  /* join the FIFO line */
  if (b->tail) b->tail->next = &w;
  else b->head = &w;
  b->tail = &w;
  b->nwaiters++;
  czk_status st = CZK_OK;
  while (b->head != &w || b->used + total > b->limit) {
    if (czk__cond_wait_until(&b->cv, &b->mu, deadline_ns) == ETIMEDOUT &&
        (b->head != &w || b->used + total > b->limit)) {
      st = CZK_ERR_TIMEOUT;
      break;
    }
  }
  if (st == CZK_OK) take_locked(b, r, bytes, ncat, total);
  /* leave the line (we may be anywhere in it after a timeout) */
  waiter **pp = &b->head, *prev = NULL;
  while (*pp != &w) {
    prev = *pp;
    pp = &(*pp)->next;
  }
  *pp = w.next;
  if (b->tail == &w) b->tail = prev;
  b->nwaiters--;
  pthread_cond_broadcast(&b->cv); /* the next in line re-checks */
  uint64_t used = b->used;
  czk_budget_observe_fn ofn = st == CZK_OK ? b->observe : NULL;
  void *octx = b->observe_ctx;
  pthread_mutex_unlock(&b->mu);
  observe(b, ofn, octx, used);
  notify(b); /* the line changed: a try_reserve refused because of this waiter may succeed now */
  return st;
}

czk_status czk_budget_release(czk_budget *b, czk_reservation *r, unsigned cat, uint64_t *freed) {
  if (freed) *freed = 0;
  if (!b || !r || cat >= CZK_BUDGET_CATS) return CZK_ERR_INVALID_ARG;
  pthread_mutex_lock(&b->mu);
  if (!(r->held & (1u << cat))) {
    b->release_errors++;
    pthread_mutex_unlock(&b->mu);
    return CZK_ERR_STATE;
  }
  uint64_t n = r->bytes[cat];
  r->bytes[cat] = 0;
  r->held &= ~(1u << cat);
  b->used_by_cat[cat] -= n;
  b->used -= n;
  if (!r->held) b->released++;
  pthread_cond_broadcast(&b->cv);
  uint64_t used = b->used;
  czk_budget_observe_fn ofn = b->observe;
  void *octx = b->observe_ctx;
  pthread_mutex_unlock(&b->mu);
  if (freed) *freed = n;
  observe(b, ofn, octx, used);
  notify(b);
  return CZK_OK;
}

czk_status czk_budget_resize(czk_budget *b, czk_reservation *r, unsigned cat, uint64_t bytes) {
  if (!b || !r || cat >= CZK_BUDGET_CATS) return CZK_ERR_INVALID_ARG;
  pthread_mutex_lock(&b->mu);
  if (!(r->held & (1u << cat))) {
    pthread_mutex_unlock(&b->mu);
    return CZK_ERR_STATE;
  }
  uint64_t old = r->bytes[cat];
  czk_status st = CZK_OK;
  if (bytes > old) {
    uint64_t more = bytes - old;
    if (more > b->limit - b->used || b->head) st = CZK_ERR_TIMEOUT; /* never past the limit, never ahead of a waiter */
    else b->used += more, b->used_by_cat[cat] += more, r->bytes[cat] = bytes;
    if (b->used > b->peak) b->peak = b->used;
  } else if (bytes < old) {
    uint64_t less = old - bytes;
    b->used -= less, b->used_by_cat[cat] -= less, r->bytes[cat] = bytes;
    pthread_cond_broadcast(&b->cv);
  }
  uint64_t used = b->used;
  czk_budget_observe_fn ofn = st == CZK_OK && bytes != old ? b->observe : NULL;
  void *octx = b->observe_ctx;
  pthread_mutex_unlock(&b->mu);
  observe(b, ofn, octx, used);
  if (st == CZK_OK && bytes < old) notify(b);
  return st;
}

void czk_budget_release_all(czk_budget *b, czk_reservation *r) {
  for (unsigned c = 0; c < CZK_BUDGET_CATS; c++)
    if (r->held & (1u << c)) (void)czk_budget_release(b, r, c, NULL);
}

czk_status czk_budget_split(czk_budget *b, czk_reservation *from, unsigned cat, czk_reservation *to) {
  if (!b || !from || !to || cat >= CZK_BUDGET_CATS || from == to) return CZK_ERR_INVALID_ARG;
  pthread_mutex_lock(&b->mu);
  if (!(from->held & (1u << cat))) {
    pthread_mutex_unlock(&b->mu);
    return CZK_ERR_STATE;
  }
  memset(to, 0, sizeof *to);
  to->bytes[cat] = from->bytes[cat];
  to->held = 1u << cat;
  to->id = b->next_id++;
  b->made++;
  from->bytes[cat] = 0;
  from->held &= ~(1u << cat);
  if (!from->held) b->released++;
  pthread_mutex_unlock(&b->mu);
  return CZK_OK;
}

void czk_budget_stats_get(czk_budget *b, czk_budget_stats *s) {
  memset(s, 0, sizeof *s);
  pthread_mutex_lock(&b->mu);
  s->limit = b->limit;
  s->used = b->used;
  s->peak = b->peak;
  memcpy(s->used_by_cat, b->used_by_cat, sizeof s->used_by_cat);
  s->made = b->made;
  s->released = b->released;
  s->release_errors = b->release_errors;
  s->waiters = b->nwaiters;
  pthread_mutex_unlock(&b->mu);
}
