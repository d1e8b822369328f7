/* czk/common.h: the export macro and the few types every public header shares. */
#ifndef CZK_COMMON_H
#define CZK_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define CZK_API __attribute__((visibility("default")))
#else
#define CZK_API
#endif

#if defined(__GNUC__)
#define CZK_NODISCARD __attribute__((warn_unused_result))
#else
#define CZK_NODISCARD
#endif

#define CZK_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Memory for a large array (witnesses, a/b/c): 2 MiB aligned and marked for transparent huge pages when it is at
 * least 4 MiB (one page fault per 2 MiB instead of per 4 KiB on first touch); free it with free(). NULL when out of
 * memory. */
CZK_API void *czk_alloc_big(size_t bytes);

#endif
