/* fc_setup.c: Groth16 keys of our own for the Filecoin circuits (czk setup --kind, and the benchmarks' in-memory
 * keys): the circuit found by kind and sector size, its outline or recorded shape, and the setup on a backend.
 * Full-size circuits (10^8 constraints) are set up from their outline by walking the circuit once into the QAP
 * accumulator (czk_cs_qap_new), so no matrices are held; small ones from their recorded matrices. */
#include <stdlib.h>
#include <string.h>

#include "czk/kinds.h"
#include "czk/porep.h"
#include "czk/post.h"
#include "czk/snap.h"

enum { FC_POREP = 0, FC_WINNING = 1, FC_WINDOW = 2, FC_SNAP = 3 };

czk_status czk_fc_circuit_find(czk_fc_circuit *out, const char *kind, uint64_t sector_size) {
  memset(out, 0, sizeof *out);
  if (!kind) return CZK_ERR_INVALID_ARG;
  out->sector_size = sector_size;
  if (strcmp(kind, "porep") == 0) {
    const czk_porep_info *pi = czk_porep_info_for_size(sector_size);
    if (!pi) return CZK_ERR_NOT_FOUND;
    out->family = FC_POREP, out->info = pi;
    czk_porep_param_stem(pi, out->stem, sizeof out->stem);
    snprintf(out->id, sizeof out->id, "%s", czk_porep_circuit_id(pi));
  } else if (strcmp(kind, "winning-post") == 0 || strcmp(kind, "window-post") == 0) {
    const bool win = kind[1] == 'i' && kind[2] == 'n' && kind[3] == 'n';
    const czk_post_info *pi = czk_post_info_find(win ? CZK_POST_WINNING : CZK_POST_WINDOW, sector_size, 0);
    if (!pi) return CZK_ERR_NOT_FOUND;
    out->family = win ? FC_WINNING : FC_WINDOW, out->info = pi;
    czk_post_param_stem(pi, out->stem, sizeof out->stem);
    snprintf(out->id, sizeof out->id, "%s", czk_post_circuit_id(pi));
  } else if (strcmp(kind, "snap") == 0) {
    const czk_snap_info *si = czk_snap_info_for_size(sector_size);
    if (!si) return CZK_ERR_NOT_FOUND;
    out->family = FC_SNAP, out->info = si;
    czk_snap_param_stem(si, out->stem, sizeof out->stem);
    snprintf(out->id, sizeof out->id, "%s", czk_snap_circuit_id(si));
  } else {
    return CZK_ERR_NOT_FOUND;
  }
  return CZK_OK;
}

czk_status czk_fc_circuit_walk(void *ctx, czk_cs *cs) {
  const czk_fc_circuit *c = ctx;
  if (c->family == FC_POREP) {
    czk_porep_circuit pc;
    czk_porep_circuit_of(c->info, &pc);
    return czk_porep_synthesize(cs, &pc, NULL);
  }
  if (c->family == FC_SNAP) {
    czk_snap_instance inst = {.info = c->info};
    return czk_snap_synthesize(cs, &inst);
  }
  czk_post_instance inst = {.info = c->info};
  return czk_post_synthesize(cs, &inst);
}

czk_status czk_fc_circuit_outline(const czk_fc_circuit *c, czk_r1cs **out) {
  *out = NULL;
  if (c->family == FC_POREP) {
    czk_porep_circuit pc;
    czk_porep_circuit_of(c->info, &pc);
    return czk_porep_outline(&pc, out);
  }
  if (c->family == FC_SNAP) return czk_snap_outline(c->info, out);
  return czk_post_outline(c->info, out);
}

czk_status czk_fc_circuit_record(const czk_fc_circuit *c, czk_r1cs **out) {
  *out = NULL;
  czk_cs *cs;
  CZK_TRY(czk_cs_shape_new(&cs));
  czk_status st = czk_fc_circuit_walk((void *)c, cs);
  if (st != CZK_OK) {
    czk_cs_free(cs);
    return st;
  }
  return czk_cs_shape_finish(cs, out);
}

czk_status czk_fc_setup_mem(const czk_fc_circuit *c, czk_backend *be, czk_pool *pool, const czk_fr *toxic, int walk,
                            czk_groth16_key_mem *key, czk_r1cs **shape) {
  memset(key, 0, sizeof *key);
  if (shape) *shape = NULL;
  czk_r1cs *sh = NULL;
  CZK_TRY(czk_fc_circuit_outline(c, &sh));
  if (walk < 0) walk = sh->n_constraints > (1u << 22);
  if (!walk) {
    czk_r1cs_free(sh);
    CZK_TRY(czk_fc_circuit_record(c, &sh));
  }
  czk_groth16_setup_opts o = {pool, be, czk_fc_circuit_walk, (void *)c, toxic};
  czk_status st = czk_groth16_setup_mem(key, sh, &o);
  if (st == CZK_OK && shape)
    *shape = sh;
  else
    czk_r1cs_free(sh);
  return st;
}

/* splitmix64 expanded to 64 bytes per value, reduced mod r */
void czk_fc_seed_toxic(czk_fr tw[5], uint64_t seed) {
  uint64_t x = seed ^ 0x637a6b2d73657475ull; /* "czk-setu" */
  for (int i = 0; i < 5; i++) {
    uint8_t b[64];
    for (int j = 0; j < 8; j++) {
      uint64_t z = (x += 0x9e3779b97f4a7c15ull);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      z ^= z >> 31;
      memcpy(b + 8 * j, &z, 8);
    }
    czk_fr_from_bytes_wide_le(&tw[i], b, sizeof b);
  }
}
