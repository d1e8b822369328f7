/* fault.c: fault injection (core/fault.h): the spec parser, the armed entries and their counts.
 * Invariants: entries change only under g_mu (configure, or the first read of CZK_FAULTS); czk__faults_state is 1 only
 * while some entry is armed, so an unarmed site never takes the lock. Counts are per entry and reset by configure. */
#include "core/fault.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "czk/log.h"

#define MAX_ENTRIES 32

typedef struct fentry {
  char site[48]; /* name, or prefix when prefix is set ("device." of "device.*") */
  bool prefix;
  czk_fault_kind mode;
  uint64_t nth, count; /* passes nth .. nth+count-1 fail; count 0 = no end */
  double prob;         /* > 0: probability mode */
  uint64_t rng;
  uint64_t passes, fired;
} fentry;

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static fentry g_ent[MAX_ENTRIES];
static unsigned g_n;

bool czk_faults_available(void) {
#ifdef CZK_FAULTS_ENABLED
  return true;
#else
  return false;
#endif
}

#ifdef CZK_FAULTS_ENABLED
_Atomic int czk__faults_state = -1;

static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static bool parse_u64(const char *s, size_t n, uint64_t *out) {
  if (n == 0 || n > 18) return false;
  uint64_t v = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (uint64_t)(s[i] - '0');
  }
  *out = v;
  return true;
}

