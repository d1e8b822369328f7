/* porep_graph.c: what a PoRep verifier recomputes from public data (filecoin-porep.md section 4): porep_id, the
 * replica id, the interactive challenges, the DRG parents (BucketGraph over a ChaCha8 stream) and the expander
 * parents (3-round Feistel with BLAKE2b-512 rounds, libsodium), and a partition's public inputs.
 * ChaCha8 is written here (rand_chacha's ChaCha8Rng: 8 rounds, 64-bit block counter and 64-bit nonce 0, the keystream
 * read as little-endian u64 words); no Debian library offers the 8-round variant. */
#include <sodium.h>
#include <stdio.h>
#include <string.h>

#include "czk/porep.h"

void czk_porep_id(const czk_porep_info *info, uint8_t out[32]) {
  memset(out, 0, 32);
  for (int i = 0; i < 8; i++) out[i] = (uint8_t)(info->wire >> (8 * i)); /* then the nonce 0 and 16 zero bytes */
}

void czk_porep_replica_id(uint8_t out[32], const uint8_t prover_id[32], uint64_t sector_id, const uint8_t ticket[32],
                          const uint8_t comm_d[32], const uint8_t porep_id[32]) {
  uint8_t msg[136];
  memcpy(msg, prover_id, 32);
  for (int i = 0; i < 8; i++) msg[32 + i] = (uint8_t)(sector_id >> (56 - 8 * i)); /* big-endian */
  memcpy(msg + 40, ticket, 32);
  memcpy(msg + 72, comm_d, 32);
  memcpy(msg + 104, porep_id, 32);
  czk_sha256(out, msg, sizeof msg);
  out[31] &= 0x3f;
}

void czk_porep_prover_id(uint8_t out[32], uint64_t miner_id) {
  memset(out, 0, 32);
  for (int i = 0; i < 10; i++) { /* unsigned LEB128 of the actor id */
    out[i] = (uint8_t)(miner_id & 0x7f);
    miner_id >>= 7;
    if (!miner_id) break;
    out[i] |= 0x80;
  }
}

/* (x mod m) for a 256-bit little-endian x and a 64-bit m, by Horner over the bytes from the top. */
static uint64_t mod256(const uint8_t x[32], uint64_t m) {
  unsigned __int128 r = 0;
  for (int i = 31; i >= 0; i--) r = ((r << 8) | x[i]) % m;
  return (uint64_t)r;
}

uint64_t czk_porep_challenge_interactive(const uint8_t replica_id[32], const uint8_t seed[32], uint64_t nodes,
                                         uint32_t j) {
  uint8_t msg[68], h[32];
  memcpy(msg, replica_id, 32);
  memcpy(msg + 32, seed, 32);
  for (int i = 0; i < 4; i++) msg[64 + i] = (uint8_t)(j >> (8 * i));
  czk_sha256(h, msg, sizeof msg);
  return mod256(h, nodes - 1) + 1;
}

uint64_t czk_porep_challenge_ni(const uint8_t replica_id[32], const uint8_t comm_r[32], uint64_t nodes, uint32_t j) {
  static const char tag[] = "filecoin.io|PoRep|1|NonInteractive|1";
  uint8_t msg[sizeof tag - 1 + 68], h[32];
  memcpy(msg, tag, sizeof tag - 1);
  memcpy(msg + sizeof tag - 1, replica_id, 32);
  memcpy(msg + sizeof tag - 1 + 32, comm_r, 32);
  for (int i = 0; i < 4; i++) msg[sizeof tag - 1 + 64 + i] = (uint8_t)(j >> (8 * i));
  czk_sha256(h, msg, sizeof msg);
  return mod256(h, nodes - 1) + 1;
}

/* keyed BLAKE2b-256 of a || b (the synthetic PoRep PRF keys) */
static void synth_key(uint8_t out[32], const char *key, const uint8_t a[32], const uint8_t b[32]) {
  crypto_generichash_blake2b_state st;
  crypto_generichash_blake2b_init(&st, (const uint8_t *)key, strlen(key), 32);
  crypto_generichash_blake2b_update(&st, a, 32);
  crypto_generichash_blake2b_update(&st, b, 32);
  crypto_generichash_blake2b_final(&st, out, 32);
}

