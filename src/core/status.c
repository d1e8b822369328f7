/* status.c: text for every status code, generated from the one X-macro list in czk/status.h. */
#include "czk/status.h"

const char *czk_status_str(czk_status s) {
  switch (s) {
#define CZK__STATUS_STR(name, value, text)                                                                            \
  case name: return text;
    CZK_STATUS_LIST(CZK__STATUS_STR)
#undef CZK__STATUS_STR
  }
  return "unknown status";
}

const char *czk_status_name(czk_status s) {
  switch (s) {
#define CZK__STATUS_NAME(name, value, text)                                                                           \
  case name: return #name;
    CZK_STATUS_LIST(CZK__STATUS_NAME)
#undef CZK__STATUS_NAME
  }
  return "CZK_UNKNOWN";
}
