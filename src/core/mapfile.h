/* mapfile.h: whole-file input. czk__file_map_*: read-only memory mapping of a whole file, shared by every reader of
 * large binary inputs (bellperson .params/.vk, circom .r1cs/.wtns, snarkjs .zkey, czk .r1cs shape files).
 * czk__read_file: a whole (small) file read into the heap, for JSON texts, proofs, request inputs and trace read-back.
 * Internal to czk (not a public header).
 * Invariants: after a successful open, data/len describe the whole regular file as it was at open time (a private,
 * read-only mapping, guarded against SIGBUS, its descriptor held open until close); an empty file gives {NULL, 0}. After close (also after a
 * failed open) the struct is {NULL, 0}; close is idempotent. czk__read_file never returns more than `limit` bytes;
 * on success the buffer is NUL-terminated (data[len] == 0, so a text file is a C string) and owned by the caller; on
 * failure *data is NULL and *len 0.
 *
 * A mapped file that someone else truncates (or that the disk fails to read) would raise SIGBUS on the next touch of a
 * page past the new end and kill the whole daemon. Design: every mapping is registered in a fixed, lock-free table,
 * and one process-wide SIGBUS handler, on a fault inside a registered range, replaces that whole range with
 * anonymous zero pages (mmap MAP_FIXED, a plain system call) and marks the mapping broken; the faulting load then
 * reads zeros and the code carries on. Every user of mapped data calls czk__file_map_check after using it (and
 * before trusting a result computed from it): broken, or a file whose size or mtime differ from those at open (a
 * rewrite in place that did not fault), gives CZK_ERR_FILE_CHANGED and the result is discarded.
 * Trade-off, against the alternatives: a sigsetjmp/siglongjmp recovery would have to be armed on every thread that
 * reads keys (thread-pool workers in the MSM) and may not jump out of a region that holds a lock or is mid-way in the
 * allocator; copying keys into anonymous memory would double peak memory for a PoRep key and lose the page cache's
 * sharing; validating identity alone cannot stop a fault that happens during a prove. The cost here is that a job
 * in flight when the file changes computes on zeros until its next check (one prove at most), and one descriptor is
 * held per mapping for the identity check. Faults outside registered ranges go to the previous handler (the default
 * one: the process dies as before, or the sanitizer's). Files czk itself writes never change in place
 * (core/atomicfile.h). */
#ifndef CZK_CORE_MAPFILE_H
#define CZK_CORE_MAPFILE_H

#include <stddef.h>
#include <stdint.h>

#include "czk/status.h"

typedef struct czk__file_map {
  const uint8_t *data;
  size_t len;
  int fd1;        /* descriptor + 1 of the mapped file, kept for the identity check; 0: none (a heap copy, empty) */
  unsigned slot1; /* guard-table slot + 1; 0: not guarded */
  int64_t size, mtime_s, mtime_ns; /* the file's identity at open */
} czk__file_map;

/* CZK_ERR_NOT_FOUND (no such file), CZK_ERR_IO (not a regular file, open/stat/mmap failure), CZK_ERR_LIMIT (larger than
 * the address space), CZK_ERR_NOMEM (mmap ENOMEM). */
czk_status czk__file_map_open(czk__file_map *m, const char *path);
void czk__file_map_close(czk__file_map *m);
/* CZK_OK while the mapped data is the file as it was at open; CZK_ERR_FILE_CHANGED once a read of it faulted
 * (truncated, I/O error) or the file's size or mtime changed; CZK_OK for a map without a file ({NULL, 0}, a heap
 * copy). Cheap (one fstat); safe to call from any thread. */
czk_status czk__file_map_check(const czk__file_map *m);

/* Reads all of `path` (a regular file, or a pipe / character device read to its end) into a malloc'd buffer of
 * len + 1 bytes, data[len] = 0; free with free(). CZK_ERR_NOT_FOUND (no such file), CZK_ERR_LIMIT (more than `limit`
 * bytes), CZK_ERR_IO (open/read failure, a directory), CZK_ERR_NOMEM, CZK_ERR_INVALID_ARG (NULL path). */
czk_status czk__read_file(const char *path, size_t limit, uint8_t **data, size_t *len);

#endif
