/* fixed_base_impl.cuh: fixed-base batch multiplication of the group generator on the GPU (Groth16 setup: out[i] =
 * affine(k[i] G) for hundreds of millions of scalars), instantiated for G1 and G2 by fixed_base_g1.cu /
 * fixed_base_g2.cu (EC_F / EC_G as for ec.cuh, which must have been included for the same group first).
 *
 * Method: a table T[j][d] = d 2^(8j) G (j < 32 windows of 8 bits, d < 256; built on the host, uploaded once per
 * call, 768 KiB for G1 / 1.5 MiB for G2, which stays in L2), one thread per scalar summing its 32 table entries with
 * complete mixed XYZZ additions (at most 32 madds, no doublings), then a second kernel that takes FB_K consecutive
 * results per thread to affine with one inversion (Montgomery's trick; x = X / ZZ, y = Y / ZZZ from 1/(ZZ ZZZ)).
 * Variable time: table indices are the scalars' bytes. Setup's scalars are derived from the toxic waste, local to the
 * setup and wiped afterwards; as on the CPU (czk_g1_fixed_base_mul_batch_vartime, see setup.c), a timing observer is
 * not part of the threat model there. The device copies of the scalars are zeroed before they are freed.
 * Host side: chunks of FB_CHUNK points (scalars in, affine points out through pinned staging buffers, two chunks in
 * flight on two streams so that copies overlap the kernels). */

#define FE CZK_CAT(EC_F, _t)
#define FOP(op) CZK_CAT(CZK_CAT(EC_F, _), op)
#define GOP(op) CZK_CAT(CZK_CAT(EC_G, _), op)
#define XYZZ GOP(xyzz_t)
#define AFF GOP(aff_t)

#ifndef FB_K
#define FB_K 8
#define FB_WINDOWS 32
#define FB_CHUNK ((size_t)1 << 22)
#endif

static __global__ void GOP(fb_mul_kernel)(XYZZ *out, const fr_t *k, size_t n, const AFF *T) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  fr_t s;
  load_fr(&s, k + i);
  fr_from_mont(&s, &s);
  XYZZ acc;
  GOP(set_inf)(&acc);
  for (int j = 0; j < FB_WINDOWS; j++) {
    const uint32_t d = (s.v[j >> 2] >> ((j & 3) * 8)) & 255u;
    if (d) GOP(madd)(&acc, &acc, &T[j * 256 + d], false, false);
  }
  out[i] = acc;
}

static __global__ void GOP(fb_affine_kernel)(AFF *out, const XYZZ *in, size_t n) {
  const size_t base = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) * FB_K;
  if (base >= n) return;
  const unsigned m = (unsigned)(n - base < FB_K ? n - base : FB_K);
  FE pre[FB_K], acc, z;
  FOP(set_one)(&acc);
  for (unsigned t = 0; t < m; t++) { /* prefix products of ZZ ZZZ (infinity contributes 1) */
    const XYZZ *p = &in[base + t];
    if (!FOP(is_zero)(&p->zz)) {
      FOP(mul)(&z, &p->zz, &p->zzz);
      FOP(mul)(&acc, &acc, &z);
    }
    pre[t] = acc;
  }
  FE inv;
  FOP(inv)(&inv, &acc);
  for (unsigned t = m; t-- > 0;) {
    const XYZZ *p = &in[base + t];
    AFF r;
    if (FOP(is_zero)(&p->zz)) {
      FOP(set_zero)(&r.x);
      FOP(set_zero)(&r.y);
    } else {
      FE it, u;
      if (t > 0)
        FOP(mul)(&it, &inv, &pre[t - 1]); /* 1 / (ZZ ZZZ) of this point */
      else
        it = inv;
      FOP(mul)(&z, &p->zz, &p->zzz);
      FOP(mul)(&inv, &inv, &z);
      FOP(mul)(&u, &it, &p->zzz); /* 1 / ZZ */
      FOP(mul)(&r.x, &p->x, &u);
      FOP(mul)(&u, &it, &p->zz); /* 1 / ZZZ */
      FOP(mul)(&r.y, &p->y, &u);
    }
    out[base + t] = r;
  }
}