/* One entry [s, s+n): fills *e, or writes why into err. Returns false on a parse error. seed: a 'seed=' entry. */
static bool parse_entry(const char *s, size_t n, fentry *e, uint64_t *seed, bool *is_seed, char *err, size_t errlen) {
  memset(e, 0, sizeof *e);
  *is_seed = false;
  const char *eq = memchr(s, '=', n);
  if (!eq || eq == s) {
    snprintf(err, errlen, "'%.*s': expected site=trigger", (int)n, s);
    return false;
  }
  size_t sn = (size_t)(eq - s);
  const char *v = eq + 1, *end = s + n;
  if (sn == 4 && memcmp(s, "seed", 4) == 0) {
    *is_seed = true;
    if (!parse_u64(v, (size_t)(end - v), seed)) {
      snprintf(err, errlen, "'%.*s': seed must be a decimal number", (int)n, s);
      return false;
    }
    return true;
  }
  if (sn >= sizeof e->site) {
    snprintf(err, errlen, "'%.*s': site name too long", (int)n, s);
    return false;
  }
  for (size_t i = 0; i < sn; i++) {
    char c = s[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-' ||
              (c == '*' && i == sn - 1);
    if (!ok) {
      snprintf(err, errlen, "'%.*s': bad character in the site name", (int)n, s);
      return false;
    }
  }
  e->prefix = s[sn - 1] == '*';
  memcpy(e->site, s, e->prefix ? sn - 1 : sn);
  e->mode = CZK_FAULT_TRANSIENT;
  const char *slash = memchr(v, '/', (size_t)(end - v));
  const char *tend = slash ? slash : end;
  if (slash) {
    size_t mn = (size_t)(end - slash - 1);
    if (mn == 6 && memcmp(slash + 1, "sticky", 6) == 0) e->mode = CZK_FAULT_STICKY;
    else if (!(mn == 9 && memcmp(slash + 1, "transient", 9) == 0)) {
      snprintf(err, errlen, "'%.*s': mode must be transient or sticky", (int)n, s);
      return false;
    }
  }
  size_t tn = (size_t)(tend - v);
  if (memchr(v, '.', tn)) { /* probability */
    char buf[32];
    if (tn >= sizeof buf) tn = sizeof buf - 1;
    memcpy(buf, v, tn);
    buf[tn] = 0;
    char *pe;
    double p = strtod(buf, &pe);
    if (*pe || !(p > 0 && p <= 1)) {
      snprintf(err, errlen, "'%.*s': a probability must be in (0, 1]", (int)n, s);
      return false;
    }
    e->prob = p;
    return true;
  }
  const char *colon = memchr(v, ':', tn);
  if (!parse_u64(v, (size_t)((colon ? colon : tend) - v), &e->nth) || e->nth == 0) {
    snprintf(err, errlen, "'%.*s': trigger must be N, N:C, N:* (N >= 1) or a probability like 0.5", (int)n, s);
    return false;
  }
  e->count = 1;
  if (colon) {
    size_t cn = (size_t)(tend - colon - 1);
    if (cn == 1 && colon[1] == '*') e->count = 0;
    else if (!parse_u64(colon + 1, cn, &e->count) || e->count == 0) {
      snprintf(err, errlen, "'%.*s': count must be a number >= 1 or *", (int)n, s);
      return false;
    }
  }
  return true;
}

/* Under g_mu. */
static czk_status configure_locked(const char *spec, char *err, size_t errlen) {
  char dummy[8];
  if (!err) err = dummy, errlen = sizeof dummy;
  err[0] = 0;
  g_n = 0;
  fentry ent[MAX_ENTRIES];
  unsigned n = 0;
  uint64_t seed = 1;
  for (const char *p = spec ? spec : ""; *p;) {
    while (*p == ',' || *p == ';' || *p == ' ' || *p == '\t' || *p == '\n') p++;
    if (!*p) break;
    size_t len = strcspn(p, ",; \t\n");
    bool is_seed;
    fentry e;
    if (!parse_entry(p, len, &e, &seed, &is_seed, err, errlen)) return CZK_ERR_CONFIG;
    if (!is_seed) {
      if (n == MAX_ENTRIES) {
        snprintf(err, errlen, "more than %d entries", MAX_ENTRIES);
        return CZK_ERR_CONFIG;
      }
      ent[n++] = e;
    }
    p += len;
  }
  for (unsigned i = 0; i < n; i++) {
    uint64_t h = 1469598103934665603ULL;
    for (const char *c = ent[i].site; *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211ULL;
    ent[i].rng = seed ^ h ^ i;
    g_ent[i] = ent[i];
  }
  g_n = n;
  return CZK_OK;
}

static void env_once(void) {
  const char *spec = getenv("CZK_FAULTS");
  char err[160];
  pthread_mutex_lock(&g_mu);
  czk_status st = configure_locked(spec, err, sizeof err);
  unsigned n = g_n;
  atomic_store(&czk__faults_state, n ? 1 : 0);
  pthread_mutex_unlock(&g_mu);
  if (st != CZK_OK) CZK_ERROR("fault", "CZK_FAULTS not used (nothing armed): %s", err);
  else if (n) CZK_WARN("fault", "fault injection armed from CZK_FAULTS: %s", spec);
}
static pthread_once_t g_env_once = PTHREAD_ONCE_INIT;

static bool matches(const fentry *e, const char *site) {
  return e->prefix ? strncmp(site, e->site, strlen(e->site)) == 0 : strcmp(site, e->site) == 0;
}

czk_fault_kind czk__fault_pass(const char *site) {
  pthread_once(&g_env_once, env_once);
  czk_fault_kind out = CZK_FAULT_NONE;
  uint64_t pass = 0;
  pthread_mutex_lock(&g_mu);
  for (unsigned i = 0; i < g_n; i++) {
    fentry *e = &g_ent[i];
    if (!matches(e, site)) continue;
    uint64_t k = ++e->passes;
    bool fire = e->prob > 0 ? (double)(splitmix(&e->rng) >> 11) * 0x1.0p-53 < e->prob
                            : k >= e->nth && (e->count == 0 || k - e->nth < e->count);
    if (fire && out == CZK_FAULT_NONE) {
      e->fired++;
      out = e->mode;
      pass = k;
    }
  }
  pthread_mutex_unlock(&g_mu);
  if (out != CZK_FAULT_NONE)
    CZK_WARN("fault", "injected %s fault at %s (pass %llu)", out == CZK_FAULT_STICKY ? "sticky" : "transient", site,
             (unsigned long long)pass);
  return out;
}
#endif

czk_status czk_faults_configure(const char *spec, char *err, size_t errlen) {
#ifdef CZK_FAULTS_ENABLED
  pthread_once(&g_env_once, env_once); /* so that a later first pass does not overwrite this spec with the env's */
  pthread_mutex_lock(&g_mu);
  czk_status st = configure_locked(spec, err, errlen);
  atomic_store(&czk__faults_state, g_n ? 1 : 0);
  pthread_mutex_unlock(&g_mu);
  return st;
#else
  (void)spec;
  if (err && errlen) snprintf(err, errlen, "fault injection is compiled out (CZK_FAULTS=OFF)");
  return CZK_ERR_UNSUPPORTED;
#endif
}

void czk_faults_stats(const char *site, uint64_t *passes, uint64_t *fired) {
  uint64_t p = 0, f = 0;
  pthread_mutex_lock(&g_mu);
  for (unsigned i = 0; i < g_n && site; i++) {
    const fentry *e = &g_ent[i];
    size_t sl = strlen(e->site);
    bool same = e->prefix ? strncmp(site, e->site, sl) == 0 && strcmp(site + sl, "*") == 0 : strcmp(site, e->site) == 0;
    if (same) p += e->passes, f += e->fired;
  }
  pthread_mutex_unlock(&g_mu);
  if (passes) *passes = p;
  if (fired) *fired = f;
}
