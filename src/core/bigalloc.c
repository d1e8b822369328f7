/* bigalloc.c: czk_alloc_big (czk/common.h). */
#include <stdlib.h>
#include <sys/mman.h>

#include "core/fault.h"
#include "czk/common.h"

void *czk_alloc_big(size_t bytes) {
  if (czk_fault("alloc.big")) return NULL;
  const size_t huge = (size_t)2 << 20;
  if (bytes < 2 * huge) return malloc(bytes ? bytes : 1);
  size_t n = (bytes + huge - 1) / huge * huge;
  void *p = aligned_alloc(huge, n);
  if (p) (void)madvise(p, n, MADV_HUGEPAGE); /* advice only: a kernel without THP ignores it */
  return p;
}
