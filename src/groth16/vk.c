/* vk.c: Groth16 proof encoding (192 bytes compressed), bellperson verifying keys (parse/encode/read/write) and the
 * verifier (single and batched).
 *
 * vk block: alpha_g1 (96) | beta_g1 (96) | beta_g2 (192) | gamma_g2 (192) | delta_g1 (96) | delta_g2 (192) |
 *           u32 BE n_ic | n_ic x G1 (96), all uncompressed zcash encoding; 868 + 96 n_ic bytes.
 * Verify: prod e(A,B) e(-alpha,beta) e(-IC(x),gamma) e(-C,delta) == 1: one MSM of n_ic - 1 points, a 4-pair
 * Miller loop and one final exponentiation. Batch of N (random 128-bit z_k, z_0 arbitrary):
 *   prod_k e(z_k A_k, B_k) * e(-(sum z_k) alpha, beta) * e(-sum_k z_k IC_k, gamma) * e(-sum_k z_k C_k, delta) == 1,
 *   with sum_k z_k IC_k = (sum z_k) ic_0 + sum_i (sum_k z_k x_{k,i}) ic_{i+1}: N + 3 Miller loops, one final exp.
 * All verifier inputs are public: variable-time arithmetic. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "czk/groth16.h"
#include "czk/msm.h"
#include "core/atomicfile.h"
#include "groth16/groth16_internal.h"

/* ------------------------------------------------------------------------------------------------ proofs */
void czk_groth16_proof_encode(uint8_t out[CZK_GROTH16_PROOF_BYTES], const czk_groth16_proof *p) {
  czk_g1_compress(out, &p->a);
  czk_g2_compress(out + 48, &p->b);
  czk_g1_compress(out + 144, &p->c);
}

czk_status czk_groth16_proof_decode(czk_groth16_proof *p, const uint8_t in[CZK_GROTH16_PROOF_BYTES]) {
  CZK_TRY(czk_g1_uncompress(&p->a, in));
  CZK_TRY(czk_g2_uncompress(&p->b, in + 48));
  return czk_g1_uncompress(&p->c, in + 144);
}

/* ------------------------------------------------------------------------------------------------ vk */
uint32_t czk__be32(const uint8_t *p) {
  return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}
void czk__put_be32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

void czk_groth16_vk_free(czk_groth16_vk *vk) {
  if (!vk) return;
  free(vk->ic);
  memset(vk, 0, sizeof *vk);
}

czk_status czk_groth16_vk_parse(czk_groth16_vk *vk, const uint8_t *buf, size_t len, size_t *used) {
  memset(vk, 0, sizeof *vk);
  if (len < CZK__VK_FIXED + 4) return CZK_ERR_TRUNCATED;
  const uint8_t *p = buf;
  CZK_TRY(czk_g1_deserialize(&vk->alpha_g1, p));
  CZK_TRY(czk_g1_deserialize(&vk->beta_g1, p + 96));
  CZK_TRY(czk_g2_deserialize(&vk->beta_g2, p + 192));
  CZK_TRY(czk_g2_deserialize(&vk->gamma_g2, p + 384));
  CZK_TRY(czk_g1_deserialize(&vk->delta_g1, p + 576));
  CZK_TRY(czk_g2_deserialize(&vk->delta_g2, p + 672));
  uint32_t n = czk__be32(p + CZK__VK_FIXED);
  if (n == 0) return CZK_ERR_FORMAT;
  if ((uint64_t)n * 96 > len - CZK__VK_FIXED - 4) return CZK_ERR_TRUNCATED;
  czk_g1_affine *ic = malloc((size_t)n * sizeof *ic);
  if (!ic) return CZK_ERR_NOMEM;
  const uint8_t *q = p + CZK__VK_FIXED + 4;
  for (uint32_t i = 0; i < n; i++) {
    czk_status st = czk_g1_deserialize(&ic[i], q + (size_t)i * 96);
    if (st == CZK_OK && czk_g1_affine_is_infinity(&ic[i])) st = CZK_ERR_FORMAT; /* bellperson: PointIsAtInfinity */
    if (st != CZK_OK) {
      free(ic);
      return st;
    }
  }
  vk->ic = ic;
  vk->n_ic = n;
  if (used) *used = CZK__VK_FIXED + 4 + (size_t)n * 96;
  return CZK_OK;
}

