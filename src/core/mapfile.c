/* mapfile.c: czk__file_map_open / czk__file_map_close and czk__read_file (see mapfile.h for the contracts).
 * Mapping: one open + fstat + mmap; the descriptor is closed right after mapping, so a mapping holds no file
 * descriptor. Reading: the buffer starts at the file's size + 1 (regular files, so one read reaches EOF) or 4 KiB and
 * doubles up to limit + 1 bytes; reading limit + 1 bytes means the file is too large. */
#include "core/mapfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
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

czk_status czk__read_file(const char *path, size_t limit, uint8_t **data, size_t *len) {
  *data = NULL;
  *len = 0;
  if (!path) return CZK_ERR_INVALID_ARG;
  if (limit > SIZE_MAX / 2) limit = SIZE_MAX / 2; /* so limit + 2 cannot overflow */
  FILE *f = fopen(path, "rb");
  if (!f) return errno == ENOENT ? CZK_ERR_NOT_FOUND : CZK_ERR_IO;
  struct stat sb;
  if (fstat(fileno(f), &sb) != 0 || S_ISDIR(sb.st_mode)) {
    fclose(f);
    return CZK_ERR_IO;
  }
  if (S_ISREG(sb.st_mode) && (uint64_t)sb.st_size > limit) {
    fclose(f);
    return CZK_ERR_LIMIT;
  }
  /* cap: data bytes the buffer holds (it has one more for the NUL); never more than limit + 1. */
  size_t cap = S_ISREG(sb.st_mode) ? (size_t)sb.st_size + 1 : (limit < 4096 ? limit + 1 : 4096);
  size_t n = 0;
  uint8_t *buf = malloc(cap + 1);
  czk_status st = buf ? CZK_OK : CZK_ERR_NOMEM;
  while (st == CZK_OK) {
    if (n == cap) {
      if (n > limit) {
        st = CZK_ERR_LIMIT; /* the file grew past limit after fstat, or a stream is longer */
        break;
      }
      size_t ncap = cap <= (limit + 1) / 2 ? cap * 2 : limit + 1;
      uint8_t *nb = realloc(buf, ncap + 1);
      if (!nb) {
        st = CZK_ERR_NOMEM;
        break;
      }
      buf = nb;
      cap = ncap;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0) {
      if (ferror(f)) st = CZK_ERR_IO;
      break;
    }
  }
  fclose(f);
  if (st != CZK_OK) {
    free(buf);
    return st;
  }
  buf[n] = 0;
  *data = buf;
  *len = n;
  return CZK_OK;
}
