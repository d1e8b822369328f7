/* clock.c: monotonic clock helpers (see clock.h). Invariant: every deadline is an absolute CLOCK_MONOTONIC ns value;
 * UINT64_MAX means "never". */
#include "core/clock.h"

#include <errno.h>

uint64_t czk__clock_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * CZK_NS_PER_S + (uint64_t)ts.tv_nsec;
}

static struct timespec to_ts(uint64_t ns) {
  struct timespec ts;
  ts.tv_sec = (time_t)(ns / CZK_NS_PER_S);
  ts.tv_nsec = (long)(ns % CZK_NS_PER_S);
  return ts;
}

void czk__clock_sleep_until_ns(uint64_t t_ns) {
  struct timespec ts = to_ts(t_ns);
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
  }
}

void czk__clock_sleep_ns(uint64_t ns) { czk__clock_sleep_until_ns(czk__clock_now_ns() + ns); }

int czk__cond_init_mono(pthread_cond_t *cv) {
  pthread_condattr_t a;
  int rc = pthread_condattr_init(&a);
  if (rc) return rc;
  rc = pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
  if (!rc) rc = pthread_cond_init(cv, &a);
  pthread_condattr_destroy(&a);
  return rc;
}

int czk__cond_wait_until(pthread_cond_t *cv, pthread_mutex_t *mu, uint64_t deadline_ns) {
  if (deadline_ns == UINT64_MAX) return pthread_cond_wait(cv, mu);
  struct timespec ts = to_ts(deadline_ns);
  return pthread_cond_timedwait(cv, mu, &ts);
}

uint64_t czk__deadline_after_ms(uint64_t ms) {
  if (ms == 0 || ms > UINT64_MAX / CZK_NS_PER_MS / 2) return UINT64_MAX;
  return czk__clock_now_ns() + ms * CZK_NS_PER_MS;
}
