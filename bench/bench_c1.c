/* bench_c1.c: `czk bench c1`: the PoRep C1 reader (czk_porep_c1_read, the daemon's path: cuzk's envelope or a bare
 * C1 output) on a file: parse time and peak memory against the input's size.
 *
 * Method (Linux): the input is read (and with --envelope wrapped in cuzk's envelope, base64 as Curio sends it) in the
 * parent; every run parses it in a freshly forked child, so each starts from the same heap and its high-water mark is
 * the parser's: base = VmRSS before the parse (the input included), the peak RSS counter is reset (`5` written to
 * /proc/self/clear_refs; VmHWM becomes the current RSS), the input is parsed and freed, peak = VmHWM - base. The table
 * gives the median, min and max wall time over the runs, the median CPU time of the parsing process (user + system:
 * it includes the page faults, and is the steadier figure on a busy machine) and the largest peak, also as a multiple
 * of the input's size. A valid 32 GiB input: czk gen-vanilla porep --sector-size 32GiB --out D (D/c1.json, D/c1-envelope.json). Never asserts on time or size. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/bench.h"
#include "bench/bench_util.h"
#include "core/clock.h"
#include "czk/porep.h"

typedef struct c1_result {
  int ok;
  char err[256];
  double secs, cpu; /* wall and process CPU time of the parse */
  uint64_t base, peak; /* bytes: RSS before the parse, and its high-water mark over that */
  bool peak_reset;
  char name[48];
  uint32_t partitions, challenges;
  uint64_t sector_num, sector_size;
} c1_result;

static void parse_once(const uint8_t *in, size_t len, c1_result *r) {
  memset(r, 0, sizeof *r);
  r->peak_reset = czk__bench_reset_peak() == 0;
  r->base = czk__bench_proc_bytes("VmRSS");
  czk_porep_c1 c1;
  double t0 = czk__now_s(), c0 = czk__bench_now_ns(CLOCK_PROCESS_CPUTIME_ID) * 1e-9;
  czk_status st = czk_porep_c1_read(&c1, in, len, &r->sector_num, &r->sector_size, r->err, sizeof r->err);
  r->secs = czk__now_s() - t0;
  r->cpu = czk__bench_now_ns(CLOCK_PROCESS_CPUTIME_ID) * 1e-9 - c0;
  uint64_t hwm = czk__bench_proc_bytes("VmHWM");
  r->peak = hwm > r->base ? hwm - r->base : 0;
  if (st != CZK_OK) return;
  snprintf(r->name, sizeof r->name, "%s", c1.info->name);
  r->partitions = c1.partitions;
  r->challenges = c1.challenges;
  czk_porep_c1_free(&c1);
  r->ok = 1;
}

static int run_forked(const uint8_t *in, size_t len, c1_result *r) {
  int fd[2];
  if (pipe(fd) != 0) return -1;
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    close(fd[0]);
    close(fd[1]);
    return -1;
  }
  if (pid == 0) {
    close(fd[0]);
    c1_result res;
    parse_once(in, len, &res);
    ssize_t w = write(fd[1], &res, sizeof res);
    _exit(w == (ssize_t)sizeof res ? 0 : 1);
  }
  close(fd[1]);
  memset(r, 0, sizeof *r);
  size_t got = 0;
  while (got < sizeof *r) {
    ssize_t n = read(fd[0], (char *)r + got, sizeof *r - got);
    if (n <= 0) break;
    got += (size_t)n;
  }
  close(fd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (got != sizeof *r) {
    snprintf(r->err, sizeof r->err, "child died (status %d)", status);
    r->ok = 0;
  }
  return r->ok ? 0 : -1;
}

static char *base64(const uint8_t *in, size_t n, size_t *out_len) {
  static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  char *o = malloc(4 * (n / 3 + 1) + 1), *q = o;
  if (!o) return NULL;
  for (size_t i = 0; i < n; i += 3) {
    uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) | (i + 2 < n ? in[i + 2] : 0);
    *q++ = t[v >> 18], *q++ = t[(v >> 12) & 63];
    *q++ = i + 1 < n ? t[(v >> 6) & 63] : '=';
    *q++ = i + 2 < n ? t[v & 63] : '=';
  }
  *q = 0;
  *out_len = (size_t)(q - o);
  return o;
}

static double mib(uint64_t b) { return (double)b / (1024.0 * 1024.0); }

