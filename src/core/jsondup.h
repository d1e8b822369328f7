/* jsondup.h: duplicate object keys in a JSON text. json-c (like most parsers) silently keeps the last of two equal
 * keys, snarkjs's JavaScript too, while other readers keep the first: one file, two meanings. Every JSON input czk
 * reads with json-c is refused when an object repeats a key (issue 22, defect 10). Internal to czk.
 * Keys are compared after unescaping (so "a" and "\u0061" are the same key), as JSON defines equality of names. */
#ifndef CZK_CORE_JSONDUP_H
#define CZK_CORE_JSONDUP_H

#include <stdbool.h>
#include <stddef.h>

/* Scans text[0..len), a text a JSON parser has already accepted. True when some object has two equal keys; the
 * first such key (unescaped, NUL-terminated, cut to key_cap - 1 bytes; control bytes shown as '?') goes to key.
 * False when every object's keys are distinct (or on out of memory, reported as a duplicate named "(out of memory)"
 * instead: true). */
bool czk__json_duplicate_key(const char *text, size_t len, char *key, size_t key_cap);

#endif
