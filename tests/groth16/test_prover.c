/* test_prover.c: the one Groth16 prover over a backend (argv[1] = "cpu": the CPU backend; "gpu": every CUDA backend,
 * exit 77 when there is none). Synthetic circuits, real setup: proofs from the host key (in place on the CPU,
 * streamed in chunks on a device) and from a device copy of the key (czk_groth16_key_upload) verify; a non-satisfying
 * witness is refused before any MSM and the backend still proves after; an aborted job returns its lane; an
 * assignment of another size is refused; the device-busy time of a resident proof lies between its longer stream and
 * the sum of both; device copies and keys free cleanly (ASan); the synthesis stage's witness packing
 * (czk_groth16_assignment_pack). The device's wait for streamed bases (czk_groth16_timings.upload_wait): 0 on the CPU
 * and for a resident key, within the MSM spans where queries stream (with upload_bytes > 0). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "circuits/synthetic.h"
#include "czk/backend.h"
#include "czk/groth16.h"
#include "czk_test.h"
#include "groth16/groth16_internal.h"

static char g_params[128], g_vk[128];

static czk_status prove_on(czk_backend *be, const czk_groth16_key *key, const czk_groth16_dkey *dk,
                           const czk_r1cs *sh, unsigned k, uint64_t seed, bool corrupt, czk_groth16_proof *p,
                           czk_fr *pub, size_t *np) {
  czk_witness w;
  CZK_TRY(czk_synthetic_witness(&w, k, seed));
  const czk_fr *x = czk_groth16_public_inputs(&w, np);
  memcpy(pub, x, *np * sizeof *pub);
  czk_groth16_assignment as;
  CZK_TRY(czk_groth16_synthesize(&as, sh, &w, NULL));
  if (corrupt) czk_fr_add(&as.c[sh->n_constraints / 2], &as.c[sh->n_constraints / 2], &czk_fr_one_v);
  czk_groth16_job *job = NULL;
  CZK_TRY(czk_groth16_prove_start(&job, be, key, dk, &as, NULL));
  czk_groth16_timings t;
  memset(&t, 0, sizeof t);
  czk_status st = czk_groth16_prove_finish(job, p, &t);
  if (st == CZK_OK && czk_backend_host_memory(be)) {
    CHECK(t.device == 0);
    CHECK(t.upload_wait == 0 && t.upload_bytes == 0); /* host lanes: operands in place, nothing copied */
  } else if (st == CZK_OK && dk) {
    /* resident: the device-busy time covers either stream's span and is at most the two together */
    double sh = t.h + t.msm_h, sw = t.msm_l + t.msm_a + t.msm_b_g1 + t.msm_b_g2;
    CHECK_MSG(t.device + 1e-4 >= (sh > sw ? sh : sw) && t.device <= sh + sw + 1e-3,
              "device %.6f h-stream %.6f w-stream %.6f", t.device, sh, sw);
    CHECK(t.upload_wait == 0 && t.upload_bytes == 0); /* nothing streamed */
  } else if (st == CZK_OK) {
    /* streamed (the host key through slots): every query's bases uploaded; the device's wait for them lies in the MSMs'
     * one span (msm_h) */
    CHECK(t.upload_bytes > 0);
    CHECK_MSG(t.upload_wait >= 0 && t.upload_wait <= t.msm_h + 1e-4, "streamed: upload wait %.6f s, MSMs %.6f s",
              t.upload_wait, t.msm_h);
  }
  return st;
}

