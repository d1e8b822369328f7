/* clock.h (internal): monotonic time in nanoseconds, sleeps, and absolute deadlines for condition variables that
 * wait on CLOCK_MONOTONIC (immune to wall-clock jumps). All times are CLOCK_MONOTONIC ns. */
#ifndef CZK_CORE_CLOCK_H
#define CZK_CORE_CLOCK_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "czk/common.h"

#define CZK_NS_PER_MS 1000000ULL
#define CZK_NS_PER_S 1000000000ULL

/* Monotonic now (ns). */
CZK_API uint64_t czk__clock_now_ns(void);
/* Monotonic now in seconds (for stage timings). */
static inline double czk__now_s(void) { return (double)czk__clock_now_ns() * 1e-9; }
/* Sleep ns (resumes after signals). */
CZK_API void czk__clock_sleep_ns(uint64_t ns);
/* Sleep until the monotonic time t_ns (absolute: no drift when called in a loop). */
CZK_API void czk__clock_sleep_until_ns(uint64_t t_ns);
/* Initialize a condition variable whose timed waits use CLOCK_MONOTONIC. Returns 0 or an errno. */
CZK_API int czk__cond_init_mono(pthread_cond_t *cv);
/* pthread_cond_timedwait on a czk__cond_init_mono condition until the monotonic deadline (ns). Returns 0 or
 * ETIMEDOUT. */
CZK_API int czk__cond_wait_until(pthread_cond_t *cv, pthread_mutex_t *mu, uint64_t deadline_ns);
/* now + ms, saturating; ms = 0 means "no deadline" (UINT64_MAX). */
CZK_API uint64_t czk__deadline_after_ms(uint64_t ms);

#endif
