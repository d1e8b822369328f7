/* czk/budget.h: one global memory budget with byte categories and exactly-once reservations.
 *
 * A reservation holds bytes in up to CZK_BUDGET_CATS categories; each category part is released exactly once
 * (czk_budget_release); a second release is refused, counted (release_errors) and changes nothing. Invariants:
 * used <= limit at every instant (peak records the maximum); used == sum of live parts; made - released = live
 * reservations. Fairness: czk_budget_reserve waits FIFO (tickets); czk_budget_try_reserve never barges ahead of a
 * waiting reserver. A notify callback runs after every release and whenever a blocking reserver leaves the line (a
 * try_reserve refused because of it may succeed then), outside the budget lock, so a caller that waits on its own
 * condition (the engine dispatcher) gets no lost wakeups. */
#ifndef CZK_BUDGET_H
#define CZK_BUDGET_H

#include "czk/common.h"
#include "czk/status.h"

#define CZK_BUDGET_CATS 8

typedef struct czk_budget czk_budget;

typedef struct czk_reservation {
  uint64_t bytes[CZK_BUDGET_CATS]; /* live bytes per category */
  uint32_t held;                   /* bit c set: category c is held (even with 0 bytes) */
  uint64_t id;                     /* 0 = never reserved */
} czk_reservation;

typedef struct czk_budget_stats {
  uint64_t limit, used, peak;
  uint64_t used_by_cat[CZK_BUDGET_CATS];
  uint64_t made, released, release_errors; /* reservations made / fully released; refused double releases */
  uint32_t waiters;
} czk_budget_stats;

typedef void (*czk_budget_notify_fn)(void *ctx);

CZK_API czk_status czk_budget_new(czk_budget **out, uint64_t limit);
CZK_API void czk_budget_free(czk_budget *b);
/* Called after every release and split (outside the budget lock). Set before use. */
CZK_API void czk_budget_set_notify(czk_budget *b, czk_budget_notify_fn fn, void *ctx);
/* Observer of the budget's use: called outside the lock after every successful reserve, release and split with the
 * bytes in use just after that change (for the trace's memory-use counter). Set before use. */
typedef void (*czk_budget_observe_fn)(void *ctx, uint64_t used);
CZK_API void czk_budget_set_observer(czk_budget *b, czk_budget_observe_fn fn, void *ctx);
CZK_API uint64_t czk_budget_limit(const czk_budget *b);
/* Reserve bytes[c] for every category c with ncat entries (all or nothing). CZK_ERR_BUDGET when the total exceeds the
 * limit (can never fit); CZK_ERR_TIMEOUT when it does not fit now or a FIFO waiter is ahead. */
CZK_API czk_status czk_budget_try_reserve(czk_budget *b, czk_reservation *r, const uint64_t *bytes, unsigned ncat);
/* As try_reserve, but it succeeds only when keep_free bytes stay free after it (a headroom held back for urgent work:
 * the engine's urgent lane). CZK_ERR_TIMEOUT otherwise (the total + keep_free may exceed the limit: then never). */
CZK_API czk_status czk_budget_try_reserve_keep(czk_budget *b, czk_reservation *r, const uint64_t *bytes, unsigned ncat,
                                               uint64_t keep_free);
/* As try_reserve, but wait (FIFO) until it fits or the monotonic deadline (ns, UINT64_MAX = none) passes. */
CZK_API czk_status czk_budget_reserve(czk_budget *b, czk_reservation *r, const uint64_t *bytes, unsigned ncat,
                                      uint64_t deadline_ns);
/* Release category `cat` of r. CZK_ERR_STATE (and release_errors++) when it is not held. *freed = bytes returned. */
CZK_API czk_status czk_budget_release(czk_budget *b, czk_reservation *r, unsigned cat, uint64_t *freed);
/* Change the bytes of held category `cat` of r to `bytes` (the reservation stays live, even at 0): a shrink always
 * succeeds and wakes waiters; a growth succeeds only when it fits now and no FIFO waiter is ahead (CZK_ERR_TIMEOUT,
 * nothing changed). CZK_ERR_STATE when the category is not held. For an estimate corrected once the truth is known
 * (e.g. a key's bytes once it is loaded). */
CZK_API czk_status czk_budget_resize(czk_budget *b, czk_reservation *r, unsigned cat, uint64_t bytes);
/* Release every held category of r (each exactly once). */
CZK_API void czk_budget_release_all(czk_budget *b, czk_reservation *r);
/* Move category `cat` of `from` into a new reservation `to` (a new id; counts as made). Used bytes do not change. */
CZK_API czk_status czk_budget_split(czk_budget *b, czk_reservation *from, unsigned cat, czk_reservation *to);
CZK_API void czk_budget_stats_get(czk_budget *b, czk_budget_stats *s);
/* True when r still holds some category. */
static inline bool czk_reservation_live(const czk_reservation *r) { return r->held != 0; }

#endif
