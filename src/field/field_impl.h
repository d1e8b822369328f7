/* field_impl.h: the generic prime-field template, instantiated once for Fp (fp.c) and once for Fr (fr.c).
 *
 * The including file defines, before including this header:
 *   FT            the element type (czk_fp / czk_fr), a struct with uint64_t l[FN]
 *   FN            limb count (6 / 4), a compile-time constant
 *   FNAME(x)      the public name of operation x (czk_fp_##x)
 *   FINT(x)       an internal file-local name (fp_##x)
 *   FDEC          the size of the decimal buffer of to_dec (120 / 80)
 *   FASM_MUL      the mulx/adx multiplication of mont_x86_64.c (used when czk__field_adx is set)
 *   and the constant arrays k_mod, k_n0, k_one, k_r2, k_two64, k_half_m, and for inversion k_sg_mod, k_sg_r2,
 *   k_sg_minv, k_sg_limbs, k_sg_batches (see constants.h and safegcd.h).
 * It defines every operation common to both fields (arithmetic, inversion, batch inversion, pow, Legendre,
 * comparisons, raw/byte/string conversions). Invariant: every FT value is fully reduced, in Montgomery form.
 *
 * Costs (M = field multiplication, S = squaring): inv = constant-time Bernstein-Yang safegcd (safegcd.h: 15 batches
 * of 62 divsteps for Fp, 10 for Fr, each batch ~8 L + 2 word multiplications for the matrix), inv_vartime = the
 * variable-time safegcd (stops when g = 0). batch_inv(n) = 3(n-1) M + 1 inv. legendre = a^((m-1)/2) with 4-bit
 * fixed windows (~log2(m) S + log2(m)/4 M). */

/* ------------------------------------------------------------------ core arithmetic */

CZK_API const FT FNAME(zero_v) = {{0}};
CZK_API const FT FNAME(one_v) = {k_one_init};

/* Out-of-line multiply/square used by every composite routine: inlining the unrolled Montgomery body into long
 * exponentiation loops makes GCC spill far more than one call costs. */
static __attribute__((noinline)) void FINT(mul)(FT *r, const FT *a, const FT *b) {
#if CZK__FIELD_ASM
  if (czk__field_adx) {
    FASM_MUL(r->l, a->l, b->l);
    return;
  }
#endif
  czk__mont_mul(r->l, a->l, b->l, k_mod, k_n0, FN);
}
static __attribute__((noinline)) void FINT(sqr)(FT *r, const FT *a) {
#if CZK__FIELD_ASM
  if (czk__field_adx) {
    FASM_MUL(r->l, a->l, a->l);
    return;
  }
#endif
  czk__mont_sqr(r->l, a->l, k_mod, k_n0, FN);
}

void FNAME(set_zero)(FT *r) { *r = FNAME(zero_v); }
void FNAME(set_one)(FT *r) { *r = FNAME(one_v); }
void FNAME(add)(FT *r, const FT *a, const FT *b) { czk__mont_add(r->l, a->l, b->l, k_mod, FN); }
void FNAME(sub)(FT *r, const FT *a, const FT *b) { czk__mont_sub(r->l, a->l, b->l, k_mod, FN); }
void FNAME(neg)(FT *r, const FT *a) { czk__mont_neg(r->l, a->l, k_mod, FN); }
void FNAME(dbl)(FT *r, const FT *a) { czk__mont_add(r->l, a->l, a->l, k_mod, FN); }
void FNAME(mul)(FT *r, const FT *a, const FT *b) { FINT(mul)(r, a, b); }
void FNAME(sqr)(FT *r, const FT *a) { FINT(sqr)(r, a); }

/* raw (canonical) limbs -> Montgomery form: x * R^2 * R^-1. Requires x < m. */
static void FINT(to_mont)(FT *r, const uint64_t *x) {
  FT t;
  memcpy(t.l, x, sizeof t.l);
  czk__mont_mul(r->l, t.l, k_r2, k_mod, k_n0, FN);
}

void FNAME(from_u64)(FT *r, uint64_t v) {
  uint64_t x[FN] = {v};
  FINT(to_mont)(r, x); /* v < 2^64 < m */
}

bool FNAME(is_zero)(const FT *a) { return czk__limbs_eq(a->l, FNAME(zero_v).l, FN) != 0; }
bool FNAME(is_one)(const FT *a) { return czk__limbs_eq(a->l, FNAME(one_v).l, FN) != 0; }
bool FNAME(eq)(const FT *a, const FT *b) { return czk__limbs_eq(a->l, b->l, FN) != 0; }
void FNAME(cmov)(FT *r, const FT *a, const FT *b, bool c) { czk__limbs_cmov(r->l, a->l, b->l, (uint64_t)c, FN); }

/* ------------------------------------------------------------------ exponentiation */