static void test_prover(czk_backend *be, unsigned k) {
  czk_r1cs *sh = NULL;
  CHECK(czk_synthetic_shape(&sh, k) == CZK_OK);
  CHECK(czk_groth16_setup(sh, g_params, g_vk, NULL) == CZK_OK);
  czk_groth16_pk *pk = NULL;
  CHECK(czk_groth16_pk_open(&pk, g_params) == CZK_OK);
  czk_groth16_vk vk;
  CHECK(czk_groth16_vk_read(&vk, g_vk, false) == CZK_OK);
  czk_groth16_key *key = NULL;
  CHECK(czk_groth16_key_from_pk(&key, pk, sh, NULL) == CZK_OK);
  if (!pk || !sh || !key) return;
  czk_groth16_proof p;
  czk_fr pub[64];
  size_t np = 0;
  /* host key: in place (CPU) or streamed (device) */
  for (uint64_t seed = 1; seed <= 2; seed++) {
    CHECK(prove_on(be, key, NULL, sh, k, seed, false, &p, pub, &np) == CZK_OK);
    CHECK_MSG(czk_groth16_verify(&vk, &p, pub, np) == CZK_OK, "%s host-key proof k=%u seed=%llu",
              czk_backend_name(be), k, (unsigned long long)seed);
  }
  /* lanes: cached for reuse on a device backend; on a host-memory backend none outlives its proof, also when proofs
   * of one key ran side by side (each had a lane of its own) */
  {
    czk_witness w1, w2;
    czk_groth16_assignment a1, a2;
    czk_groth16_job *j1 = NULL, *j2 = NULL;
    CHECK(czk_synthetic_witness(&w1, k, 5) == CZK_OK && czk_synthetic_witness(&w2, k, 6) == CZK_OK);
    CHECK(czk_groth16_synthesize(&a1, sh, &w1, NULL) == CZK_OK && czk_groth16_synthesize(&a2, sh, &w2, NULL) == CZK_OK);
    CHECK(czk_groth16_prove_start(&j1, be, key, NULL, &a1, NULL) == CZK_OK);
    CHECK(czk_groth16_prove_start(&j2, be, key, NULL, &a2, NULL) == CZK_OK);
    czk_groth16_proof p1, p2;
    CHECK(czk_groth16_prove_finish(j1, &p1, NULL) == CZK_OK);
    CHECK(czk_groth16_prove_finish(j2, &p2, NULL) == CZK_OK);
    size_t cached = czk__lanes_count(czk__key_lanes(key));
    if (czk_backend_host_memory(be)) CHECK_EQ_INT(cached, 0);
    else CHECK_MSG(cached >= 1, "%s: no lane cached after proofs of a host key", czk_backend_name(be));
    /* the memory plan: nothing on a host-memory backend; on a device, idle lanes are trimmed on request, and a lane
     * made again takes no more device memory than planned */
    czk_groth16_prove_plan pl;
    CHECK(czk_groth16_plan_prove(&pl, be, key, false, false) == CZK_OK);
    CHECK_EQ_INT(czk_groth16_lanes_trim(key, NULL, be), cached);
    CHECK_EQ_INT(czk__lanes_count(czk__key_lanes(key)), 0);
    if (czk_backend_host_memory(be)) {
      CHECK(pl.lane == 0 && pl.tables == 0 && pl.pinned == 0);
      CHECK(czk_groth16_lane_warm(key, NULL, be, false) == CZK_ERR_UNSUPPORTED);
    } else {
      CHECK(pl.lane > 0 && pl.tables == 0 && pl.pinned > 0); /* H's tables exist after the proofs above */
      czk_backend_props p0, p1;
      CHECK(czk_backend_get_props(be, &p0) == CZK_OK);
      CHECK(prove_on(be, key, NULL, sh, k, 7, false, &p, pub, &np) == CZK_OK);
      CHECK(czk_backend_get_props(be, &p1) == CZK_OK);
      uint64_t took = p0.mem_free > p1.mem_free ? p0.mem_free - p1.mem_free : 0;
      CHECK_MSG(took <= pl.lane, "%s: a lane took %llu bytes of device memory, planned %llu", czk_backend_name(be),
                (unsigned long long)took, (unsigned long long)pl.lane);
      /* a warmed lane: the next prove allocates nothing */
      CHECK(czk_groth16_lanes_trim(key, NULL, be) == 1);
      CHECK(czk_groth16_lane_warm(key, NULL, be, false) == CZK_OK);
      CHECK_EQ_INT(czk__lanes_count(czk__key_lanes(key)), 1);
      CHECK(czk_backend_get_props(be, &p0) == CZK_OK);
      CHECK(prove_on(be, key, NULL, sh, k, 8, false, &p, pub, &np) == CZK_OK);
      CHECK(czk_groth16_verify(&vk, &p, pub, np) == CZK_OK);
      CHECK(czk_backend_get_props(be, &p1) == CZK_OK);
      CHECK_MSG(p1.mem_free + (8u << 20) >= p0.mem_free, "%s: a prove on a warmed lane took %lld bytes",
                czk_backend_name(be), (long long)(p0.mem_free - p1.mem_free));
      CHECK_EQ_INT(czk__lanes_count(czk__key_lanes(key)), 1);
    }
  }
  /* device copy */
  czk_groth16_dkey *dk = NULL;
  CHECK(czk_groth16_key_upload(&dk, key, be) == CZK_OK);
  CHECK(czk_groth16_dkey_bytes(dk) >= czk_groth16_key_bytes(key));
  for (uint64_t seed = 3; seed <= 4; seed++) {
    CHECK(prove_on(be, key, dk, sh, k, seed, false, &p, pub, &np) == CZK_OK);
    CHECK_MSG(czk_groth16_verify(&vk, &p, pub, np) == CZK_OK, "%s resident proof k=%u", czk_backend_name(be), k);
  }
  /* not satisfied: refused before any MSM, with and without the device copy */
  unsigned long before = czk_groth16_msm_launches();
  CHECK(prove_on(be, key, dk, sh, k, 9, true, &p, pub, &np) == CZK_ERR_UNSATISFIED);
  CHECK(prove_on(be, key, NULL, sh, k, 9, true, &p, pub, &np) == CZK_ERR_UNSATISFIED);
  CHECK_EQ_INT(czk_groth16_msm_launches(), before);
  /* the backend still proves after a refusal */
  CHECK(prove_on(be, key, dk, sh, k, 10, false, &p, pub, &np) == CZK_OK);
  CHECK(czk_groth16_verify(&vk, &p, pub, np) == CZK_OK);
  /* an aborted job releases its lane; the next proof works */
  {
    czk_witness w;
    czk_groth16_assignment as;
    czk_groth16_job *job = NULL;
    CHECK(czk_synthetic_witness(&w, k, 11) == CZK_OK);
    CHECK(czk_groth16_synthesize(&as, sh, &w, NULL) == CZK_OK);
    CHECK(czk_groth16_prove_start(&job, be, key, dk, &as, NULL) == CZK_OK);
    czk_groth16_job_abort(job);
    CHECK(prove_on(be, key, dk, sh, k, 12, false, &p, pub, &np) == CZK_OK);
    CHECK(czk_groth16_verify(&vk, &p, pub, np) == CZK_OK);
  }
  /* a device copy of another backend is refused */
  {
    czk_backend *other = NULL;
    CHECK(czk_backend_open(&other, "cpu", NULL) == CZK_OK);
    czk_witness w;
    czk_groth16_assignment as;
    czk_groth16_job *job = NULL;
    CHECK(czk_synthetic_witness(&w, k, 13) == CZK_OK);
    CHECK(czk_groth16_synthesize(&as, sh, &w, NULL) == CZK_OK);
    CHECK(czk_groth16_prove_start(&job, other, key, dk, &as, NULL) == CZK_ERR_INVALID_ARG);
    CHECK(job == NULL && as.a == NULL);
    czk_backend_free(other);
  }
  /* size mismatch refused (assignment of another size) */
  {
    czk_r1cs *sh2 = NULL;
    czk_witness w;
    czk_groth16_assignment as;
    czk_groth16_job *job = NULL;
    CHECK(czk_synthetic_shape(&sh2, k - 1) == CZK_OK);
    CHECK(czk_synthetic_witness(&w, k - 1, 1) == CZK_OK);
    CHECK(czk_groth16_synthesize(&as, sh2, &w, NULL) == CZK_OK);
    CHECK(czk_groth16_prove_start(&job, be, key, NULL, &as, NULL) == CZK_ERR_SIZE_MISMATCH);
    CHECK(job == NULL);
    czk_r1cs_free(sh2);
  }
  czk_groth16_dkey_free(dk);
  czk_groth16_key_free(key);
  czk_groth16_vk_free(&vk);
  czk_groth16_pk_close(pk);
  czk_r1cs_free(sh);
}

