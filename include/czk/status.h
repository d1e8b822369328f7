/* czk/status.h: every status code of czk, from one X-macro list.
 *
 * Library code returns a czk_status; it never exits or aborts on bad input. CZK_OK is 0; every error is distinct so
 * that tests can check *which* rejection happened (e.g. a point not on the curve vs. not in the subgroup). */
#ifndef CZK_STATUS_H
#define CZK_STATUS_H

#include "czk/common.h"

/* X(name, value, text) */
#define CZK_STATUS_LIST(X)                                                                                            \
  X(CZK_OK, 0, "ok")                                                                                                  \
  X(CZK_ERR_INVALID_ARG, 1, "invalid argument")                                                                       \
  X(CZK_ERR_NOMEM, 2, "out of memory")                                                                                \
  X(CZK_ERR_IO, 3, "i/o error")                                                                                       \
  X(CZK_ERR_TRUNCATED, 4, "input truncated")                                                                          \
  X(CZK_ERR_FORMAT, 5, "malformed input")                                                                             \
  X(CZK_ERR_UNSUPPORTED, 6, "unsupported")                                                                            \
  X(CZK_ERR_NOT_CANONICAL, 7, "field element not canonical (>= modulus)")                                             \
  X(CZK_ERR_NOT_ON_CURVE, 8, "point not on the curve")                                                                \
  X(CZK_ERR_NOT_IN_SUBGROUP, 9, "point not in the prime-order subgroup")                                              \
  X(CZK_ERR_BAD_FLAGS, 10, "inconsistent encoding flag bits")                                                         \
  X(CZK_ERR_NO_SQRT, 11, "no square root (x is not the abscissa of a curve point)")                                   \
  X(CZK_ERR_SIZE_MISMATCH, 12, "size or count mismatch")                                                              \
  X(CZK_ERR_VERIFY_FAILED, 13, "proof verification failed")                                                           \
  X(CZK_ERR_UNSATISFIED, 14, "witness does not satisfy the constraint system")                                        \
  X(CZK_ERR_NOT_FOUND, 15, "not found")                                                                               \
  X(CZK_ERR_EXISTS, 16, "already exists")                                                                             \
  X(CZK_ERR_CANCELLED, 17, "cancelled")                                                                               \
  X(CZK_ERR_TIMEOUT, 18, "timed out")                                                                                 \
  X(CZK_ERR_BUDGET, 19, "request can never fit the memory budget")                                                    \
  X(CZK_ERR_SHUTDOWN, 20, "shutting down")                                                                            \
  X(CZK_ERR_DEVICE, 21, "device error")                                                                               \
  X(CZK_ERR_NO_DEVICE, 22, "no such device")                                                                          \
  X(CZK_ERR_STATE, 23, "operation not valid in the current state")                                                    \
  X(CZK_ERR_LIMIT, 24, "input exceeds a configured limit")                                                            \
  X(CZK_ERR_RANDOM, 25, "the OS random source failed")                                                                \
  X(CZK_ERR_CONFIG, 26, "invalid configuration")                                                                      \
  X(CZK_ERR_INTERNAL, 27, "internal error")                                                                           \
  X(CZK_ERR_FILE_CHANGED, 28, "a key or shape file changed on disk while in use (truncated or rewritten in place)")

typedef enum czk_status {
#define CZK__STATUS_ENUM(name, value, text) name = value,
  CZK_STATUS_LIST(CZK__STATUS_ENUM)
#undef CZK__STATUS_ENUM
} czk_status;

/* Short human text for a status ("point not on the curve"); never NULL. */
CZK_API const char *czk_status_str(czk_status s);
/* The enumerator's name ("CZK_ERR_NOT_ON_CURVE"); never NULL. */
CZK_API const char *czk_status_name(czk_status s);

/* Propagate a failing status. */
#define CZK_TRY(expr)                                                                                                 \
  do {                                                                                                                \
    czk_status czk__st = (expr);                                                                                      \
    if (czk__st != CZK_OK) return czk__st;                                                                            \
  } while (0)

#endif