/* r = a^e for a little-endian exponent of n limbs. Branches on the exponent only (never on a): constant-time in a
 * when e is public. 4-bit fixed windows when e is longer than 64 bits, plain square-and-multiply otherwise. */
static void FINT(pow)(FT *r, const FT *a, const uint64_t *e, size_t n) {
  while (n > 0 && e[n - 1] == 0)
    n--;
  if (n == 0) {
    *r = FNAME(one_v);
    return;
  }
  size_t bits = 64 * (n - 1) + (64 - (size_t)__builtin_clzll(e[n - 1]));
  FT acc;
  if (bits <= 64) {
    FT base = *a;
    acc = base;
    for (size_t i = bits - 1; i-- > 0;) {
      FINT(sqr)(&acc, &acc);
      if ((e[i / 64] >> (i % 64)) & 1) FINT(mul)(&acc, &acc, &base);
    }
    *r = acc;
    return;
  }
  FT tab[16];
  tab[0] = FNAME(one_v);
  tab[1] = *a;
  for (int i = 2; i < 16; i++)
    FINT(mul)(&tab[i], &tab[i - 1], &tab[1]);
  size_t nwin = (bits + 3) / 4;
  acc = FNAME(one_v);
  for (size_t w = nwin; w-- > 0;) {
    size_t bit = 4 * w;
    unsigned d = (unsigned)((e[bit / 64] >> (bit % 64)) & 15); /* 4 | 64: a window never straddles limbs */
    if (w + 1 < nwin) {
      FINT(sqr)(&acc, &acc);
      FINT(sqr)(&acc, &acc);
      FINT(sqr)(&acc, &acc);
      FINT(sqr)(&acc, &acc);
      if (d) FINT(mul)(&acc, &acc, &tab[d]);
    } else {
      acc = tab[d];
    }
  }
  *r = acc;
}

void FNAME(pow_vartime)(FT *r, const FT *a, const uint64_t *exp, size_t exp_limbs) { FINT(pow)(r, a, exp, exp_limbs); }

int FNAME(legendre)(const FT *a) {
  static const uint64_t e[FN] = k_half_m_init;
  FT t;
  FINT(pow)(&t, a, e, FN);
  int one = (int)czk__limbs_eq(t.l, FNAME(one_v).l, FN);
  int zero = (int)czk__limbs_eq(t.l, FNAME(zero_v).l, FN);
  return one - (1 - one - zero); /* 1, 0 or -1 */
}

/* ------------------------------------------------------------------ inversion (safegcd.h) */

/* Bernstein-Yang with e = R^2 at the start: for the Montgomery input a = xR the output is a^-1 R^2 = x^-1 R, the
 * Montgomery form of x^-1, with no fix-up multiplication. 0 maps to 0. */
void FNAME(inv)(FT *r, const FT *a) {
  czk__sg_inv(r->l, a->l, k_sg_mod, k_sg_minv, k_sg_r2, k_sg_batches, FN, k_sg_limbs);
}

void FNAME(inv_vartime)(FT *r, const FT *a) {
  czk__sg_inv_var(r->l, a->l, k_sg_mod, k_sg_minv, k_sg_r2, FN, k_sg_limbs);
}

czk_status FNAME(batch_inv)(FT *r, const FT *a, size_t n, FT *scratch) {
  if (n == 0) return CZK_OK;
  FT *pre = scratch;
  if (!pre) {
    pre = (FT *)malloc(n * sizeof(FT));
    if (!pre) return CZK_ERR_NOMEM;
  }
  FT acc = FNAME(one_v), t;
  for (size_t i = 0; i < n; i++) {
    pre[i] = acc;
    FNAME(cmov)(&t, &a[i], &FNAME(one_v), FNAME(is_zero)(&a[i]));
    FINT(mul)(&acc, &acc, &t);
  }
  FNAME(inv)(&acc, &acc); /* acc = (prod of non-zero a[i])^-1 */
  for (size_t i = n; i-- > 0;) {
    bool z = FNAME(is_zero)(&a[i]);
    FNAME(cmov)(&t, &a[i], &FNAME(one_v), z);
    FT ri;
    FINT(mul)(&ri, &acc, &pre[i]); /* = a[i]^-1 */
    FINT(mul)(&acc, &acc, &t);     /* drop a[i] from the running inverse */
    FNAME(cmov)(&r[i], &ri, &FNAME(zero_v), z);
  }
  if (!scratch) free(pre);
  return CZK_OK;
}

/* ------------------------------------------------------------------ conversions */

void FNAME(to_raw)(uint64_t out[FN], const FT *a) {
  static const uint64_t one_raw[FN] = {1};
  uint64_t t[FN];
  czk__mont_mul(t, a->l, one_raw, k_mod, k_n0, FN);
  memcpy(out, t, sizeof t);
}