/* Compact lanes (czk_groth16_lane_opts): with r and s fixed, a proof of one witness is the same bytes from a full lane
 * (the host key), a compact lane streaming the host key, a compact lane over a resident copy and over partial copies
 * (some queries streamed), at chunk sizes that split every query into several chunks (G2 too) and at one chunk that
 * holds them whole; each verifies; a non-satisfying witness is refused in a compact lane before any MSM, and the plan
 * of a compact lane is smaller than a full one's on a device. */
static void count_yield(void *user) { (*(unsigned *)user)++; }

static void test_compact(czk_backend *be, unsigned k) {
  czk_r1cs *sh = NULL;
  CHECK(czk_synthetic_shape(&sh, k) == CZK_OK);
  CHECK(czk_groth16_setup(sh, g_params, g_vk, NULL) == CZK_OK);
  czk_groth16_pk *pk = NULL;
  CHECK(czk_groth16_pk_open(&pk, g_params) == CZK_OK);
  czk_groth16_vk vk;
  CHECK(czk_groth16_vk_read(&vk, g_vk, false) == CZK_OK);
  czk_groth16_key *key = NULL;
  CHECK(czk_groth16_key_from_pk(&key, pk, sh, NULL) == CZK_OK);
  if (!pk || !sh || !key) return;
  if (!czk_backend_host_memory(be)) CHECK(czk_groth16_key_pin(key, be) == CZK_OK);
  czk_fr r, s;
  czk_fr_from_u64(&r, 0x1234567890abcdefull);
  czk_fr_from_u64(&s, 0xfedcba0987654321ull);
  czk__groth16_test_fix_rs(&r, &s);
  czk_groth16_proof ref, p;
  czk_fr pub[64];
  size_t np = 0;
  CHECK(prove_on(be, key, NULL, sh, k, 21, false, &ref, pub, &np) == CZK_OK);
  CHECK(czk_groth16_verify(&vk, &ref, pub, np) == CZK_OK);
  const unsigned masks[] = {0, CZK_GROTH16_Q_ALL, 0x3 /* h, l */, 0x14 /* a, b_g2 */};
  const unsigned chunks[] = {3, k - 2, 30};
  for (size_t mi = 0; mi < sizeof masks / sizeof *masks; mi++) {
    czk_groth16_dkey *dk = NULL;
    if (masks[mi]) {
      CHECK(czk_groth16_key_upload_partial(&dk, key, be, masks[mi]) == CZK_OK);
      CHECK(czk_groth16_dkey_mask(dk) == masks[mi]);
      CHECK(czk_groth16_dkey_bytes(dk) == czk_groth16_key_copy_bytes(key, masks[mi]));
    }
    uint64_t copied[2 * sizeof chunks / sizeof *chunks];
    for (size_t ci = 0; ci < 4 * sizeof chunks / sizeof *chunks; ci++) {
      const size_t nc = sizeof chunks / sizeof *chunks, cj = ci % (2 * nc);
      const bool lean = cj >= nc, pack = ci >= 2 * nc; /* the second round packs the streamed witness chunks */
      setenv("CZK_STREAM_PACK", pack ? "1" : "0", 1);
      /* lean lanes call the yield between MSM chunks (at least 5 chunks: 3 calls), compact ones never */
      unsigned yields = 0;
      const czk_groth16_lane_opts o = {true, chunks[cj % nc], lean, count_yield, &yields};
      czk_witness w;
      CHECK(czk_synthetic_witness(&w, k, 21) == CZK_OK);
      czk_groth16_assignment as;
      CHECK(czk_groth16_synthesize(&as, sh, &w, NULL) == CZK_OK);
      czk_groth16_job *job = NULL;
      czk_groth16_timings t;
      memset(&t, 0, sizeof t);
      czk_status st = czk_groth16_prove_start_ex(&job, be, key, dk, &as, NULL, &o);
      if (st == CZK_OK) st = czk_groth16_prove_finish(job, &p, &t);
      CHECK_MSG(st == CZK_OK, "%s compact%s%s mask 0x%x chunk 2^%u: %s", czk_backend_name(be), lean ? " lean" : "",
                pack ? " packed" : "", masks[mi], o.chunk_log, czk_status_str(st));
      CHECK(t.compact);
      CHECK_MSG(st == CZK_OK && memcmp(&p, &ref, sizeof p) == 0, "%s compact%s%s mask 0x%x chunk 2^%u: another proof",
                czk_backend_name(be), lean ? " lean" : "", pack ? " packed" : "", masks[mi], o.chunk_log);
      CHECK(czk_groth16_verify(&vk, &p, pub, np) == CZK_OK);
      CHECK_MSG(lean ? yields >= 3 : yields == 0, "%s compact%s chunk 2^%u: %u yields", czk_backend_name(be),
                lean ? " lean" : "", o.chunk_log, yields);
      /* streamed queries were copied (a device; the CPU's copies are counted the same way); packed, the witness
       * queries' zero points are not: fewer bytes (the synthetic witness has zeros in every query) */
      if (masks[mi] != CZK_GROTH16_Q_ALL) CHECK(t.upload_bytes > 0);
      else CHECK(t.upload_bytes == 0);
      if (!pack) copied[cj] = t.upload_bytes;
      else
        CHECK_MSG(masks[mi] == CZK_GROTH16_Q_ALL ? t.upload_bytes == 0 : t.upload_bytes < copied[cj],
                  "%s compact%s packed mask 0x%x chunk 2^%u: %llu bytes uploaded, %llu copied whole",
                  czk_backend_name(be), lean ? " lean" : "", masks[mi], o.chunk_log,
                  (unsigned long long)t.upload_bytes, (unsigned long long)copied[cj]);
      /* the device's wait for them: none on the CPU or when nothing streams, else within the MSM spans (which
       * include it) and apart from the device-busy time */
      const double msms = t.msm_h + t.msm_l + t.msm_a + t.msm_b_g1 + t.msm_b_g2;
      if (czk_backend_host_memory(be) || masks[mi] == CZK_GROTH16_Q_ALL) CHECK(t.upload_wait == 0);
      else
        CHECK_MSG(t.upload_wait >= 0 && t.upload_wait <= msms + 1e-4 && t.device >= 0,
                  "%s compact%s mask 0x%x chunk 2^%u: upload wait %.6f s, MSM spans %.6f s, device %.6f s",
                  czk_backend_name(be), lean ? " lean" : "", masks[mi], o.chunk_log, t.upload_wait, msms, t.device);
    }
    unsetenv("CZK_STREAM_PACK");
    /* not satisfied: refused before any MSM */
    unsigned long before = czk_groth16_msm_launches();
    {
      czk_witness w;
      CHECK(czk_synthetic_witness(&w, k, 22) == CZK_OK);
      czk_groth16_assignment as;
      CHECK(czk_groth16_synthesize(&as, sh, &w, NULL) == CZK_OK);
      czk_fr_add(&as.c[sh->n_constraints / 2], &as.c[sh->n_constraints / 2], &czk_fr_one_v);
      czk_groth16_job *job = NULL;
      const czk_groth16_lane_opts o = {true, 3, mi & 1, NULL, NULL};
      CHECK(czk_groth16_prove_start_ex(&job, be, key, dk, &as, NULL, &o) == CZK_ERR_UNSATISFIED);
    }
    CHECK_EQ_INT(czk_groth16_msm_launches(), before);
    czk_groth16_dkey_free(dk);
  }
  /* the plans: a compact lane is smaller than a full one at any size worth it (on a device) */
  czk_groth16_prove_plan full, cmp;
  czk_groth16_prove_plan lean;
  const czk_groth16_lane_opts o = {true, 0, false, NULL, NULL}, ol = {true, 0, true, NULL, NULL};
  CHECK(czk_groth16_plan_prove_ex(&full, be, key, 0, false, NULL) == CZK_OK);
  CHECK(czk_groth16_plan_prove_ex(&cmp, be, key, 0, false, &o) == CZK_OK);
  CHECK(czk_groth16_plan_prove_ex(&lean, be, key, 0, false, &ol) == CZK_OK);
  if (!czk_backend_host_memory(be)) CHECK(lean.lane > 0 && lean.lane <= cmp.lane);
  CHECK(czk_groth16_plan_prove_ex(&cmp, be, key, 0x40, false, &o) == CZK_ERR_INVALID_ARG);
  czk__groth16_test_fix_rs(NULL, NULL);
  czk_groth16_key_free(key);
  czk_groth16_vk_free(&vk);
  czk_groth16_pk_close(pk);
  czk_r1cs_free(sh);
}

