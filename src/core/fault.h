/* fault.h (internal): fault injection for tests (docs/reliability.md, "Faults").
 *
 * A named site (`czk_fault("device.msm")`) placed at a stage boundary asks whether this pass should fail; the site
 * then fails the way the real failure would (a NULL allocation, CZK_ERR_IO, CZK_ERR_DEVICE, a dropped socket write).
 * Which passes fail is configured by a spec, from the environment variable CZK_FAULTS (read at the first site
 * reached) or by czk_faults_configure (tests; it replaces the spec and resets every count):
 *
 *   spec  := entry { (',' | ';' | ' ') entry }
 *   entry := site '=' trigger [ '/' mode ]  |  'seed=' N
 *   trigger := N          the N-th pass of the site fails (1-based), once
 *            | N ':' C    passes N .. N+C-1 fail
 *            | N ':*'     every pass from the N-th on fails
 *            | P          (a number with a '.', 0 < P <= 1) each pass fails with probability P (seeded: 'seed=')
 *   mode  := 'transient' (default) | 'sticky'
 *   site  := a site name, or a prefix ending in '*' ("device.*")
 *
 * The mode is returned to the site: at device sites a sticky fault quarantines the device that took it (its backend
 * refuses all later work), a transient one fails that one operation; other sites fail the same way in both modes (use
 * 'N:*' there for a failure that persists). Each entry counts its own passes (czk_faults_stats).
 *
 * Cost: with the CMake option CZK_FAULTS=OFF czk_fault() is the constant CZK_FAULT_NONE (no code at the sites). With
 * it ON (the default, so that the ordinary test build runs the fault tests and the daemon black-box tests can set
 * CZK_FAULTS) a site that is not armed costs one relaxed atomic load and a predictable branch; sites sit at stage
 * boundaries (a partition's reservation, a key load, one backend operation), never in inner loops. When armed, a
 * pass takes one mutex. A spec that does not parse arms nothing and is reported (log, and the configure status). */
#ifndef CZK_CORE_FAULT_H
#define CZK_CORE_FAULT_H

#include <stdatomic.h>
#include <stdint.h>

#include "czk/common.h"
#include "czk/status.h"

typedef enum czk_fault_kind {
  CZK_FAULT_NONE = 0,      /* no fault: go on */
  CZK_FAULT_TRANSIENT = 1, /* fail this pass */
  CZK_FAULT_STICKY = 2,    /* fail this pass; a device site also quarantines the device */
} czk_fault_kind;

#ifdef CZK_FAULTS_ENABLED
/* -1: the environment was not read yet; 0: nothing armed; 1: armed. */
CZK_API extern _Atomic int czk__faults_state;
CZK_API czk_fault_kind czk__fault_pass(const char *site);
static inline czk_fault_kind czk_fault(const char *site) {
  return atomic_load_explicit(&czk__faults_state, memory_order_relaxed) ? czk__fault_pass(site) : CZK_FAULT_NONE;
}
#else
static inline czk_fault_kind czk_fault(const char *site) {
  (void)site;
  return CZK_FAULT_NONE;
}
#endif

/* Whether fault injection is compiled in (CZK_FAULTS=ON). */
CZK_API bool czk_faults_available(void);
/* Replace the spec (NULL or "" disarms every site) and reset the counts. CZK_ERR_CONFIG when the spec does not parse
 * (err, when given, says why; nothing is armed then); CZK_ERR_UNSUPPORTED when fault injection is compiled out. */
CZK_API czk_status czk_faults_configure(const char *spec, char *err, size_t errlen);
/* Totals over the entries written with exactly this site (or prefix pattern, "device.*"): passes seen, faults fired. */
CZK_API void czk_faults_stats(const char *site, uint64_t *passes, uint64_t *fired);

#endif