/* len bytes of the ChaCha20 (RFC 8439, nonce "synth-porep\0") keystream under key from byte offset off */
static void synth_stream(uint8_t *out, size_t len, const uint8_t key[32], uint64_t off) {
  static const uint8_t nonce[12] = "synth-porep";
  uint8_t buf[192];
  size_t skip = (size_t)(off % 64), n = skip + len;
  memset(buf, 0, n);
  crypto_stream_chacha20_ietf_xor_ic(buf, buf, n, nonce, (uint32_t)(off / 64), key);
  memcpy(out, buf + skip, len);
}

uint64_t czk_porep_synth_challenge(const uint8_t replica_id[32], const uint8_t comm_r[32], uint64_t nodes,
                                   uint64_t t) {
  uint8_t key[32], x[32];
  synth_key(key, "filecoin.io|PoRep|1|Synthetic|1|Generation", replica_id, comm_r);
  synth_stream(x, 32, key, 32 * t);
  return mod256(x, nodes - 1) + 1;
}

uint64_t czk_porep_synth_index(const uint8_t replica_id[32], const uint8_t seed[32], uint64_t n_synth, uint64_t j) {
  uint8_t key[32], x[4];
  synth_key(key, "filecoin.io|PoRep|1|Synthetic|1|Selection", replica_id, seed);
  synth_stream(x, 4, key, 4 * j);
  return ((uint64_t)x[0] | (uint64_t)x[1] << 8 | (uint64_t)x[2] << 16 | (uint64_t)x[3] << 24) % n_synth;
}

uint64_t czk_porep_synth_count(uint64_t nodes) { return nodes < (1ull << 18) ? nodes : 1ull << 18; }

uint64_t czk_porep_challenge_at(const czk_porep_info *info, const uint8_t replica_id[32], const uint8_t seed[32],
                             const uint8_t comm_r[32], uint32_t k, uint32_t i) {
  uint64_t nodes = info->sector_size / 32;
  uint32_t j = info->challenges * k + i;
  if (info->feature == 1) {
    uint64_t t = czk_porep_synth_index(replica_id, seed, czk_porep_synth_count(nodes), j);
    return czk_porep_synth_challenge(replica_id, comm_r, nodes, t);
  }
  if (info->feature == 2) return czk_porep_challenge_ni(replica_id, comm_r, nodes, j);
  return czk_porep_challenge_interactive(replica_id, seed, nodes, j);
}

/* ------------------------------------------------------------------------------------------------ ChaCha8 */
typedef struct chacha8 {
  uint32_t key[8];
  uint64_t counter;
  uint32_t block[16];
  unsigned pos; /* next u32 word of block (16 = empty) */
} chacha8;

#define ROTL(x, n) (((x) << (n)) | ((x) >> (32 - (n))))
#define QR(a, b, c, d)                                                                                                \
  a += b, d ^= a, d = ROTL(d, 16), c += d, b ^= c, b = ROTL(b, 12), a += b, d ^= a, d = ROTL(d, 8), c += d, b ^= c,    \
  b = ROTL(b, 7)

static void chacha8_block(chacha8 *s) {
  uint32_t x[16] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574, s->key[0], s->key[1], s->key[2], s->key[3],
                    s->key[4],  s->key[5],  s->key[6],  s->key[7],  (uint32_t)s->counter, (uint32_t)(s->counter >> 32),
                    0,          0};
  uint32_t in[16];
  memcpy(in, x, sizeof x);
  for (int r = 0; r < 8; r += 2) {
    QR(x[0], x[4], x[8], x[12]);
    QR(x[1], x[5], x[9], x[13]);
    QR(x[2], x[6], x[10], x[14]);
    QR(x[3], x[7], x[11], x[15]);
    QR(x[0], x[5], x[10], x[15]);
    QR(x[1], x[6], x[11], x[12]);
    QR(x[2], x[7], x[8], x[13]);
    QR(x[3], x[4], x[9], x[14]);
  }
  for (int i = 0; i < 16; i++) s->block[i] = x[i] + in[i];
  s->counter++;
  s->pos = 0;
}

