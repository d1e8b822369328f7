/* mapfile.c: czk__file_map_open / czk__file_map_close and czk__read_file (see mapfile.h for the contracts).
 * Mapping: one open + fstat + mmap, registered with the SIGBUS guard (mapfile.h); the descriptor stays open for the
 * identity check of czk__file_map_check and is closed with the mapping. Reading: the buffer starts at the file's size + 1 (regular files, so one read reaches EOF) or 4 KiB and
 * doubles up to limit + 1 bytes; reading limit + 1 bytes means the file is too large. */
#include "core/mapfile.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fault.h"

/* ------------------------------------------------------------------------------------------------ SIGBUS guard */
/* A slot is claimed by CAS on state (0 free, 1 taken); start != 0 publishes it to the handler; close clears start
 * before the range is unmapped. The handler only reads the table and calls mmap: async-signal-safe in practice. */
#define GUARD_SLOTS 1024
typedef struct guard_slot {
  atomic_int state;
  _Atomic uintptr_t start;
  _Atomic size_t len; /* rounded up to whole pages */
  atomic_int broken;
} guard_slot;
static guard_slot g_guard[GUARD_SLOTS];
static struct sigaction g_prev;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static bool g_installed;

static void on_sigbus(int sig, siginfo_t *si, void *uc) {
  int saved = errno;
  uintptr_t a = (uintptr_t)si->si_addr;
  for (unsigned i = 0; i < GUARD_SLOTS; i++) {
    uintptr_t s = atomic_load(&g_guard[i].start);
    size_t n = atomic_load(&g_guard[i].len);
    if (s && a - s < n) {
      void *p = mmap((void *)s, n, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
      if (p != MAP_FAILED) {
        atomic_store(&g_guard[i].broken, 1);
        errno = saved;
        return; /* the faulting load is retried and reads zeros */
      }
    }
  }
  /* not ours: what would have happened without us */
  if ((g_prev.sa_flags & SA_SIGINFO) && g_prev.sa_sigaction) {
    g_prev.sa_sigaction(sig, si, uc);
  } else if (g_prev.sa_handler != SIG_DFL && g_prev.sa_handler != SIG_IGN) {
    g_prev.sa_handler(sig);
  } else {
    signal(SIGBUS, SIG_DFL); /* the load faults again and the default action ends the process */
  }
  errno = saved;
}

static void install(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_sigbus;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  g_installed = sigaction(SIGBUS, &sa, &g_prev) == 0;
}

static unsigned guard_add(const void *p, size_t len) {
  pthread_once(&g_once, install);
  if (!g_installed) return 0;
  long pg = sysconf(_SC_PAGESIZE);
  size_t page = pg > 0 ? (size_t)pg : 4096;
  size_t n = (len + page - 1) / page * page;
  for (unsigned i = 0; i < GUARD_SLOTS; i++) {
    int z = 0;
    if (atomic_compare_exchange_strong(&g_guard[i].state, &z, 1)) {
      atomic_store(&g_guard[i].broken, 0);
      atomic_store(&g_guard[i].len, n);
      atomic_store(&g_guard[i].start, (uintptr_t)p);
      return i + 1;
    }
  }
  return 0;
}

static void guard_remove(unsigned slot1) {
  if (!slot1) return;
  guard_slot *g = &g_guard[slot1 - 1];
  atomic_store(&g->start, 0);
  atomic_store(&g->len, 0);
  atomic_store(&g->state, 0);
}

/* ------------------------------------------------------------------------------------------------ map */
/* The whole file read into anonymous memory: the fallback when the guard table is full (or no handler could be
 * installed), so an unguarded mapping of a file is never handed out. */
static czk_status read_into_anon(czk__file_map *m, int fd, size_t len) {
  void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return CZK_ERR_NOMEM;
  size_t got = 0;
  while (got < len) {
    ssize_t r = pread(fd, (uint8_t *)p + got, len - got, (off_t)got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      munmap(p, len);
      return r == 0 ? CZK_ERR_TRUNCATED : CZK_ERR_IO;
    }
    got += (size_t)r;
  }
  mprotect(p, len, PROT_READ);
  m->data = p;
  m->len = len;
  return CZK_OK;
}

czk_status czk__file_map_open(czk__file_map *m, const char *path) {
  memset(m, 0, sizeof *m);
  if (!path) return CZK_ERR_INVALID_ARG;
  if (czk_fault("file.map")) return CZK_ERR_IO;
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
  m->size = (int64_t)st.st_size;
  m->mtime_s = (int64_t)st.st_mtim.tv_sec;
  m->mtime_ns = (int64_t)st.st_mtim.tv_nsec;
  void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  int err = errno;
  if (p == MAP_FAILED) {
    close(fd);
    memset(m, 0, sizeof *m);
    return err == ENOMEM ? CZK_ERR_NOMEM : CZK_ERR_IO;
  }
  m->slot1 = guard_add(p, (size_t)st.st_size);
  if (!m->slot1) {
    munmap(p, (size_t)st.st_size);
    czk_status rs = read_into_anon(m, fd, (size_t)st.st_size);
    if (rs != CZK_OK) {
      close(fd);
      memset(m, 0, sizeof *m);
      return rs;
    }
  } else {
    m->data = p;
    m->len = (size_t)st.st_size;
  }
  m->fd1 = fd + 1;
  return CZK_OK;
}

void czk__file_map_close(czk__file_map *m) {
  guard_remove(m->slot1);
  if (m->data) munmap((void *)m->data, m->len);
  if (m->fd1) close(m->fd1 - 1);
  memset(m, 0, sizeof *m);
}

czk_status czk__file_map_check(const czk__file_map *m) {
  if (m->slot1 && atomic_load(&g_guard[m->slot1 - 1].broken)) return CZK_ERR_FILE_CHANGED;
  if (!m->fd1) return CZK_OK;
  struct stat st;
  if (fstat(m->fd1 - 1, &st) != 0) return CZK_ERR_FILE_CHANGED;
  if ((int64_t)st.st_size != m->size || (int64_t)st.st_mtim.tv_sec != m->mtime_s ||
      (int64_t)st.st_mtim.tv_nsec != m->mtime_ns)
    return CZK_ERR_FILE_CHANGED;
  /* a fault may have come between the flag test and fstat: test it again */
  if (m->slot1 && atomic_load(&g_guard[m->slot1 - 1].broken)) return CZK_ERR_FILE_CHANGED;
  return CZK_OK;
}

czk_status czk__read_file(const char *path, size_t limit, uint8_t **data, size_t *len) {
  *data = NULL;
  *len = 0;
  if (!path) return CZK_ERR_INVALID_ARG;
  if (czk_fault("file.read")) return CZK_ERR_IO;
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