/* Setup on the backend (its fixed-base multiplications: the GPU's for CUDA) gives the key the CPU gives from the same
 * toxic waste, byte for byte, and that key proves and verifies on the backend. */
static void test_setup_on(czk_backend *be, unsigned k) {
  czk_r1cs *sh = NULL;
  CHECK(czk_synthetic_shape(&sh, k) == CZK_OK);
  if (!sh) return;
  czk_fr tw[5];
  for (int i = 0; i < 5; i++) czk_fr_from_u64(&tw[i], 0x1234567ull * (uint64_t)(i + 3) + 5);
  czk_groth16_setup_opts oc = {NULL, NULL, NULL, NULL, tw}, ob = {NULL, be, NULL, NULL, tw};
  czk_groth16_key_mem kc, kb;
  CHECK(czk_groth16_setup_mem(&kc, sh, &oc) == CZK_OK);
  CHECK(czk_groth16_setup_mem(&kb, sh, &ob) == CZK_OK);
  CHECK(memcmp(&kc.s, &kb.s, sizeof kc.s) == 0);
  CHECK(memcmp(kc.h, kb.h, kc.s.n_h * sizeof *kc.h) == 0);
  CHECK(memcmp(kc.l, kb.l, kc.s.n_l * sizeof *kc.l) == 0);
  CHECK(memcmp(kc.a, kb.a, kc.s.n_a * sizeof *kc.a) == 0);
  CHECK(memcmp(kc.b_g1, kb.b_g1, kc.s.n_b_g1 * sizeof *kc.b_g1) == 0);
  CHECK(memcmp(kc.b_g2, kb.b_g2, kc.s.n_b_g2 * sizeof *kc.b_g2) == 0);
  CHECK(kc.vk.n_ic == kb.vk.n_ic && memcmp(kc.vk.ic, kb.vk.ic, kc.vk.n_ic * sizeof *kc.vk.ic) == 0);
  czk_groth16_pk_queries q;
  czk_groth16_key_mem_queries(&kb, &q);
  czk_groth16_key *key = NULL;
  CHECK(czk_groth16_key_from_queries(&key, &kb.vk, &q, &kb.s, sh) == CZK_OK);
  czk_witness w;
  CHECK(czk_synthetic_witness(&w, k, 9) == CZK_OK);
  size_t np = w.n_inputs - 1;
  czk_fr *pub = malloc(np * sizeof *pub);
  memcpy(pub, w.w + 1, np * sizeof *pub);
  czk_groth16_proof pr;
  CHECK(czk_groth16_prove(&pr, be, key, sh, &w, NULL) == CZK_OK);
  CHECK(czk_groth16_verify(&kb.vk, &pr, pub, np) == CZK_OK);
  free(pub);
  czk_groth16_key_free(key);
  czk_groth16_key_mem_free(&kc);
  czk_groth16_key_mem_free(&kb);
  czk_r1cs_free(sh);
}

