/* request.h: request.json, the file form of one Filecoin proof request (the SubmitProof fields Curio fills), as
 * `czk gen-vanilla` writes it and `czk prove --request` / `czk verify --request` read it (request.c, json-c).
 *
 *   {"kind": "window-post", "proof_kind": 3, "registered_proof": 13, "registered_proof_name": "...",
 *    "sector_size": 2048, "miner_id": 1000, "prover_id": "<hex 32 B>", "randomness": "<hex 32 B>",
 *    "partition_index": 0,
 *    "sectors": [{"sector_id": 1, "comm_r": "<hex 32 B>"}, ...],      (public sector info, in request order)
 *    "vanilla_proofs": ["vanilla-0.bin", ...]}                          (files, relative to request.json's folder)
 * A PoRep request has "sector_number" and "vanilla_proof": "c1.json" (the envelope or the bare C1 output) instead of
 * randomness and vanilla_proofs.
 * A SnapDeals request (proof_kind 2) has "comm_r_old", "comm_d_new", "comm_r_new" (hex 32 B, the raw request fields)
 * and "vanilla_proofs": one PartitionProof file per partition, in partition order.
 */
#ifndef CZK_FILECOIN_REQUEST_H
#define CZK_FILECOIN_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct czk__fc_request {
  char kind[32];
  int proof_kind;
  uint64_t registered_proof, sector_size, miner_id;
  uint32_t partition_index;
  uint8_t randomness[32];
  size_t n_sectors;
  uint64_t *sector_ids;
  uint8_t (*comm_r)[32];
  size_t n_vanilla;
  uint8_t **vanilla;
  size_t *vanilla_len;
  uint64_t sector_number; /* PoRep / SnapDeals: "sector_number" */
  uint8_t *vanilla_one;   /* PoRep: "vanilla_proof" (a file: the envelope or the C1 output), NULL when absent */
  size_t vanilla_one_len;
  const char *vanilla_one_name; /* czk__fc_request_write: the "vanilla_proof" file name (PoRep); NULL for PoSt */
  bool has_comms; /* SnapDeals: "comm_r_old", "comm_d_new", "comm_r_new" */
  uint8_t comm_r_old[32], comm_d_new[32], comm_r_new[32];
} czk__fc_request;

/* Reads path and every vanilla proof file it names. 0 on success; else a reason in err. */
int czk__fc_request_load(const char *path, czk__fc_request *r, char *err, size_t err_len);
/* Writes dir/request.json (the vanilla proofs are the caller's files vanilla_names, already in dir). */
int czk__fc_request_write(const char *dir, const czk__fc_request *r, const char *const *vanilla_names);
void czk__fc_request_free(czk__fc_request *r);
/* 32-byte hex (64 digits) <-> bytes. */
void czk__hex32(char out[65], const uint8_t b[32]);
int czk__unhex32(uint8_t out[32], const char *hex);

#endif
