/* units.h: parsers for human-written sizes and durations, shared by the daemon config (api/config.c) and the CLI
 * (czk hash --sector-size). Internal to czk. Both accept optional white space around the number and the unit and
 * return false (leaving *out untouched) on anything else: junk, a sign, overflow of uint64_t. */
#ifndef CZK_CORE_UNITS_H
#define CZK_CORE_UNITS_H

#include <stdbool.h>
#include <stdint.h>

/* Bytes: "<n>[.<frac>][unit]", unit one of B, KiB, MiB, GiB, TiB (binary) or K, KB, M, MB, G, GB, T, TB (decimal);
 * no unit = bytes. The integer part is exact; a fraction needs a unit above bytes and is rounded down
 * ("1.5GiB" = 3 * 2^29). */
bool czk__parse_size(const char *s, uint64_t *out);
/* Milliseconds: "<n>[.<frac>][unit]", unit ms, s (default), m, h ("30s", "500ms", "2m", "1h", "10" = 10 s); a
 * fraction is rounded down to whole milliseconds. */
bool czk__parse_duration_ms(const char *s, uint64_t *out);
/* True when argv[1..argc) holds -h or --help (every command and benchmark answers --help). */
bool czk__wants_help(int argc, char **argv);

#endif