static void chacha8_init(chacha8 *s, const uint8_t seed[32]) {
  for (int i = 0; i < 8; i++)
    s->key[i] = (uint32_t)seed[4 * i] | (uint32_t)seed[4 * i + 1] << 8 | (uint32_t)seed[4 * i + 2] << 16 |
                (uint32_t)seed[4 * i + 3] << 24;
  s->counter = 0;
  s->pos = 16;
}

static uint64_t chacha8_u64(chacha8 *s) {
  if (s->pos + 2 > 16) chacha8_block(s);
  uint64_t v = (uint64_t)s->block[s->pos] | (uint64_t)s->block[s->pos + 1] << 32;
  s->pos += 2;
  return v;
}

/* ------------------------------------------------------------------------------------------------ parents */
void czk_porep_drg_parents(const czk_porep_info *info, uint64_t v, uint64_t out[6]) {
  if (v < 2) {
    memset(out, 0, 6 * sizeof *out);
    return;
  }
  uint8_t pid[32], msg[49], h[32], seed[32];
  czk_porep_id(info, pid);
  memcpy(msg, "Filecoin_DRSample", 17);
  memcpy(msg + 17, pid, 32);
  czk_sha256(h, msg, sizeof msg);
  memcpy(seed, h, 28);
  for (int i = 0; i < 4; i++) seed[28 + i] = (uint8_t)(v >> (8 * i));
  chacha8 rng;
  chacha8_init(&rng, seed);
  uint64_t meta = 5 * v, nb = 0, r[5];
  while ((1ull << nb) < meta) nb++; /* ceil(log2(meta)) */
  for (int t = 0; t < 5; t++) {
    uint64_t bucket = chacha8_u64(&rng) % nb + 1;
    uint64_t largest = bucket >= 63 ? meta : (meta < (1ull << bucket) ? meta : 1ull << bucket);
    uint64_t smallest = largest >> 1 > 2 ? largest >> 1 : 2;
    uint64_t dist = smallest + chacha8_u64(&rng) % (largest - smallest + 1);
    uint64_t q = (meta - dist) / 5;
    r[t] = q == v ? v - 1 : q;
  }
  if (info->api_minor >= 1) {
    out[0] = v - 1;
    for (int t = 0; t < 5; t++) out[1 + t] = r[t];
  } else {
    for (int t = 0; t < 5; t++) out[t] = r[t];
    out[5] = v - 1;
  }
}

static uint64_t feistel_f(uint64_t right, uint64_t key, uint64_t mask) {
  uint8_t in[16], out[64];
  for (int i = 0; i < 8; i++) in[i] = (uint8_t)(right >> (56 - 8 * i));
  for (int i = 0; i < 8; i++) in[8 + i] = (uint8_t)(key >> (56 - 8 * i));
  crypto_generichash_blake2b(out, 64, in, 16, NULL, 0);
  uint64_t r = 0;
  for (int i = 0; i < 8; i++) r = r << 8 | out[i];
  return r & mask;
}

void czk_porep_exp_parents(const czk_porep_info *info, uint64_t v, uint64_t out[8]) {
  uint8_t pid[32], msg[48], h[32];
  czk_porep_id(info, pid);
  memcpy(msg, "Filecoin_Feistel", 16);
  memcpy(msg + 16, pid, 32);
  czk_sha256(h, msg, sizeof msg);
  uint64_t keys[3];
  for (int k = 0; k < 3; k++) {
    keys[k] = 0;
    for (int i = 7; i >= 0; i--) keys[k] = keys[k] << 8 | h[8 * k + i];
  }
  uint64_t n = 8 * (info->sector_size / 32);
  unsigned half = 1;
  while ((1ull << (2 * half)) < n) half++; /* 4^half >= n */
  uint64_t rmask = (1ull << half) - 1, lmask = rmask << half;
  for (int i = 0; i < 8; i++) {
    uint64_t u = 8 * v + (uint64_t)i;
    do {
      uint64_t l = (u & lmask) >> half, r = u & rmask;
      for (int k = 0; k < 3; k++) {
        uint64_t nl = r;
        r = l ^ feistel_f(r, keys[k], rmask);
        l = nl;
      }
      u = (l << half) | r;
    } while (u >= n);
    out[i] = info->api_minor >= 1 ? u / 8 : (u & 0xffffffffull) / 8;
  }
}

