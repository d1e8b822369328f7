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

#endif