/* A key whose G1 queries share one host array (as the benches' random keys do) pins: the shared pages are registered
 * once (a second registration of them is refused, on every backend), and freeing the key unregisters them. */
static void test_pin_shared(czk_backend *be, unsigned k) {
  czk_r1cs *sh = NULL;
  CHECK(czk_synthetic_shape(&sh, k) == CZK_OK);
  if (!sh) return;
  czk_fr tw[5];
  for (int i = 0; i < 5; i++) czk_fr_from_u64(&tw[i], 0x7654321ull * (uint64_t)(i + 2) + 1);
  czk_groth16_setup_opts o = {NULL, NULL, NULL, NULL, tw};
  czk_groth16_key_mem km;
  CHECK(czk_groth16_setup_mem(&km, sh, &o) == CZK_OK);
  size_t m = km.s.n_h;
  if (km.s.n_l > m) m = km.s.n_l;
  if (km.s.n_a > m) m = km.s.n_a;
  if (km.s.n_b_g1 > m) m = km.s.n_b_g1;
  czk_g1_affine *one = calloc(m, sizeof *one);
  CHECK(one != NULL);
  czk_groth16_pk_queries q;
  czk_groth16_key_mem_queries(&km, &q);
  q.h = q.l = q.a = q.b_g1 = one;
  czk_groth16_key *key = NULL;
  CHECK(czk_groth16_key_from_queries(&key, &km.vk, &q, &km.s, sh) == CZK_OK);
  if (key && one) {
    CHECK(czk_backend_host_register(be, one, sizeof *one) == CZK_OK); /* registers, and refuses a second time */
    CHECK(czk_backend_host_register(be, one, m * sizeof *one) == CZK_ERR_UNSUPPORTED);
    czk_backend_host_unregister(be, one);
    if (!czk_backend_host_memory(be)) {
      CHECK(czk_groth16_key_pin(key, be) == CZK_OK);
      CHECK(czk_groth16_key_pinned(key));
      CHECK(czk_backend_host_register(be, one, m * sizeof *one) == CZK_ERR_UNSUPPORTED); /* pinned by the key */
    }
  }
  czk_groth16_key_free(key);
  if (one) {
    CHECK(czk_backend_host_register(be, one, m * sizeof *one) == CZK_OK); /* the key let its pages go */
    czk_backend_host_unregister(be, one);
  }
  free(one);
  czk_groth16_key_mem_free(&km);
  czk_r1cs_free(sh);
}

