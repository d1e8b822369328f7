/* mapfile.c: czk__file_map_open / czk__file_map_close (see mapfile.h for the contract). One open + fstat + mmap; the
 * descriptor is closed right after mapping, so a mapping holds no file descriptor. */
#include "core/mapfile.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

czk_status czk__file_map_open(czk__file_map *m, const char *path) {
  m->data = NULL;
  m->len = 0;
  if (!path) return CZK_ERR_INVALID_ARG;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT ? CZK_ERR_NOT_FOUND : CZK_ERR_IO;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return CZK_ERR_IO;
  }
  if (st.st_size == 0) {
    close(fd);
    return CZK_OK;
  }
  if ((uint64_t)st.st_size > SIZE_MAX) {
    close(fd);
    return CZK_ERR_LIMIT;
  }
  void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  int err = errno;
  close(fd);
  if (p == MAP_FAILED) return err == ENOMEM ? CZK_ERR_NOMEM : CZK_ERR_IO;
  m->data = p;
  m->len = (size_t)st.st_size;
  return CZK_OK;
}

void czk__file_map_close(czk__file_map *m) {
  if (m->data) munmap((void *)m->data, m->len);
  m->data = NULL;
  m->len = 0;
}