czk_status FNAME(from_raw)(FT *r, const uint64_t in[FN]) {
  if (!czk__limbs_lt(in, k_mod, FN)) return CZK_ERR_NOT_CANONICAL;
  FINT(to_mont)(r, in);
  return CZK_OK;
}

void FNAME(to_bytes_le)(uint8_t out[8 * FN], const FT *a) {
  uint64_t x[FN];
  FNAME(to_raw)(x, a);
  for (int i = 0; i < 8 * FN; i++)
    out[i] = (uint8_t)(x[i / 8] >> (8 * (i % 8)));
}
void FNAME(to_bytes_be)(uint8_t out[8 * FN], const FT *a) {
  uint64_t x[FN];
  FNAME(to_raw)(x, a);
  for (int i = 0; i < 8 * FN; i++)
    out[8 * FN - 1 - i] = (uint8_t)(x[i / 8] >> (8 * (i % 8)));
}
czk_status FNAME(from_bytes_le)(FT *r, const uint8_t in[8 * FN]) {
  uint64_t x[FN] = {0};
  for (int i = 0; i < 8 * FN; i++)
    x[i / 8] |= (uint64_t)in[i] << (8 * (i % 8));
  return FNAME(from_raw)(r, x);
}
czk_status FNAME(from_bytes_be)(FT *r, const uint8_t in[8 * FN]) {
  uint64_t x[FN] = {0};
  for (int i = 0; i < 8 * FN; i++)
    x[i / 8] |= (uint64_t)in[8 * FN - 1 - i] << (8 * (i % 8));
  return FNAME(from_raw)(r, x);
}

/* Horner over 64-bit words from the most significant: acc = acc * 2^64 + word (all in Montgomery form). */
void FNAME(from_bytes_wide_le)(FT *r, const uint8_t *in, size_t len) {
  FT acc = FNAME(zero_v), w;
  size_t nw = (len + 7) / 8;
  for (size_t k = nw; k-- > 0;) {
    uint64_t x[FN] = {0};
    for (size_t b = 0; b < 8 && 8 * k + b < len; b++)
      x[0] |= (uint64_t)in[8 * k + b] << (8 * b);
    czk__mont_mul(acc.l, acc.l, k_two64, k_mod, k_n0, FN);
    FINT(to_mont)(&w, x);
    FNAME(add)(&acc, &acc, &w);
  }
  *r = acc;
}

/* Decimal: repeated division of the canonical integer by 10^19. */
void FNAME(to_dec)(char out[FDEC], const FT *a) {
  uint64_t x[FN];
  FNAME(to_raw)(x, a);
  char buf[FDEC];
  size_t pos = sizeof buf;
  buf[--pos] = 0;
  const uint64_t base = 10000000000000000000ULL; /* 10^19 */
  for (;;) {
    uint64_t rem = 0;
    int nz = 0;
    for (int i = FN; i-- > 0;) {
      czk__u128 cur = ((czk__u128)rem << 64) | x[i];
      x[i] = (uint64_t)(cur / base);
      rem = (uint64_t)(cur % base);
      nz |= x[i] != 0;
    }
    for (int d = 0; d < 19; d++) {
      buf[--pos] = (char)('0' + rem % 10);
      rem /= 10;
      if (!nz && rem == 0) break;
    }
    if (!nz) break;
  }
  memcpy(out, buf + pos, sizeof buf - pos);
}

/* Parse decimal or 0x-hex into FN+1 limbs; anything beyond m is NOT_CANONICAL, non-digits are FORMAT. */
czk_status FNAME(from_str)(FT *r, const char *s) {
  if (!s) return CZK_ERR_INVALID_ARG;
  unsigned base = 10;
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s += 2;
  }
  if (!*s) return CZK_ERR_FORMAT;
  uint64_t x[FN + 1] = {0};
  bool overflow = false;
  for (const char *c = s; *c; c++) {
    unsigned d;
    if (*c >= '0' && *c <= '9')
      d = (unsigned)(*c - '0');
    else if (base == 16 && *c >= 'a' && *c <= 'f')
      d = (unsigned)(*c - 'a' + 10);
    else if (base == 16 && *c >= 'A' && *c <= 'F')
      d = (unsigned)(*c - 'A' + 10);
    else
      return CZK_ERR_FORMAT;
    if (overflow) continue;
    uint64_t carry = d;
    for (int i = 0; i < FN + 1; i++) {
      czk__u128 p = (czk__u128)x[i] * base + carry;
      x[i] = (uint64_t)p;
      carry = (uint64_t)(p >> 64);
    }
    if (carry || x[FN]) overflow = true; /* already >= 2^(64 FN) > m */
  }
  if (overflow) return CZK_ERR_NOT_CANONICAL;
  return FNAME(from_raw)(r, x);
}