/* czk_groth16_assignment_pack (the synthesis stage's packing): a mostly-0/1 witness gets a packed copy that unpacks
 * to w (its size by the format); a denser one than 3/4 others gets none (sent as it is); packing again replaces the
 * copy (no leak under ASan); an assignment that is not witness-only is refused. */
static void test_assignment_pack(void) {
  const size_t nw = 100003;
  for (int dense = 0; dense < 2; dense++) {
    czk_groth16_assignment as;
    memset(&as, 0, sizeof as);
    as.w.n_inputs = 3, as.w.n_aux = (uint32_t)(nw - 3);
    as.w.w = calloc(nw, sizeof(czk_fr));
    CHECK(as.w.w != NULL);
    if (!as.w.w) return;
    size_t others = 0;
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0; i < nw; i++) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      unsigned r = (unsigned)(x % 100);
      if (r < (dense ? 80u : 10u)) {
        as.w.w[i].l[0] = x | 2, as.w.w[i].l[1] = x >> 3; /* small enough to be canonical, never 0 or 1 */
        others++;
      } else if (r & 1) {
        as.w.w[i] = czk_fr_one_v;
      }
    }
    for (int again = 0; again < 2; again++) {
      CHECK(czk_groth16_assignment_pack(&as, NULL) == CZK_OK);
      if (dense) {
        CHECK(as.wpack == NULL && as.wpack_bytes == 0 && as.wpack_dense);
        continue;
      }
      CHECK(as.wpack != NULL && as.wpack_other == others && !as.wpack_dense);
      CHECK(as.wpack_bytes == czk_backend_wpack_bytes(nw, others) && as.wpack_bytes < nw * sizeof(czk_fr) / 4);
      czk_fr *back = malloc(nw * sizeof(czk_fr));
      CHECK(back && czk_backend_wunpack_host(back, as.wpack, as.wpack_bytes, nw, as.wpack_other) == CZK_OK);
      CHECK(back && memcmp(back, as.w.w, nw * sizeof(czk_fr)) == 0);
      free(back);
    }
    as.a = malloc(sizeof(czk_fr)); /* not witness-only */
    CHECK(czk_groth16_assignment_pack(&as, NULL) == CZK_ERR_INVALID_ARG);
    czk_groth16_assignment_free(&as);
    CHECK(as.wpack == NULL && as.w.w == NULL && as.a == NULL);
  }
}

