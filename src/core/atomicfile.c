/* atomicfile.c: temp + fsync + rename (see atomicfile.h). The temporary name carries the pid and a process-wide
 * counter and is created with O_EXCL, so two writers of one target (two threads, two daemons) never share a temporary
 * file; the last rename wins, and each reader sees one whole file. Mode 0666 goes through the umask, as fopen's. */
#include "core/atomicfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static atomic_uint g_seq;

czk_status czk__afile_open(czk__afile *a, const char *path, const char *mode) {
  memset(a, 0, sizeof *a);
  if (!path || !*path || !mode) return CZK_ERR_INVALID_ARG;
  size_t n = strlen(path) + 48;
  a->path = strdup(path);
  a->tmp = malloc(n);
  if (!a->path || !a->tmp) {
    czk__afile_abort(a);
    return CZK_ERR_NOMEM;
  }
  int fd = -1;
  for (int tries = 0; tries < 100 && fd < 0; tries++) {
    snprintf(a->tmp, n, "%s.tmp.%ld.%u", path, (long)getpid(), atomic_fetch_add(&g_seq, 1u));
    fd = open(a->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) {
    int err = errno;
    free(a->path);
    free(a->tmp);
    memset(a, 0, sizeof *a);
    errno = err;
    return CZK_ERR_IO;
  }
  a->f = fdopen(fd, mode);
  if (!a->f) {
    close(fd);
    czk__afile_abort(a);
    return CZK_ERR_IO;
  }
  return CZK_OK;
}

/* fsync the directory holding path, so the rename itself is durable. */
static void sync_dir(const char *path) {
  const char *slash = strrchr(path, '/');
  char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
  if (!dir) return;
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    (void)fsync(fd);
    close(fd);
  }
  free(dir);
}

czk_status czk__afile_commit(czk__afile *a) {
  if (!a->f) {
    czk__afile_abort(a);
    return CZK_ERR_INVALID_ARG;
  }
  bool ok = fflush(a->f) == 0 && !ferror(a->f);
  ok = ok && fsync(fileno(a->f)) == 0;
  ok = (fclose(a->f) == 0) && ok;
  a->f = NULL;
  ok = ok && rename(a->tmp, a->path) == 0;
  if (!ok) {
    czk__afile_abort(a);
    return CZK_ERR_IO;
  }
  sync_dir(a->path);
  free(a->path);
  free(a->tmp);
  memset(a, 0, sizeof *a);
  return CZK_OK;
}

void czk__afile_abort(czk__afile *a) {
  if (a->f) fclose(a->f);
  if (a->tmp) unlink(a->tmp);
  free(a->path);
  free(a->tmp);
  memset(a, 0, sizeof *a);
}

czk_status czk__write_file_atomic(const char *path, const void *data, size_t len) {
  czk__afile a;
  CZK_TRY(czk__afile_open(&a, path, "wb"));
  if (len && fwrite(data, 1, len, a.f) != len) {
    czk__afile_abort(&a);
    return CZK_ERR_IO;
  }
  return czk__afile_commit(&a);
}
