/* bench_fc.c: `czk bench fc`: Filecoin hashing, native and in-circuit, single thread.
 * Rows: native SHA-256 compression and Poseidon permutations (arity 2, 8, 11, 36); gadget synthesis of one SHA-256
 * compression (512 allocated input bits) and one Poseidon hash per arity, in witness mode (values only: the
 * per-proof cost) and in shape mode (recording the constraints: once per circuit shape). Each row repeats for about
 * --ms milliseconds (default 300) and reports hashes/s and us/hash from the thread's CPU time and from wall time.
 * Never asserts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench.h"
#include "bench/bench_util.h"
#include "core/clock.h"
#include "core/units.h"
#include "czk/gadgets.h"

typedef struct {
  int kind; /* 0 native sha, 1 native poseidon, 2 gadget sha, 3 gadget poseidon */
  czk_cs_mode mode;
  const czk_poseidon *p;
  uint8_t block[64];
  czk_fr in[37];
  unsigned arity;
} bench_case;

static czk_status run_once(bench_case *c) {
  if (c->kind == 0) {
    uint32_t h[8];
    memcpy(h, czk_sha256_iv, sizeof h);
    czk_sha256_compress(h, c->block);
    c->block[0] ^= (uint8_t)h[0];
    return CZK_OK;
  }
  if (c->kind == 1) {
    czk_fr st[37];
    memcpy(st, c->in, sizeof(czk_fr) * (c->arity + 1));
    czk_poseidon_permute(c->p, st);
    c->in[1] = st[1];
    return CZK_OK;
  }
  czk_cs *cs;
  czk_status s = c->mode == CZK_CS_SHAPE ? czk_cs_shape_new(&cs) : czk_cs_witness_new(&cs, 1, 50000);
  if (s != CZK_OK) return s;
  if (c->kind == 2) {
    czk_bool in[512];
    for (int i = 0; i < 512 && s == CZK_OK; i++) s = czk_bit_alloc(cs, &in[i], (c->block[i / 8] >> (i % 8)) & 1);
    czk_u32 st[8];
    for (int i = 0; i < 8; i++) st[i] = czk_u32_const(czk_sha256_iv[i]);
    if (s == CZK_OK) s = czk_sha256_compress_gadget(cs, st, in, st);
    c->block[0] ^= (uint8_t)st[0].value;
  } else {
    czk_num in[36], out;
    for (unsigned i = 0; i < c->arity && s == CZK_OK; i++) s = czk_num_alloc(cs, &in[i], &c->in[i]);
    if (s == CZK_OK) s = czk_poseidon_gadget(cs, &out, c->p, CZK_POSEIDON_MERKLE_TREE, 0, in, c->arity);
    c->in[0] = out.value;
  }
  czk_cs_free(cs);
  return s;
}

static int bench_row(const char *name, bench_case *c, double ms) {
  long n = 0, batch = 1;
  double c0 = czk__bench_now_ns(CLOCK_THREAD_CPUTIME_ID) * 1e-9, w0 = czk__now_s(), c1 = c0;
  while ((c1 - c0) * 1e3 < ms) {
    for (long i = 0; i < batch; i++) {
      czk_status s = run_once(c);
      if (s != CZK_OK) {
        fprintf(stderr, "czk bench fc: %s: %s\n", name, czk_status_str(s));
        return 1;
      }
    }
    n += batch;
    if (batch < 1024) batch *= 2;
    c1 = czk__bench_now_ns(CLOCK_THREAD_CPUTIME_ID) * 1e-9;
  }
  double w1 = czk__now_s(), cpu = c1 - c0, wall = w1 - w0;
  printf("%-34s %12.0f %12.2f %12.0f %12.2f\n", name, (double)n / cpu, cpu / (double)n * 1e6, (double)n / wall,
         wall / (double)n * 1e6);
  return 0;
}

int czk_bench_fc(int argc, char **argv) {
  double ms = 300;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--ms") == 0 && i + 1 < argc) {
      ms = atof(argv[++i]);
      if (ms <= 0) ms = 300;
    } else {
      printf("usage: czk bench fc [--ms MS]\n\nFilecoin hashing per second, single thread: native SHA-256 compression "
             "and Poseidon\n(arity 2, 8, 11, 36), and the SHA-256 / Poseidon gadgets in witness mode (values only, "
             "per proof)\nand shape mode (constraint recording, once per circuit). Each row runs about MS ms "
             "(default 300).\n");
      return czk__wants_help(argc, argv) ? 0 : 2;
    }
  }
  bench_case c;
  memset(&c, 0, sizeof c);
  for (int i = 0; i < 64; i++) c.block[i] = (uint8_t)(i * 37 + 11);
  printf("%-34s %12s %12s %12s %12s\n", "hash", "cpu hash/s", "cpu us", "wall hash/s", "wall us");
  int rc = 0;
  c.kind = 0;
  rc |= bench_row("native sha256 compression", &c, ms);
  static const unsigned ar[4] = {2, 8, 11, 36};
  for (int k = 0; k < 4; k++) {
    if (czk_poseidon_get(&c.p, ar[k], CZK_POSEIDON_STANDARD) != CZK_OK) return 1;
    c.arity = ar[k];
    for (unsigned i = 0; i <= c.arity; i++) czk_fr_from_u64(&c.in[i], 1000 + i);
    char name[64];
    c.kind = 1;
    snprintf(name, sizeof name, "native poseidon arity %u", ar[k]);
    rc |= bench_row(name, &c, ms);
  }
  c.kind = 2;
  c.mode = CZK_CS_WITNESS;
  rc |= bench_row("gadget sha256 compression, witness", &c, ms);
  c.mode = CZK_CS_SHAPE;
  rc |= bench_row("gadget sha256 compression, shape", &c, ms);
  for (int k = 0; k < 4; k++) {
    if (czk_poseidon_get(&c.p, ar[k], CZK_POSEIDON_STANDARD) != CZK_OK) return 1;
    c.arity = ar[k];
    char name[64];
    c.kind = 3;
    c.mode = CZK_CS_WITNESS;
    snprintf(name, sizeof name, "gadget poseidon %u, witness", ar[k]);
    rc |= bench_row(name, &c, ms);
    c.mode = CZK_CS_SHAPE;
    snprintf(name, sizeof name, "gadget poseidon %u, shape", ar[k]);
    rc |= bench_row(name, &c, ms);
  }
  return rc;
}