size_t czk_groth16_vk_size(const czk_groth16_vk *vk) { return CZK__VK_FIXED + 4 + vk->n_ic * 96; }

void czk_groth16_vk_encode(uint8_t *out, const czk_groth16_vk *vk) {
  czk_g1_serialize(out, &vk->alpha_g1);
  czk_g1_serialize(out + 96, &vk->beta_g1);
  czk_g2_serialize(out + 192, &vk->beta_g2);
  czk_g2_serialize(out + 384, &vk->gamma_g2);
  czk_g1_serialize(out + 576, &vk->delta_g1);
  czk_g2_serialize(out + 672, &vk->delta_g2);
  czk__put_be32(out + CZK__VK_FIXED, (uint32_t)vk->n_ic);
  for (size_t i = 0; i < vk->n_ic; i++) czk_g1_serialize(out + CZK__VK_FIXED + 4 + i * 96, &vk->ic[i]);
}

czk_status czk_groth16_vk_copy(czk_groth16_vk *dst, const czk_groth16_vk *src) {
  *dst = *src;
  dst->ic = malloc((src->n_ic ? src->n_ic : 1) * sizeof *dst->ic);
  if (!dst->ic) {
    memset(dst, 0, sizeof *dst);
    return CZK_ERR_NOMEM;
  }
  memcpy(dst->ic, src->ic, src->n_ic * sizeof *dst->ic);
  return CZK_OK;
}

czk_status czk_groth16_vk_write(const czk_groth16_vk *vk, const char *path) {
  if (vk->n_ic == 0 || vk->n_ic > UINT32_MAX) return CZK_ERR_INVALID_ARG;
  size_t n = czk_groth16_vk_size(vk);
  uint8_t *buf = malloc(n);
  if (!buf) return CZK_ERR_NOMEM;
  czk_groth16_vk_encode(buf, vk);
  czk__afile af; /* temp + fsync + rename */
  czk_status st = czk__afile_open(&af, path, "wb");
  if (st == CZK_OK && fwrite(buf, 1, n, af.f) != n) st = CZK_ERR_IO;
  if (st == CZK_OK) st = czk__afile_commit(&af);
  else czk__afile_abort(&af);
  free(buf);
  return st;
}

czk_status czk_groth16_vk_read(czk_groth16_vk *vk, const char *path, bool allow_trailing) {
  memset(vk, 0, sizeof *vk);
  czk__file_map m;
  CZK_TRY(czk__file_map_open(&m, path));
  size_t used = 0;
  czk_status st = czk_groth16_vk_parse(vk, m.data, m.len, &used);
  if (st == CZK_OK && czk__file_map_check(&m) != CZK_OK) { /* truncated or rewritten while being read */
    czk_groth16_vk_free(vk);
    st = CZK_ERR_FILE_CHANGED;
  }
  if (st == CZK_OK && !allow_trailing && used != m.len) {
    czk_groth16_vk_free(vk);
    st = CZK_ERR_FORMAT;
  }
  czk__file_map_close(&m);
  return st;
}

/* ------------------------------------------------------------------------------------------------ verification */
/* acc = sum_i scal[i] * ic[i] over all n_ic points (scal[0] multiplies ic[0]). */
static czk_status ic_combination(czk_g1 *acc, const czk_groth16_vk *vk, const czk_fr *scal) {
  return czk_msm_g1(acc, vk->ic, scal, vk->n_ic, 0, NULL, NULL, NULL);
}

czk_status czk_groth16_verify(const czk_groth16_vk *vk, const czk_groth16_proof *proof, const czk_fr *inputs,
                              size_t n_inputs) {
  if (!vk || !proof || (n_inputs && !inputs)) return CZK_ERR_INVALID_ARG;
  if (vk->n_ic != n_inputs + 1) return CZK_ERR_SIZE_MISMATCH;
  czk_fr *scal = malloc(vk->n_ic * sizeof *scal);
  if (!scal) return CZK_ERR_NOMEM;
  czk_fr_set_one(&scal[0]);
  if (n_inputs) memcpy(scal + 1, inputs, n_inputs * sizeof *scal);
  czk_g1 acc;
  czk_status st = ic_combination(&acc, vk, scal);
  free(scal);
  if (st != CZK_OK) return st;
  czk_g1_affine p[4];
  czk_g2_affine q[4];
  p[0] = proof->a;
  q[0] = proof->b;
  czk_g1_affine_neg(&p[1], &vk->alpha_g1);
  q[1] = vk->beta_g2;
  czk_g1_neg(&acc, &acc);
  czk_g1_to_affine(&p[2], &acc);
  q[2] = vk->gamma_g2;
  czk_g1_affine_neg(&p[3], &proof->c);
  q[3] = vk->delta_g2;
  return czk_pairing_product_is_one(p, q, 4) ? CZK_OK : CZK_ERR_VERIFY_FAILED;
}

