/* mapfile.h: whole-file input. czk__file_map_*: read-only memory mapping of a whole file, shared by every reader of
 * large binary inputs (bellperson .params/.vk, circom .r1cs/.wtns, snarkjs .zkey, czk .r1cs shape files).
 * czk__read_file: a whole (small) file read into the heap, for JSON texts, proofs, request inputs and trace read-back.
 * Internal to czk (not a public header).
 * Invariants: after a successful open, data/len describe the whole regular file as it was at open time (a private,
 * read-only mapping; the descriptor is already closed); an empty file gives {NULL, 0}. After close (also after a
 * failed open) the struct is {NULL, 0}; close is idempotent. czk__read_file never returns more than `limit` bytes;
 * on success the buffer is NUL-terminated (data[len] == 0, so a text file is a C string) and owned by the caller; on
 * failure *data is NULL and *len 0. */
#ifndef CZK_CORE_MAPFILE_H
#define CZK_CORE_MAPFILE_H

#include <stddef.h>
#include <stdint.h>

#include "czk/status.h"

typedef struct czk__file_map {
  const uint8_t *data;
  size_t len;
} czk__file_map;

/* CZK_ERR_NOT_FOUND (no such file), CZK_ERR_IO (not a regular file, open/stat/mmap failure), CZK_ERR_LIMIT (larger than
 * the address space), CZK_ERR_NOMEM (mmap ENOMEM). */
czk_status czk__file_map_open(czk__file_map *m, const char *path);
void czk__file_map_close(czk__file_map *m);

/* Reads all of `path` (a regular file, or a pipe / character device read to its end) into a malloc'd buffer of
 * len + 1 bytes, data[len] = 0; free with free(). CZK_ERR_NOT_FOUND (no such file), CZK_ERR_LIMIT (more than `limit`
 * bytes), CZK_ERR_IO (open/read failure, a directory), CZK_ERR_NOMEM, CZK_ERR_INVALID_ARG (NULL path). */
czk_status czk__read_file(const char *path, size_t limit, uint8_t **data, size_t *len);

#endif
