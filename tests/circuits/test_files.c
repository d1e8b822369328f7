/* test_files.c: files czk writes never change in place (core/atomicfile.h), and a mapped file that someone else
 * truncates or rewrites in place is an error of that file, not a SIGBUS that kills the process (core/mapfile.h), down
 * to czk's shape reader (czk_r1cs_load / czk_r1cs_check_file). Issue 22, defect 1: before, each of the truncation
 * cases below died of SIGBUS, and rewriting a shape with czk_r1cs_save truncated the file a reader had mapped. */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "circuits/synthetic.h"
#include "core/atomicfile.h"
#include "core/mapfile.h"
#include "czk/cs.h"
#include "czk/status.h"
#include "czk_test.h"

static char g_dir[256];

static void path_in(char *out, size_t cap, const char *name) { snprintf(out, cap, "%s/%s", g_dir, name); }

static void write_pattern(const char *path, size_t len, uint8_t byte) {
  uint8_t *b = malloc(len);
  memset(b, byte, len);
  FILE *f = fopen(path, "wb");
  CHECK(f && fwrite(b, 1, len, f) == len);
  if (f) fclose(f);
  free(b);
  /* an mtime well in the past, so that any later write shows in the identity check */
  struct timespec ts[2] = {{1000000000, 0}, {1000000000, 0}};
  CHECK(utimensat(AT_FDCWD, path, ts, 0) == 0);
}

static int count_tmp_files(void) {
  int n = 0;
  DIR *d = opendir(g_dir);
  struct dirent *e;
  while (d && (e = readdir(d)))
    if (strstr(e->d_name, ".tmp")) n++;
  if (d) closedir(d);
  return n;
}

static uint64_t sum(const uint8_t *p, size_t n) {
  uint64_t s = 0;
  for (size_t i = 0; i < n; i++) s += p[i];
  return s;
}

/* Rewriting a file through czk__write_file_atomic leaves a reader's mapping whole and unchanged. */
static void test_atomic_rewrite(void) {
  char p[512];
  path_in(p, sizeof p, "a.bin");
  write_pattern(p, 3 * 4096 + 7, 0xab);
  czk__file_map m;
  CHECK(czk__file_map_open(&m, p) == CZK_OK);
  CHECK(czk__write_file_atomic(p, "new", 3) == CZK_OK);
  CHECK(m.len == 3 * 4096 + 7 && sum(m.data, m.len) == (uint64_t)0xab * m.len);
  CHECK(czk__file_map_check(&m) == CZK_OK); /* our inode did not change */
  czk__file_map_close(&m);
  uint8_t *d = NULL;
  size_t n = 0;
  CHECK(czk__read_file(p, 100, &d, &n) == CZK_OK && n == 3 && memcmp(d, "new", 3) == 0);
  free(d);
  /* abort leaves the target alone and no temporary file behind */
  czk__afile af;
  CHECK(czk__afile_open(&af, p, "wb") == CZK_OK);
  fputs("discarded", af.f);
  czk__afile_abort(&af);
  CHECK(czk__read_file(p, 100, &d, &n) == CZK_OK && n == 3);
  free(d);
  CHECK_EQ_INT(count_tmp_files(), 0);
  /* a directory that does not exist: an error, nothing written */
  char q[600];
  snprintf(q, sizeof q, "%s/no/such/x", g_dir);
  CHECK(czk__write_file_atomic(q, "x", 1) == CZK_ERR_IO);
}