czk_status czk_groth16_verify_batch(const czk_groth16_vk *vk, const czk_groth16_proof *proofs, const czk_fr *inputs,
                                    size_t n_inputs, size_t n_proofs) {
  if (!vk || (n_proofs && !proofs) || (n_inputs && n_proofs && !inputs)) return CZK_ERR_INVALID_ARG;
  if (vk->n_ic != n_inputs + 1) return CZK_ERR_SIZE_MISMATCH;
  if (n_proofs == 0) return CZK_OK;
  if (n_proofs == 1) return czk_groth16_verify(vk, proofs, inputs, n_inputs);
  czk_status st = CZK_OK;
  czk_fr *z = malloc(n_proofs * sizeof *z), *icscal = calloc(vk->n_ic, sizeof *icscal);
  czk_g1_affine *p = malloc((n_proofs + 3) * sizeof *p), *cs = malloc(n_proofs * sizeof *cs);
  czk_g2_affine *q = malloc((n_proofs + 3) * sizeof *q);
  if (!z || !icscal || !p || !q || !cs) st = CZK_ERR_NOMEM;
  for (size_t k = 0; k < n_proofs && st == CZK_OK; k++) {
    st = czk_fr_random(&z[k]);
    if (st == CZK_OK) { /* 128-bit multipliers suffice (soundness error 2^-128) and halve the G1 work */
      uint64_t raw[4];
      czk_fr_to_raw(raw, &z[k]);
      raw[2] = raw[3] = 0;
      if ((raw[0] | raw[1]) == 0) raw[0] = 1;
      st = czk_fr_from_raw(&z[k], raw);
    }
  }
  if (st == CZK_OK) {
    czk_fr zsum, t;
    czk_fr_set_zero(&zsum);
    for (size_t k = 0; k < n_proofs; k++) {
      czk_fr_add(&zsum, &zsum, &z[k]);
      for (size_t i = 0; i < n_inputs; i++) {
        czk_fr_mul(&t, &z[k], &inputs[k * n_inputs + i]);
        czk_fr_add(&icscal[i + 1], &icscal[i + 1], &t);
      }
      czk_g1 a;
      czk_g1_from_affine(&a, &proofs[k].a);
      czk_g1_mul_vartime(&a, &a, &z[k]);
      czk_g1_to_affine(&p[k], &a);
      q[k] = proofs[k].b;
      cs[k] = proofs[k].c;
    }
    icscal[0] = zsum;
    czk_g1 acc, c, al;
    st = ic_combination(&acc, vk, icscal);
    if (st == CZK_OK) st = czk_msm_g1(&c, cs, z, n_proofs, 0, NULL, NULL, NULL);
    if (st == CZK_OK) {
      czk_g1_from_affine(&al, &vk->alpha_g1);
      czk_g1_mul_vartime(&al, &al, &zsum);
      czk_g1_neg(&al, &al);
      czk_g1_neg(&acc, &acc);
      czk_g1_neg(&c, &c);
      czk_g1_to_affine(&p[n_proofs], &al);
      q[n_proofs] = vk->beta_g2;
      czk_g1_to_affine(&p[n_proofs + 1], &acc);
      q[n_proofs + 1] = vk->gamma_g2;
      czk_g1_to_affine(&p[n_proofs + 2], &c);
      q[n_proofs + 2] = vk->delta_g2;
      st = czk_pairing_product_is_one(p, q, n_proofs + 3) ? CZK_OK : CZK_ERR_VERIFY_FAILED;
    }
  }
  free(z);
  free(icscal);
  free(p);
  free(q);
  free(cs);
  return st;
}
