/* units.c: czk__parse_size / czk__parse_duration_ms (contract in units.h).
 * Method: the integer part is read exactly (strtoull, base 10, digits only), an optional fraction of up to 19 digits
 * as an integer numerator over 10^digits; the value is int * mult + floor(frac * mult / 10^digits) with every step
 * checked against uint64_t overflow (the fraction product is done in 128 bits). */
#include "core/units.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct unit {
  const char *name;
  uint64_t mult;
} unit;

/* Parses "<digits>[.<digits>]<ws><unit><ws>" with the unit from tab (the order of tab does not matter: a name matches
 * only when nothing but white space follows it). whole_base: no fraction when the unit's multiplier is 1. */
static bool parse_scaled(const char *s, const unit *tab, size_t ntab, bool whole_base, uint64_t *out) {
  if (!s) return false;
  while (isspace((unsigned char)*s)) s++;
  if (!isdigit((unsigned char)*s)) return false;
  errno = 0;
  char *end;
  unsigned long long ip = strtoull(s, &end, 10);
  if (errno) return false;
  uint64_t fnum = 0, fden = 1;
  bool has_frac = false;
  if (*end == '.') {
    end++;
    if (!isdigit((unsigned char)*end)) return false;
    has_frac = true;
    for (; isdigit((unsigned char)*end); end++)
      if (fden < 1000000000000000000ull) { /* the first 18 digits; later ones are below any multiplier's unit */
        fnum = fnum * 10 + (uint64_t)(*end - '0');
        fden *= 10;
      }
  }
  while (isspace((unsigned char)*end)) end++;
  for (size_t i = 0; i < ntab; i++) {
    size_t ul = strlen(tab[i].name);
    if (strncmp(end, tab[i].name, ul) != 0) continue;
    const char *rest = end + ul;
    while (isspace((unsigned char)*rest)) rest++;
    if (*rest) continue;
    uint64_t m = tab[i].mult;
    if (has_frac && m == 1 && whole_base) return false;
    if (ip > UINT64_MAX / m) return false;
    uint64_t v = (uint64_t)ip * m;
    uint64_t f = (uint64_t)((unsigned __int128)fnum * m / fden);
    if (v > UINT64_MAX - f) return false;
    *out = v + f;
    return true;
  }
  return false;
}

bool czk__parse_size(const char *s, uint64_t *out) {
  static const unit k_units[] = {{"", 1},
                                 {"B", 1},
                                 {"KiB", 1ull << 10},
                                 {"MiB", 1ull << 20},
                                 {"GiB", 1ull << 30},
                                 {"TiB", 1ull << 40},
                                 {"K", 1000ull},
                                 {"KB", 1000ull},
                                 {"M", 1000000ull},
                                 {"MB", 1000000ull},
                                 {"G", 1000000000ull},
                                 {"GB", 1000000000ull},
                                 {"T", 1000000000000ull},
                                 {"TB", 1000000000000ull}};
  return parse_scaled(s, k_units, sizeof k_units / sizeof k_units[0], true, out);
}

bool czk__parse_duration_ms(const char *s, uint64_t *out) {
  static const unit k_units[] = {{"", 1000}, {"s", 1000}, {"ms", 1}, {"m", 60000}, {"h", 3600000}};
  return parse_scaled(s, k_units, sizeof k_units / sizeof k_units[0], false, out);
}

bool czk__wants_help(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) return true;
  return false;
}