int czk_bench_c1(int argc, char **argv) {
  const char *input = NULL;
  bool envelope = false;
  int runs = 5;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      printf("usage: czk bench c1 --input FILE [--envelope] [--runs N]\n"
             "  parses FILE (a PoRep C1 output JSON, or cuzk's envelope around one) with czk_porep_c1_read, the\n"
             "  daemon's reader, N times (default 5), each in a fresh forked child; prints the input's size, the\n"
             "  median / min / max parse time, and the peak RSS over the RSS before the parse (VmHWM after resetting\n"
             "  it through /proc/self/clear_refs), also as a multiple of the input's size.\n"
             "  --envelope: wrap FILE (a bare C1) in cuzk's envelope {\"SectorNum\":1,\"Phase1Out\":base64,\n"
             "  \"SectorSize\":s} first, as Curio sends it. A 32 GiB input: czk gen-vanilla porep --sector-size 32GiB --out D.\n"
             "  Linux only (/proc/self/status).\n");
      return 0;
    }
    if (strcmp(argv[i], "--envelope") == 0) {
      envelope = true;
      continue;
    }
    if (i + 1 >= argc) {
      fprintf(stderr, "czk bench c1: %s needs a value\n", argv[i]);
      return 2;
    }
    if (strcmp(argv[i], "--input") == 0) {
      input = argv[++i];
    } else if (strcmp(argv[i], "--runs") == 0) {
      runs = atoi(argv[++i]);
      if (runs < 1 || runs > 1000) {
        fprintf(stderr, "czk bench c1: --runs must be 1..1000\n");
        return 2;
      }
    } else {
      fprintf(stderr, "czk bench c1: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  if (!input) {
    fprintf(stderr, "czk bench c1: --input FILE is required (czk bench c1 --help)\n");
    return 2;
  }
  FILE *f = fopen(input, "rb");
  long fl = f && fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
  uint8_t *buf = fl >= 0 && fseek(f, 0, SEEK_SET) == 0 ? malloc((size_t)fl + 1) : NULL;
  size_t len = buf ? fread(buf, 1, (size_t)fl, f) : 0;
  if (f) fclose(f);
  if (!buf || len != (size_t)fl) {
    fprintf(stderr, "czk bench c1: cannot read %s\n", input);
    free(buf);
    return 1;
  }
  size_t file_len = len;
  if (envelope) {
    size_t bl = 0;
    char *b64 = base64(buf, len, &bl);
    size_t cap = bl + 96;
    uint8_t *env = b64 ? malloc(cap) : NULL;
    if (!env) {
      fprintf(stderr, "czk bench c1: out of memory\n");
      free(b64);
      free(buf);
      return 1;
    }
    int n = snprintf((char *)env, cap, "{\"SectorNum\":1,\"Phase1Out\":\"%s\",\"SectorSize\":0}", b64);
    free(b64);
    free(buf);
    buf = env;
    len = (size_t)n;
  }
  double *t = calloc(2 * (size_t)runs, sizeof *t), *cpu = t ? t + runs : NULL;
  uint64_t peak = 0, base = 0;
  c1_result r;
  memset(&r, 0, sizeof r);
  int rc = 0;
  for (int i = 0; t && i < runs; i++) {
    if (run_forked(buf, len, &r) != 0) {
      fprintf(stderr, "czk bench c1: %s: %s\n", input, r.err);
      rc = 1;
      break;
    }
    t[i] = r.secs;
    cpu[i] = r.cpu;
    if (r.peak > peak) peak = r.peak;
    base = r.base;
  }
  if (rc == 0 && t) {
    qsort(t, (size_t)runs, sizeof *t, czk__bench_cmp_double);
    qsort(cpu, (size_t)runs, sizeof *cpu, czk__bench_cmp_double);
    double med = runs % 2 ? t[runs / 2] : (t[runs / 2 - 1] + t[runs / 2]) / 2;
    double cmed = runs % 2 ? cpu[runs / 2] : (cpu[runs / 2 - 1] + cpu[runs / 2]) / 2;
    printf("%s: %s, %u partitions x %u challenges%s\n", input, r.name, r.partitions, r.challenges,
           envelope ? " (wrapped in cuzk's envelope)" : r.sector_size ? " (cuzk envelope)" : " (bare C1)");
    printf("%-10s %12s %9s | %9s %9s %9s %9s | %12s %12s %8s\n", "input", "bytes", "MiB", "median ms", "min ms",
           "max ms", "cpu ms", "RSS before", "peak over", "x input");
    printf("%-10s %12zu %9.2f | %9.1f %9.1f %9.1f %9.1f | %8.2f MiB %8.2f MiB %8.2f\n",
           envelope || r.sector_size ? "envelope" : "bare", len, mib(len), med * 1e3, t[0] * 1e3,
           t[runs - 1] * 1e3, cmed * 1e3, mib(base), mib(peak), (double)peak / (double)len);
    if (envelope) printf("(the C1 JSON inside: %zu bytes; peak = %.2f x it)\n", file_len, (double)peak / (double)file_len);
    printf("%d runs, each in a fresh forked child; cpu = median process CPU time of the parse; peak over = VmHWM -\n"
           "VmRSS before the parse%s\n", runs,
           r.peak_reset ? " (VmHWM reset)" : " (VmHWM could not be reset: it may include the parent's peak)");
  }
  free(t);
  free(buf);
  return rc;
}
