/* kinds_internal.h: the descriptor of a circuit family, which the one Groth16 kind adapter (adapter.c) turns into an
 * engine kind (czk_engine_kind). A descriptor says what is particular to a family; the adapter does the rest the
 * same way for every family: the request -> partitions, the shape cache on disk and the key files (setup when
 * missing), synthesis into an assignment, public inputs kept per partition, the one prover on the device's backend
 * with the engine's key copy, self-verification, key loading / pinning / device copies, and the memory shape.
 *
 * Key flavours:
 *   CZK__KEY_BELLPERSON: the circuit is synthesized by our code: desc->shape_new records it (cached as
 *     <keys_dir>/<key_name>.r1cs), desc->witness builds one partition's witness; the key is <keys_dir>/<key_name>.params
 *     (+ .vk), made by a real setup on first use when absent (the published Filecoin names load the same way).
 *   CZK__KEY_SNARKJS: the witness comes with the request (desc->wtns), the key is a snarkjs .zkey (key_path). */
#ifndef CZK_KINDS_INTERNAL_H
#define CZK_KINDS_INTERNAL_H

#include "czk/snarkjs.h"
#include "czk/groth16.h"
#include "czk/kinds.h"
#include "core/clock.h"

typedef enum czk__key_flavour { CZK__KEY_BELLPERSON = 0, CZK__KEY_SNARKJS = 1 } czk__key_flavour;

typedef struct czk__kind_desc {
  const char *family; /* "synthetic", "circom", ... (the kind's name is made by the constructor) */
  czk__key_flavour flavour;
  uint32_t max_partitions;
  size_t max_input; /* bytes of vanilla_proof accepted (larger: CZK_ERR_LIMIT) */
  /* The request (its proof kind already matched the kind's name) -> a typed struct and its partition count. */
  czk_status (*parse)(void *cfg, const czk_kind_request *r, void **parsed, uint32_t *nparts);
  void (*parsed_free)(void *parsed);
  /* bellperson flavour: the circuit's shape, and partition `part`'s witness. */
  czk_status (*shape_new)(void *cfg, czk_r1cs **out);
  czk_status (*witness)(void *cfg, const void *parsed, uint32_t part, czk_witness *out);
  /* Optional (bellperson flavour), for circuits too large for matrices in memory: the shape as an outline (counts and
   * densities, czk_r1cs_outline_new; what the key needs, not cached on disk) and partition `part`'s whole assignment
   * (witness and a, b, c) made directly; they replace shape_new and witness + the CSR evaluation. */
  czk_status (*outline_new)(void *cfg, czk_r1cs **out);
  /* Optional, with outline_new: the circuit walked without values into cs (a QAP accumulator: a key set up in memory
   * from the outline, see czk_kinds_set_setup_in_memory). */
  czk_status (*walk)(void *cfg, czk_cs *cs);
  czk_status (*assign)(void *cfg, const void *parsed, uint32_t part, czk_pool *pool, czk_groth16_assignment *out);
  /* Optional, with assign: witness-only proving on devices (the prover computes a, b, c there from the compiled
   * circuit; the host computes only w, in about a twentieth of assign's time for PoRep). compile: the circuit compiled
   * (czk/compiled.h; the adapter caches it as <keys_dir>/<key_name>.czkc). witness_assign: partition part's witness
   * alone (a, b, c NULL; n_domain, n_rows as assign sets them); CZK_ERR_UNSUPPORTED when this request's circuit is
   * not the compiled one (the adapter then calls assign). */
  czk_status (*compile)(void *cfg, czk_compiled **out);
  czk_status (*witness_assign)(void *cfg, const void *parsed, uint32_t part, czk_pool *pool,
                               czk_groth16_assignment *out);
  /* Optional: partition `part`'s public inputs (without ONE) recomputed from the request alone (borrowed from parsed).
   * When set, the adapter proves only a witness whose inputs equal them and self-verifies against them. */
  czk_status (*public_inputs)(void *cfg, const void *parsed, uint32_t part, const czk_fr **pub, size_t *n);
  /* bellperson flavour: true = a missing .params/.vk is an error (Filecoin kinds: only the published keys or
   * `czk setup`'s prove), false = a real setup makes it on first use. */
  bool no_setup;
  /* snarkjs flavour: the request's witness (borrowed from parsed). */
  const czk_circom_wtns *(*wtns)(const void *parsed);
  void (*destroy)(void *cfg);
} czk__kind_desc;

/* What the adapter needs from a family instance. name / key_name are copied; cfg is owned by the kind from then on
 * (desc->destroy frees it). key_id: NULL = name. key_path: snarkjs flavour's .zkey. shape and key_bytes: the partition reservation and the
 * host bytes of the loaded key; device_bytes: one device copy (queries + index lists). */
typedef struct czk__kind_spec {
  const czk__kind_desc *desc;
  void *cfg;
  const char *name;
  const char *key_name;
  const char *key_id; /* the id PreloadSRS / EvictSRS and the key cache use (NULL = name) */
  const char *keys_dir;
  const char *key_path;
  czk_engine_shape shape;
  uint64_t key_bytes;
  uint64_t device_bytes;
  czk_pool *pool;
} czk__kind_spec;

/* A parser's refusal: writes the reason into r->error (when the caller gave a buffer) and returns st (adapter.c). */
czk_status czk__kind_reason(const czk_kind_request *r, czk_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A parser's native checks that began at t0 (czk__clock_now_ns) have ended: their time goes to *r->check_ns. */
static inline void czk__kind_check_time(const czk_kind_request *r, uint64_t t0) {
  if (r->check_ns) *r->check_ns += czk__clock_now_ns() - t0;
}

/* Fill *out as an engine kind over spec (adapter.c). On failure spec->cfg is destroyed. */
czk_status czk__kind_make(czk_engine_kind *out, const czk__kind_spec *spec);

#endif
