/* post_circuit.c: FallbackPoStCircuit::synthesize (rust-fil-proofs storage-proofs-post fallback/circuit.rs),
 * constraint for constraint (filecoin-post.md section 4). Per slot: comm_r_last, comm_c, comm_r allocated (aux, in that
 * order), comm_r inputized, comm_r = Poseidon_2(comm_c, comm_r_last), then per inclusion proof the PoR gadget with the
 * slot's comm_r_last variable as its (private) root: leaf, per level the index bits then the siblings, insert, the
 * level hash; the path bits packed into one input (the leaf challenge); computed root * ONE = comm_r_last.
 * Slots past the real sectors repeat the last sector (WindowPoSt padding); WinningPoSt unrolls its 66 openings into
 * 66 slots of one opening each. Cost per slot: 313 + C * (530 * base levels + 530 (sub 8) + 314 (top 2) + 2). */
#include <string.h>

#include "czk/gadgets.h"
#include "czk/post.h"

static czk_status fr_of(czk_fr *out, const uint8_t b[32], bool values) {
  if (!values) {
    czk_fr_set_zero(out);
    return CZK_OK;
  }
  return czk_fr_from_bytes_le(out, b);
}

czk_status czk_post_synthesize(czk_cs *cs, const czk_post_instance *inst) {
  if (!cs || !inst || !inst->info) return CZK_ERR_INVALID_ARG;
  const czk_post_info *info = inst->info;
  bool values = czk_cs_has_values(cs);
  if (values && (!inst->sectors || inst->n_sectors < 1)) return CZK_ERR_INVALID_ARG;
  if (inst->sectors) {
    if (info->type == CZK_POST_WINNING ? inst->n_sectors != 1 : inst->n_sectors > info->sector_count)
      return CZK_ERR_SIZE_MISMATCH;
    for (size_t i = 0; i < inst->n_sectors; i++)
      if (inst->sectors[i].n_openings != info->challenge_count || !inst->sectors[i].openings)
        return CZK_ERR_SIZE_MISMATCH;
  }
  unsigned nlev = czk_post_levels(info);
  czk_fc_path_level path[CZK_POST_MAX_LEVELS];
  memset(path, 0, sizeof path);
  for (unsigned l = 0; l < nlev; l++) path[l].arity = czk_post_level_arity(info, l);
  const czk_poseidon *p2;
  CZK_TRY(czk_poseidon_get(&p2, 2, CZK_POSEIDON_STANDARD));

  for (uint32_t slot = 0; slot < info->slots; slot++) {
    /* the sector behind this slot and its first opening */
    const czk_post_sector *s = NULL;
    uint32_t first = 0;
    if (inst->sectors) {
      if (info->type == CZK_POST_WINNING) {
        s = &inst->sectors[0];
        first = slot;
      } else {
        s = &inst->sectors[slot < inst->n_sectors ? slot : inst->n_sectors - 1];
      }
    }
    czk_fr v_crl, v_cc, v_cr;
    CZK_TRY(fr_of(&v_crl, s ? s->comm_r_last : NULL, s && values));
    CZK_TRY(fr_of(&v_cc, s ? s->comm_c : NULL, s && values));
    CZK_TRY(fr_of(&v_cr, s ? s->comm_r : NULL, s && values));
    czk_num crl, cc, cr, h;
    CZK_TRY(czk_num_alloc(cs, &crl, &v_crl));
    CZK_TRY(czk_num_alloc(cs, &cc, &v_cc));
    CZK_TRY(czk_num_alloc(cs, &cr, &v_cr));
    CZK_TRY(czk_num_inputize(cs, &cr));
    czk_num pre[2] = {cc, crl};
    CZK_TRY(czk_poseidon_gadget(cs, &h, p2, CZK_POSEIDON_MERKLE_TREE, 0, pre, 2));
    CZK_TRY(czk_num_enforce_equal(cs, &cr, &h));
    for (uint32_t j = 0; j < info->slot_challenges; j++) {
      czk_fc_por por;
      memset(&por, 0, sizeof por);
      por.base_arity = info->base;
      por.sub_arity = info->sub;
      por.top_arity = info->top;
      por.n_levels = nlev;
      por.hasher = CZK_FC_POSEIDON;
      por.private_root = true;
      por.root_var = &crl;
      if (s && values) {
        const czk_post_opening *o = &s->openings[first + j];
        unsigned si = 0;
        for (unsigned l = 0; l < nlev; l++) {
          path[l].index = o->index[l];
          memcpy(path[l].siblings, o->sib[si], (size_t)(path[l].arity - 1) * 32);
          si += path[l].arity - 1;
        }
        memcpy(por.leaf, o->leaf, 32);
        memcpy(por.root, s->comm_r_last, 32);
        por.path = path;
      }
      CZK_TRY(czk_fc_por_circuit(cs, &por));
    }
  }
  return czk_cs_status(cs);
}
