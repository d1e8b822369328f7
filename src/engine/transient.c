/* transient.c: request memory in the engine's budget (czk_engine_request_reserve / _release, czk/engine.h).
 *
 * The API layer holds a request's bytes before the engine sees a job: the transport's copy of the message, its
 * decoded form, and what the kind's parse makes of it. Those bytes are counted in the one budget, category
 * CZK_MEM_REQUEST, from before the decode until the parse is done, so that many large requests arriving at once
 * cannot take the process past the budget that partitions and keys keep to (issue 22).
 *
 * Order of attempts: (1) a non-blocking reserve; (2) evict unused resident keys one at a time (czk__key_evict_lru with
 * need = bytes: only when the request would then fit), retrying (1) after each; (3) refuse at once (CZK_ERR_BUDGET)
 * when the request is larger than the budget less the key bytes that jobs hold references to now (it could not be
 * covered even with every unused key evicted and every partition finished); (4) wait FIFO in slices of at most
 * 200 ms (czk_budget_reserve), going back to (1) after each slice so that keys that became unused in the meantime can
 * be evicted, until the deadline (CZK_ERR_TIMEOUT). Invariants: no engine lock is held while waiting or releasing
 * (kc_mu is taken only to sum the referenced keys' bytes); a reservation is released exactly once (the budget refuses
 * and counts a second release; release of an empty reservation is a no-op). */
#include <stdio.h>
#include <string.h>

#include "core/clock.h"
#include "engine/engine_internal.h"

/* Bytes of keys that some partition holds a reference to (or that are loading): not evictable now. */
static uint64_t key_bytes_in_use(czk_engine *e) {
  uint64_t n = 0;
  pthread_mutex_lock(&e->kc_mu);
  for (ekey *k = e->keys; k; k = k->next)
    if (k->refs || k->state != KS_RESIDENT)
      for (unsigned c = 0; c < CZK_MEM_COUNT; c++) n += k->res.bytes[c];
  pthread_mutex_unlock(&e->kc_mu);
  return n;
}

static double mib(uint64_t b) { return (double)b / (1024.0 * 1024.0); }

czk_status czk_engine_request_reserve(czk_engine *e, uint64_t bytes, uint64_t deadline_ns, czk_reservation *r,
                                      char *why, size_t whylen) {
  if (why && whylen) why[0] = 0;
  if (!e || !r) return CZK_ERR_INVALID_ARG;
  memset(r, 0, sizeof *r);
  if (bytes == 0) return CZK_OK;
  uint64_t want[CZK_MEM_COUNT] = {0};
  want[CZK_MEM_REQUEST] = bytes;
  uint64_t limit = czk_budget_limit(e->budget);
  for (;;) {
    czk_status st;
    while ((st = czk_budget_try_reserve(e->budget, r, want, CZK_MEM_COUNT)) == CZK_ERR_TIMEOUT &&
           czk__key_evict_lru(e, NULL, bytes, 0)) {
    }
    if (st == CZK_OK) return CZK_OK;
    uint64_t in_use = key_bytes_in_use(e);
    if (st == CZK_ERR_BUDGET || bytes > limit || bytes > limit - in_use) {
      if (why && whylen)
        snprintf(why, whylen,
                 "needs %.1f MiB of the memory budget to be received, decoded and parsed, more than the %.1f MiB "
                 "budget less the %.1f MiB of keys in use can ever give",
                 mib(bytes), mib(limit), mib(in_use > limit ? limit : in_use));
      return CZK_ERR_BUDGET;
    }
    uint64_t now = czk__clock_now_ns();
    if (now >= deadline_ns) break;
    uint64_t slice = now + 200 * CZK_NS_PER_MS;
    st = czk_budget_reserve(e->budget, r, want, CZK_MEM_COUNT, slice < deadline_ns ? slice : deadline_ns);
    if (st == CZK_OK) return CZK_OK;
    if (st != CZK_ERR_TIMEOUT) return st;
  }
  if (why && whylen) {
    czk_budget_stats bs;
    czk_budget_stats_get(e->budget, &bs);
    snprintf(why, whylen,
             "needs %.1f MiB of the memory budget to be received, decoded and parsed; the budget (%.1f MiB) stayed "
             "full with jobs in flight (%.1f MiB in use); try again later",
             mib(bytes), mib(limit), mib(bs.used));
  }
  return CZK_ERR_TIMEOUT;
}

void czk_engine_request_release(czk_engine *e, czk_reservation *r) {
  if (!e || !r || !czk_reservation_live(r)) return;
  czk_budget_release_all(e->budget, r);
}