czk_status czk_porep_public_inputs(const czk_porep_info *info, const uint8_t replica_id[32], const uint8_t comm_d[32],
                                   const uint8_t comm_r[32], const uint8_t seed[32], uint32_t k, czk_fr *out,
                                   size_t out_len) {
  size_t need = 3 + 18 * (size_t)info->challenges;
  if (!info || out_len < need || k >= info->partitions) return CZK_ERR_INVALID_ARG;
  if (sodium_init() < 0) return CZK_ERR_INTERNAL;
  CZK_TRY(czk_fr_from_bytes_le(&out[0], replica_id));
  CZK_TRY(czk_fr_from_bytes_le(&out[1], comm_d));
  CZK_TRY(czk_fr_from_bytes_le(&out[2], comm_r));
  size_t n = 3;
  for (uint32_t i = 0; i < info->challenges; i++) {
    uint64_t c = czk_porep_challenge_at(info, replica_id, seed, comm_r, k, i), p[8];
    czk_fr_from_u64(&out[n++], c);
    czk_porep_drg_parents(info, c, p);
    for (int t = 0; t < 6; t++) czk_fr_from_u64(&out[n++], p[t]);
    czk_porep_exp_parents(info, c, p);
    for (int t = 0; t < 8; t++) czk_fr_from_u64(&out[n++], p[t]);
    for (int t = 0; t < 3; t++) czk_fr_from_u64(&out[n++], c);
  }
  return CZK_OK;
}

/* ------------------------------------------------------------------------------------------------ labels */
void czk_porep_label(uint8_t out[32], const uint8_t replica_id[32], unsigned layer, uint64_t v,
                     const uint8_t *const parents[37]) {
  czk_sha256_ctx h;
  uint8_t pre[64];
  memcpy(pre, replica_id, 32);
  for (int s = 0; s < 4; s++) pre[32 + s] = (uint8_t)(layer >> (24 - 8 * s));
  for (int s = 0; s < 8; s++) pre[36 + s] = (uint8_t)(v >> (56 - 8 * s));
  memset(pre + 44, 0, 20);
  czk_sha256_init(&h);
  czk_sha256_update(&h, pre, 64);
  if (v > 0)
    for (int m = 0; m < 37; m++) czk_sha256_update(&h, parents[m], 32);
  czk_sha256_final(&h, out);
  out[31] &= 0x3f;
}

/* ------------------------------------------------------------------------------------------------ native checks */
static void hex4(char out[9], const uint8_t *b) {
  for (int i = 0; i < 4; i++) snprintf(out + 2 * i, 3, "%02x", b[i]);
}

/* Walks a path from leaf: *root gets the computed root, *index the leaf index (mixed radix). */
static czk_status walk(const czk_porep_path *p, const unsigned *ar, unsigned n, czk_fc_hasher h, const uint8_t leaf[32],
                       uint8_t root[32], uint64_t *index) {
  uint8_t cur[32], group[16 * 32];
  memcpy(cur, leaf, 32);
  uint64_t idx = 0, mul = 1;
  unsigned si = 0;
  for (unsigned l = 0; l < n; l++) {
    unsigned a = ar[l];
    for (unsigned i = 0, k = 0; i < a; i++) memcpy(group + 32 * i, i == p->index[l] ? cur : p->sib[si + k++], 32);
    si += a - 1;
    CZK_TRY(czk_fc_node_hash(h, cur, group, a));
    idx += p->index[l] * mul;
    mul *= a;
  }
  memcpy(root, cur, 32);
  *index = idx;
  return CZK_OK;
}

