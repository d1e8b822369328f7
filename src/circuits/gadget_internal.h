/* gadget_internal.h: helpers shared by the gadget files: linear combinations with inline storage (no malloc for
 * the common short ones; they spill to the heap beyond CZK__GL_INLINE terms), the witness-mode shortcut (no
 * combinations are built when enforce() ignores them), and cached Fr constants (2^k, -1). */
#ifndef CZK_CIRCUITS_GADGET_INTERNAL_H
#define CZK_CIRCUITS_GADGET_INTERNAL_H

#include <stdlib.h>
#include <string.h>

#include "czk/gadgets.h"

#define CZK__GL_INLINE 8

/* A czk_lc whose terms start in an inline buffer. Only gl_* may add to it (czk_lc_add would realloc the inline
 * pointer). Errors (out of memory) are recorded in lc.err, which czk_cs_enforce turns into the cs error. */
typedef struct czk__gl {
  czk_lc lc;
  czk_lc_term inl[CZK__GL_INLINE];
} czk__gl;

static inline void czk__gl_init(czk__gl *g) {
  g->lc.t = g->inl;
  g->lc.n = 0;
  g->lc.cap = CZK__GL_INLINE;
  g->lc.err = CZK_OK;
}

static inline void czk__gl_free(czk__gl *g) {
  if (g->lc.t != g->inl) free(g->lc.t);
  g->lc.t = g->inl;
  g->lc.n = 0;
  g->lc.cap = CZK__GL_INLINE;
}

static inline void czk__gl_add(czk__gl *g, czk_var v, const czk_fr *coeff) {
  czk_lc *lc = &g->lc;
  if (lc->err != CZK_OK) return;
  if (lc->n == lc->cap) {
    size_t cap = lc->cap * 2;
    czk_lc_term *t;
    if (lc->t == g->inl) {
      t = malloc(cap * sizeof *t);
      if (t) memcpy(t, g->inl, sizeof g->inl);
    } else {
      t = realloc(lc->t, cap * sizeof *t);
    }
    if (!t) {
      lc->err = CZK_ERR_NOMEM;
      return;
    }
    lc->t = t;
    lc->cap = cap;
  }
  lc->t[lc->n].coeff = *coeff;
  lc->t[lc->n].var = v;
  lc->n++;
}

/* Constants (computed once, thread-safe). */
const czk_fr *czk__fr_pow2(unsigned k); /* 2^k, k < 256 */
const czk_fr *czk__fr_neg_one(void);
const czk_fr *czk__fr_neg_pow2(unsigned k);

static inline void czk__gl_add_var(czk__gl *g, czk_var v) { czk__gl_add(g, v, &czk_fr_one_v); }
static inline void czk__gl_sub_var(czk__gl *g, czk_var v) { czk__gl_add(g, v, czk__fr_neg_one()); }
/* g += Boolean::lc(ONE, coeff); neg = -coeff. */
static inline void czk__gl_add_bool(czk__gl *g, czk_bool b, const czk_fr *coeff, const czk_fr *neg) {
  switch (b.kind) {
  case CZK_BOOL_CONST:
    if (b.value) czk__gl_add(g, CZK_VAR_ONE, coeff);
    break;
  case CZK_BOOL_IS: czk__gl_add(g, b.var, coeff); break;
  default:
    czk__gl_add(g, CZK_VAR_ONE, coeff);
    czk__gl_add(g, b.var, neg);
    break;
  }
}

/* True when enforce() needs the combinations (shape recorder, checker). */
static inline bool czk__want_lc(const czk_cs *cs) { return czk_cs_get_mode(cs) != CZK_CS_WITNESS; }

/* True when a gadget that passes its evaluations (czk__enforce_free_v) must still build the combinations: every mode
 * but the witness builder and the evaluator. */
static inline bool czk__want_lc_v(const czk_cs *cs) {
  czk_cs_mode m = czk_cs_get_mode(cs);
  return m != CZK_CS_WITNESS && m != CZK_CS_EVAL;
}

/* Enforce a * b = c with its evaluations (czk_cs_enforce_v) and free the three combinations. */
static inline czk_status czk__enforce_free_v(czk_cs *cs, const char *name, czk__gl *a, czk__gl *b, czk__gl *c,
                                             const czk_fr *va, const czk_fr *vb, const czk_fr *vc) {
  czk_status st = czk_cs_enforce_v(cs, name, &a->lc, &b->lc, &c->lc, va, vb, vc);
  czk__gl_free(a);
  czk__gl_free(b);
  czk__gl_free(c);
  return st;
}

/* Enforce a * b = c and free the three combinations. */
static inline czk_status czk__enforce_free(czk_cs *cs, const char *name, czk__gl *a, czk__gl *b, czk__gl *c) {
  czk_status st = czk_cs_enforce(cs, name, &a->lc, &b->lc, &c->lc);
  czk__gl_free(a);
  czk__gl_free(b);
  czk__gl_free(c);
  return st;
}

#endif