/* The device's idle time in streamed copies' waits (czk__groth16_wait_idle, upload_wait's arithmetic): a wait counts
 * only where no stream of the proof is busy. */
static void test_wait_idle(void) {
  { /* one stream (a lean lane): its waits, whole */
    const double w[] = {2, 3, 5, 7}, sp[2][2] = {{0, 10}, {0, 0}};
    const int ws[] = {0, 0};
    CHECK(czk__groth16_wait_idle(w, ws, 2, sp) == 3.0);
  }
  { /* two streams: a wait beside the other's work is no idle time; both waiting, or the other done, is */
    const double w[] = {2, 4, 10.5, 11, 3, 5, 6, 8}, sp[2][2] = {{0, 10}, {1, 12}};
    const int ws[] = {1, 1, 0, 0};
    CHECK_MSG(czk__groth16_wait_idle(w, ws, 4, sp) == 1.5, "two streams: %.6f, want 1.5 ([3,4] both, [10.5,11])",
              czk__groth16_wait_idle(w, ws, 4, sp));
  }
  { /* a copy done before its stream was ready, no waits at all */
    const double w[] = {5, 4}, sp[2][2] = {{0, 1}, {3, 6}};
    const int ws[] = {1};
    CHECK(czk__groth16_wait_idle(w, ws, 1, sp) == 0);
    CHECK(czk__groth16_wait_idle(w, ws, 0, sp) == 0);
  }
  { /* a wait in the gap between the spans counts whole, one inside its own stream's span with the other stream done
     * too, one past both spans too, overlapping waits once */
    const double w[] = {1.5, 2.5, 7, 9, 8, 9.5, 4, 5}, sp[2][2] = {{0, 1}, {3, 6}};
    const int ws[] = {0, 1, 0, 1};
    CHECK_MSG(czk__groth16_wait_idle(w, ws, 4, sp) == 4.5,
              "gap and past: %.6f, want 4.5 ([1.5,2.5], [4,5], [7,9.5])", czk__groth16_wait_idle(w, ws, 4, sp));
  }
  { /* many chunks (the sweep): 100000 waits of 1 on stream 0 alternating with 1 of its own work */
    const size_t nw = 100000;
    double *w = malloc(2 * nw * sizeof *w);
    int *ws = malloc(nw * sizeof *ws);
    for (size_t i = 0; i < nw; i++) w[2 * i] = 2.0 * (double)i, w[2 * i + 1] = 2.0 * (double)i + 1, ws[i] = 0;
    const double sp[2][2] = {{0, 2.0 * (double)nw}, {0, 0}};
    CHECK(czk__groth16_wait_idle(w, ws, nw, sp) == (double)nw);
    free(w), free(ws);
  }
}