/* Truncated under the mapping: every read of the vanished pages returns (zeros), the check reports the change. */
static void test_truncate_mapped(void) {
  char p[512];
  path_in(p, sizeof p, "t.bin");
  write_pattern(p, 5 * 4096, 0x11);
  czk__file_map m;
  CHECK(czk__file_map_open(&m, p) == CZK_OK);
  CHECK(czk__file_map_check(&m) == CZK_OK);
  CHECK(m.data[0] == 0x11); /* one page read before */
  CHECK(truncate(p, 0) == 0);
  uint64_t s = sum(m.data, m.len); /* SIGBUS here before the fix */
  CHECK(s <= (uint64_t)0x11 * 4096);
  CHECK(czk__file_map_check(&m) == CZK_ERR_FILE_CHANGED);
  czk__file_map_close(&m);
  /* the slot is free again: the next mapping of the (now re-extended) file is clean */
  write_pattern(p, 2 * 4096, 0x22);
  CHECK(czk__file_map_open(&m, p) == CZK_OK);
  CHECK(sum(m.data, m.len) == (uint64_t)0x22 * 2 * 4096);
  CHECK(czk__file_map_check(&m) == CZK_OK);
  czk__file_map_close(&m);
}

/* Rewritten in place without shrinking (no fault at all): the identity check sees it. */
static void test_rewrite_in_place(void) {
  char p[512];
  path_in(p, sizeof p, "w.bin");
  write_pattern(p, 4096, 0x33);
  czk__file_map m;
  CHECK(czk__file_map_open(&m, p) == CZK_OK);
  int fd = open(p, O_WRONLY);
  CHECK(fd >= 0 && pwrite(fd, "x", 1, 10) == 1);
  if (fd >= 0) close(fd);
  CHECK(czk__file_map_check(&m) == CZK_ERR_FILE_CHANGED);
  czk__file_map_close(&m);
  czk__file_map heap = {0};
  CHECK(czk__file_map_check(&heap) == CZK_OK);
}

/* czk's shape reader: a loaded shape whose file is truncated reads zeros and reports the change; re-saving a shape
 * over a loaded one (czk_r1cs_save) leaves the loaded one intact. */
static void test_shape_file(void) {
  char p[512];
  path_in(p, sizeof p, "shape.r1cs");
  czk_r1cs *s = NULL, *l = NULL, *l2 = NULL;
  CHECK(czk_synthetic_shape(&s, 10) == CZK_OK);
  CHECK(s && czk_r1cs_save(s, p) == CZK_OK);
  CHECK(czk_r1cs_load(&l, p) == CZK_OK);
  CHECK(l && czk_r1cs_check_file(l) == CZK_OK);
  CHECK(czk_r1cs_save(s, p) == CZK_OK); /* before: "wb" in place truncated l's file under it */
  CHECK(l && czk_r1cs_check_file(l) == CZK_OK);
  CHECK(czk_r1cs_load(&l2, p) == CZK_OK);
  if (l && l2) {
    CHECK(l->a.nnz == l2->a.nnz && memcmp(l->a.col, l2->a.col, l->a.nnz * 4) == 0);
    CHECK(truncate(p, 64) == 0);
    uint64_t t = 0;
    const czk_csr *mats[3] = {&l2->a, &l2->b, &l2->c};
    for (int k = 0; k < 3; k++)
      for (uint64_t i = 0; i < mats[k]->nnz; i++) t += mats[k]->col[i]; /* SIGBUS here before the fix */
    CHECK(t < UINT64_MAX);
    CHECK(czk_r1cs_check_file(l2) == CZK_ERR_FILE_CHANGED);
    CHECK(czk_r1cs_check_file(l) == CZK_OK); /* the older inode was never touched */
    czk_r1cs *l3 = NULL; /* the truncated cache: refused, naming nothing worse than truncation */
    CHECK(czk_r1cs_load(&l3, p) == CZK_ERR_TRUNCATED && l3 == NULL);
  }
  czk_r1cs_free(l);
  czk_r1cs_free(l2);
  czk_r1cs_free(s);
  CHECK_EQ_INT(count_tmp_files(), 0);
}

int main(void) {
  snprintf(g_dir, sizeof g_dir, "/tmp/czk-test-files-XXXXXX");
  if (!mkdtemp(g_dir)) return 2;
  test_atomic_rewrite();
  test_truncate_mapped();
  test_rewrite_in_place();
  test_shape_file();
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
  if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", g_dir);
  return czk_test_done("test_files");
}
