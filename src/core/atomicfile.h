/* atomicfile.h: whole-file output that never changes a file in place. Every file czk writes (keys, shape caches,
 * proofs, request and trace files) goes through it: the bytes are written to a new temporary file in the target's
 * directory (<path>.tmp.<pid>.<n>, created exclusively), flushed and fsync'd, then renamed over the target, and the
 * directory is fsync'd. A reader (or another process) that has the old file open or mapped keeps the old inode,
 * unchanged; a crash leaves either the old file or the new one, never a mix (at worst a stray .tmp file).
 * Internal to czk (not a public header).
 * Invariants: after open succeeds, a->f is a stdio stream on the temporary file; exactly one of commit / abort must
 * follow; both close the stream, and neither leaves the temporary file behind. */
#ifndef CZK_CORE_ATOMICFILE_H
#define CZK_CORE_ATOMICFILE_H

#include <stdio.h>

#include "czk/status.h"

typedef struct czk__afile {
  FILE *f;
  char *path; /* the target */
  char *tmp;  /* the temporary file */
} czk__afile;

/* mode: "w" or "wb". CZK_ERR_IO (cannot create the temporary file, with errno kept), CZK_ERR_NOMEM,
 * CZK_ERR_INVALID_ARG. On failure a is zeroed. */
czk_status czk__afile_open(czk__afile *a, const char *path, const char *mode);
/* Flush, fsync, close and rename over the target; CZK_ERR_IO when any step failed or the stream had an error (the
 * temporary file is then removed and the target left as it was). */
czk_status czk__afile_commit(czk__afile *a);
/* Close and remove the temporary file; the target is left as it was. Idempotent on a zeroed struct. */
void czk__afile_abort(czk__afile *a);
/* The whole of data[0..len) as path, through open / fwrite / commit. CZK_OK or the first failure (CZK_ERR_IO ...). */
czk_status czk__write_file_atomic(const char *path, const void *data, size_t len);

#endif