int main(int argc, char **argv) {
  bool gpu_mode = argc > 1 && strcmp(argv[1], "gpu") == 0;
  int pid = (int)getpid();
  snprintf(g_params, sizeof g_params, "/tmp/czk_tpr_%d.params", pid);
  snprintf(g_vk, sizeof g_vk, "/tmp/czk_tpr_%d.vk", pid);
  czk_backend **list = NULL;
  size_t n = 0;
  const char *ex[] = {gpu_mode ? "cpu" : "cuda"};
  CHECK(czk_backend_enumerate(&list, &n, ex, 1) == CZK_OK);
  if (!gpu_mode) test_assignment_pack();
  if (!gpu_mode) test_wait_idle();
  if (n == 0) {
    fprintf(stderr, "test_prover %s: no backend, skipping\n", gpu_mode ? "gpu" : "cpu");
    free(list);
    return 77;
  }
  for (size_t i = 0; i < n; i++) {
    test_prover(list[i], gpu_mode ? 8 : 6);
    if (gpu_mode) test_prover(list[i], 12);
    test_compact(list[i], gpu_mode ? 12 : 7);
    test_setup_on(list[i], gpu_mode ? 12 : 6);
    test_pin_shared(list[i], gpu_mode ? 12 : 6);
    czk_backend_free(list[i]);
  }
  free(list);
  remove(g_params);
  remove(g_vk);
  return czk_test_done(gpu_mode ? "test_prover gpu" : "test_prover cpu");
}
