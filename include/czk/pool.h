/* czk/pool.h: the one shared, bounded CPU thread pool.
 *
 * All CPU parallelism inside czk (MSM, NTT, synthesis, setup) draws from a pool: parallel_for splits [0, n) into
 * chunks of at least `grain` items and runs them on the pool's workers and on the calling thread, returning when all
 * chunks are done. It may be called concurrently from many threads (the engine's synthesis workers share one pool) and
 * from inside a chunk (nested calls never deadlock: the caller keeps executing chunks itself). */
#ifndef CZK_POOL_H
#define CZK_POOL_H

#include "czk/common.h"
#include "czk/status.h"

typedef struct czk_pool czk_pool;

/* fn(ctx, begin, end): process items [begin, end). */
typedef void (*czk_pool_fn)(void *ctx, size_t begin, size_t end);

/* nthreads = 0: the number of online CPUs. */
CZK_API czk_status czk_pool_new(czk_pool **out, unsigned nthreads);
CZK_API void czk_pool_free(czk_pool *p); /* joins every worker */
CZK_API unsigned czk_pool_threads(const czk_pool *p); /* workers + the calling thread */
/* Process-wide pool, created on first use with $CZK_THREADS threads (default: online CPUs). Never NULL. */
CZK_API czk_pool *czk_pool_default(void);
/* p = NULL means the default pool. grain 0 = choose automatically. */
CZK_API void czk_pool_parallel_for(czk_pool *p, size_t n, size_t grain, czk_pool_fn fn, void *ctx);

/* Urgency: latency-critical work (the engine's urgent lane, e.g. a WinningPoSt partition) sharing the pool with bulk
 * work (PoRep synthesis) that keeps every worker busy. A parallel_for called by a thread whose urgent flag is set puts
 * its chunks ahead of every normal chunk: workers finishing a chunk, idle workers, and callers of normal parallel_for
 * (between their own chunks) take urgent chunks first, in any pool. Running chunks are not preempted, so an urgent
 * call waits at most one normal chunk per thread. The flag propagates: while a pool thread runs an urgent call's
 * chunk its flag is set, so parallel_for nested in it is urgent too; normal chunks run with the flag clear. Normal
 * calls keep their cost (one relaxed atomic load per chunk, no extra lock). Nested and concurrent calls stay
 * deadlock-free and the caller still executes chunks itself. */
/* Set or clear the calling thread's urgent flag (thread-local; default off). */
CZK_API void czk_pool_set_urgent(bool on);
/* The calling thread's urgent flag: true inside chunks of an urgent call, on whichever thread runs them. */
CZK_API bool czk_pool_urgent(void);
/* parallel_for as if the calling thread's flag were set; the flag is restored afterwards. */
CZK_API void czk_pool_parallel_for_urgent(czk_pool *p, size_t n, size_t grain, czk_pool_fn fn, void *ctx);

#endif