/* out[i] = affine(k[i] G) for i < n (host arrays; k Montgomery czk_fr). Synchronous: returns when out is written. */
static czk_status GOP(fb_run)(AFF *out, const czk_fr *k, size_t n, const AFF *h_table) {
  if (n == 0) return CZK_OK;
  const size_t chunk = n < FB_CHUNK ? n : FB_CHUNK;
  AFF *d_T = NULL, *d_aff[2] = {NULL, NULL}, *h_aff[2] = {NULL, NULL};
  XYZZ *d_xyzz[2] = {NULL, NULL};
  fr_t *d_k[2] = {NULL, NULL};
  cudaStream_t st[2] = {NULL, NULL};
  czk_status rs = CZK_OK;
#define FB_TRY(call)                                                                                                  \
  do {                                                                                                                \
    cudaError_t e_ = (call);                                                                                          \
    if (e_ != cudaSuccess && rs == CZK_OK) {                                                                          \
      czk_log_write(CZK_LOG_ERROR, "cuda", "%s failed at %s:%d: %s", #call, __FILE__, __LINE__,                       \
                    cudaGetErrorString(e_));                                                                          \
      rs = e_ == cudaErrorMemoryAllocation ? CZK_ERR_NOMEM : CZK_ERR_DEVICE;                                          \
    }                                                                                                                 \
  } while (0)
  FB_TRY(cudaMalloc((void **)&d_T, (size_t)FB_WINDOWS * 256 * sizeof(AFF)));
  if (rs == CZK_OK) FB_TRY(cudaMemcpy(d_T, h_table, (size_t)FB_WINDOWS * 256 * sizeof(AFF), cudaMemcpyHostToDevice));
  for (int b = 0; b < 2 && rs == CZK_OK; b++) {
    FB_TRY(cudaStreamCreateWithFlags(&st[b], cudaStreamNonBlocking));
    if (rs == CZK_OK) FB_TRY(cudaMalloc((void **)&d_k[b], chunk * sizeof(fr_t)));
    if (rs == CZK_OK) FB_TRY(cudaMalloc((void **)&d_xyzz[b], chunk * sizeof(XYZZ)));
    if (rs == CZK_OK) FB_TRY(cudaMalloc((void **)&d_aff[b], chunk * sizeof(AFF)));
    if (rs == CZK_OK) FB_TRY(cudaMallocHost((void **)&h_aff[b], chunk * sizeof(AFF)));
  }
  /* chunk c runs on stream c % 2; its result is copied out of the pinned buffer by the host once the stream is done
   * with it, which happens while the other stream computes chunk c + 1 */
  const size_t nchunks = (n + chunk - 1) / chunk;
  for (size_t c = 0; c < nchunks + 1 && rs == CZK_OK; c++) {
    if (c < nchunks) {
      const int b = (int)(c & 1);
      const size_t off = c * chunk, len = n - off < chunk ? n - off : chunk;
      FB_TRY(cudaMemcpyAsync(d_k[b], k + off, len * sizeof(fr_t), cudaMemcpyHostToDevice, st[b]));
      if (rs != CZK_OK) break;
      GOP(fb_mul_kernel)<<<(unsigned)((len + 127) / 128), 128, 0, st[b]>>>(d_xyzz[b], d_k[b], len, d_T);
      FB_TRY(cudaGetLastError());
      const size_t thr = (len + FB_K - 1) / FB_K;
      GOP(fb_affine_kernel)<<<(unsigned)((thr + 127) / 128), 128, 0, st[b]>>>(d_aff[b], d_xyzz[b], len);
      FB_TRY(cudaGetLastError());
      FB_TRY(cudaMemcpyAsync(h_aff[b], d_aff[b], len * sizeof(AFF), cudaMemcpyDeviceToHost, st[b]));
    }
    if (c >= 1 && rs == CZK_OK) { /* chunk c - 1 is complete once its stream is */
      const int b = (int)((c - 1) & 1);
      const size_t off = (c - 1) * chunk, len = n - off < chunk ? n - off : chunk;
      FB_TRY(cudaStreamSynchronize(st[b]));
      if (rs == CZK_OK) memcpy(out + off, h_aff[b], len * sizeof(AFF));
    }
  }
  for (int b = 0; b < 2; b++) {
    if (st[b]) cudaStreamSynchronize(st[b]);
    if (d_k[b]) cudaMemset(d_k[b], 0, chunk * sizeof(fr_t)); /* the scalars are secrets */
    cudaFree(d_k[b]);
    cudaFree(d_xyzz[b]);
    cudaFree(d_aff[b]);
    cudaFreeHost(h_aff[b]);
    if (st[b]) cudaStreamDestroy(st[b]);
  }
  cudaFree(d_T);
  FB_TRY(cudaDeviceSynchronize());
#undef FB_TRY
  return rs;
}

#undef FE
#undef FOP
#undef GOP
#undef XYZZ
#undef AFF