czk_status czk_porep_column_hash(uint8_t out[32], const uint8_t *rows, unsigned layers) {
  const czk_poseidon *p;
  czk_fr in[CZK_POREP_MAX_LAYERS], h;
  if (layers < 1 || layers > CZK_POREP_MAX_LAYERS) return CZK_ERR_INVALID_ARG;
  CZK_TRY(czk_poseidon_get(&p, layers, CZK_POSEIDON_STANDARD));
  for (unsigned l = 0; l < layers; l++) CZK_TRY(czk_fr_from_bytes_le(&in[l], rows + 32 * l));
  CZK_TRY(czk_poseidon_hash(&h, p, CZK_POSEIDON_MERKLE_TREE, 0, in, layers));
  czk_fr_to_bytes_le(out, &h);
  return CZK_OK;
}

#define FAIL(...) (snprintf(err, err_len, __VA_ARGS__), CZK_ERR_VERIFY_FAILED)

czk_status czk_porep_c1_check(const czk_porep_c1 *c1, uint64_t miner_id, uint64_t sector_id, char *err,
                              size_t err_len) {
  char scratch[8];
  if (!err || !err_len) err = scratch, err_len = sizeof scratch;
  err[0] = 0;
  const czk_porep_info *info = c1->info;
  static const uint8_t zero[32];
  if (memcmp(c1->comm_d, zero, 32) == 0 || memcmp(c1->comm_r, zero, 32) == 0 || memcmp(c1->seed, zero, 32) == 0)
    return FAIL("comm_d, comm_r and seed must not be zero");
  uint8_t prover[32], pid[32], rid[32], t[32];
  char a[9], b[9];
  czk_porep_prover_id(prover, miner_id);
  czk_porep_id(info, pid);
  czk_porep_replica_id(rid, prover, sector_id, c1->ticket, c1->comm_d, pid);
  if (memcmp(rid, c1->replica_id, 32) != 0)
    return hex4(a, c1->replica_id), hex4(b, rid),
           FAIL("replica_id %s... is not SHA-256(prover id of miner %llu, sector %llu, ticket, comm_d, porep_id) = "
                "%s...", a, (unsigned long long)miner_id, (unsigned long long)sector_id, b);
  if (sodium_init() < 0) return CZK_ERR_INTERNAL;
  czk_porep_circuit c;
  czk_porep_circuit_of(info, &c);
  unsigned L = info->layers, nd = 0, nr = 0, ard[40], arr[16];
  uint64_t nodes = info->sector_size / 32;
  while ((1ull << nd) < nodes) ard[nd++] = 2;
  uint64_t trees = (uint64_t)(info->sub ? info->sub : 1) * (info->top ? info->top : 1), per = nodes / trees;
  for (uint64_t m = 1; m < per; m *= info->base) arr[nr++] = info->base;
  if (info->sub) arr[nr++] = info->sub;
  if (info->top) arr[nr++] = info->top;
  for (uint32_t k = 0; k < c1->partitions; k++) {
    uint8_t kids[64];
    memcpy(kids, c1->comm_c[k], 32);
    memcpy(kids + 32, c1->comm_r_last[k], 32);
    CZK_TRY(czk_fc_node_hash(CZK_FC_POSEIDON, t, kids, 2));
    if (memcmp(t, c1->comm_r, 32) != 0) return FAIL("partition %u: comm_r is not H(comm_c, comm_r_last)", k);
    for (uint32_t i = 0; i < c1->challenges; i++) {
      const czk_porep_challenge *ch = &c1->ch[(size_t)k * c1->challenges + i];
      uint64_t cn = ch->challenge, idx, par[8];
      uint64_t want = czk_porep_challenge_at(info, rid, c1->seed, c1->comm_r, k, i);
      if (cn != want)
        return FAIL("partition %u challenge %u: node %llu, the %s challenge derived from the public data is %llu", k, i,
                    (unsigned long long)cn, info->feature == 1 ? "synthetic" : info->feature == 2 ? "non-interactive"
                    : "interactive", (unsigned long long)want);
      CZK_TRY(walk(&ch->d_path, ard, nd, CZK_FC_SHA256, ch->data_leaf, t, &idx));
      if (idx != cn || memcmp(t, c1->comm_d, 32) != 0)
        return FAIL("partition %u challenge %u (node %llu): the TreeD path %s", k, i, (unsigned long long)cn,
                    idx != cn ? "opens another node" : "does not hash to comm_d");
      const czk_porep_column *cols[14];
      czk_porep_drg_parents(info, cn, par);
      for (int p = 0; p < 6; p++) {
        cols[p] = &ch->drg[p];
        uint8_t h[32];
        CZK_TRY(czk_porep_column_hash(h, ch->drg[p].rows[0], L));
        CZK_TRY(walk(&ch->drg[p].path, arr, nr, CZK_FC_POSEIDON, h, t, &idx));
        if (idx != par[p] || memcmp(t, c1->comm_c[k], 32) != 0)
          return FAIL("partition %u challenge %u (node %llu): DRG parent %d %s", k, i, (unsigned long long)cn, p,
                      idx != par[p] ? "opens another node than the graph's parent" : "column is not in TreeC (comm_c)");
      }
      czk_porep_exp_parents(info, cn, par);
      for (int p = 0; p < 8; p++) {
        cols[6 + p] = &ch->exp[p];
        uint8_t h[32];
        CZK_TRY(czk_porep_column_hash(h, ch->exp[p].rows[0], L));
        CZK_TRY(walk(&ch->exp[p].path, arr, nr, CZK_FC_POSEIDON, h, t, &idx));
        if (idx != par[p] || memcmp(t, c1->comm_c[k], 32) != 0)
          return FAIL("partition %u challenge %u (node %llu): expander parent %d %s", k, i, (unsigned long long)cn, p,
                      idx != par[p] ? "opens another node than the graph's parent" : "column is not in TreeC (comm_c)");
      }
      /* the labels of every layer from the parents' rows, as the circuit computes them */
      uint8_t labels[CZK_POREP_MAX_LAYERS][32];
      for (unsigned l = 1; l <= L; l++) {
        const uint8_t *par[37];
        unsigned nl = l == 1 ? 6 : 14;
        for (unsigned m = 0; m < 37; m++) {
          unsigned q = m % nl;
          par[m] = q < 6 ? cols[q]->rows[l - 1] : cols[q]->rows[l - 2];
        }
        czk_porep_label(labels[l - 1], rid, l, cn, par);
      }
      /* the encoding in TreeR_last, the challenged column in TreeC */
      czk_fr lf, df;
      uint8_t enc[32], h[32];
      CZK_TRY(czk_fr_from_bytes_le(&lf, labels[L - 1]));
      CZK_TRY(czk_fr_from_bytes_le(&df, ch->data_leaf));
      czk_fr_add(&lf, &lf, &df);
      czk_fr_to_bytes_le(enc, &lf);
      CZK_TRY(walk(&ch->r_path, arr, nr, CZK_FC_POSEIDON, enc, t, &idx));
      if (idx != cn || memcmp(t, c1->comm_r_last[k], 32) != 0)
        return FAIL("partition %u challenge %u (node %llu): the encoding (label %u + data) %s", k, i,
                    (unsigned long long)cn, L, idx != cn ? "path opens another node" : "is not in TreeR_last (comm_r_last)");
      CZK_TRY(czk_porep_column_hash(h, labels[0], L));
      CZK_TRY(walk(&ch->c_path, arr, nr, CZK_FC_POSEIDON, h, t, &idx));
      if (idx != cn || memcmp(t, c1->comm_c[k], 32) != 0)
        return FAIL("partition %u challenge %u (node %llu): the column of the recomputed labels %s", k, i,
                    (unsigned long long)cn, idx != cn ? "path opens another node" : "is not in TreeC (comm_c)");
    }
  }
  return CZK_OK;
}
