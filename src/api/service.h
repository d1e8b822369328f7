/* service.h: the gRPC services cuzk.v1.ProvingEngine (the reference daemon's wire contract) and czk.v1 Admin
 * (GetTrace) on top of the engine: request decoding and validation, mapping to engine calls, gRPC status codes.
 *
 * Proof kinds -> engine kinds: POREP_SEAL_COMMIT "porep-c2", SNAP_DEALS_UPDATE "snap-update", WINDOW_POST_PARTITION
 * "window-post", WINNING_POST "winning-post" (input: the whole SubmitProofRequest, as packed protobuf);
 * CZK_SYNTHETIC "synthetic-k<log2(sector_size)>" (sector_size = the circuit's 2^k constraints, 0 = the daemon's
 * default; input: vanilla_proof, a text job spec); CZK_CIRCOM "circom:<vanilla_proofs[0]>" (input: vanilla_proof, the
 * .wtns bytes). A kind the engine has not registered is INVALID_ARGUMENT.
 * Status codes: INVALID_ARGUMENT (unknown/unsupported kind, bad priority, malformed request or input, input over the
 * kind's limit), NOT_FOUND (unknown job id or key), RESOURCE_EXHAUSTED (a job that can never fit the budget),
 * FAILED_PRECONDITION (cancel of a job that already ended; evict of a key in use), UNAVAILABLE (shutting down). */
#ifndef CZK_API_SERVICE_H
#define CZK_API_SERVICE_H

#include "api/render.h"
#include "czk/engine.h"

/* Request size limits: SubmitProof and Prove carry vanilla proofs (a 32 GiB PoRep C1 envelope is ~52 MB): up to
 * max_submit_bytes (default CZK_API_SUBMIT_MESSAGE; the daemon sets its max_message_size); every other request is a
 * few ids: up to CZK_API_SMALL_MESSAGE. Larger requests are RESOURCE_EXHAUSTED before decoding, and decoding a
 * request may take at most 2 x its size + 64 KiB (RESOURCE_EXHAUSTED beyond: many tiny fields). */
#define CZK_API_SUBMIT_MESSAGE (128u << 20)
#define CZK_API_SMALL_MESSAGE (64u << 10)

typedef struct czk__service {
  czk_engine *engine;
  czk__api_metrics metrics;
  unsigned default_synthetic_k;
  size_t max_submit_bytes; /* SubmitProof / Prove request limit */
  /* Optional: true when `kind` exists but was not registered because one partition can never fit the memory budget
   * (submit then answers RESOURCE_EXHAUSTED instead of INVALID_ARGUMENT). */
  bool (*kind_over_budget)(const char *kind);
  czk__daemon_info info; /* set by the daemon before serving; read-only afterwards */
  /* a CPU-only daemon (info.cpu_only) refuses Filecoin jobs of sectors this large or larger (hours per proof on the
   * CPU) unless allow_cpu_large_sectors; 0 = no limit */
  uint64_t cpu_sector_limit;
  bool allow_cpu_large_sectors;
  /* How long a SubmitProof / Prove waits for the memory budget to cover its request bytes (czk__service_request_bytes)
   * while jobs in flight hold it (default 10000 ms); then RESOURCE_EXHAUSTED. 0 = no wait. */
  uint64_t request_budget_wait_ms;
} czk__service;

void czk__service_init(czk__service *s, czk_engine *engine, unsigned default_synthetic_k);
void czk__service_destroy(czk__service *s);
/* czk__rpc_handler for the server (user = czk__service*). */
int czk__service_handle(void *user, const char *method, const uint8_t *req, size_t req_len, uint8_t **resp,
                       size_t *resp_len, char **err);
/* The bytes a SubmitProof / Prove request of req_len bytes is charged in the engine's memory budget (category
 * request) from before its decode until its parse is done: the transport's copy (1x), the decoder's bound
 * (2x + 64 KiB) and the kind's parsed form (taken as 1x): 4 x req_len + 64 KiB. */
uint64_t czk__service_request_bytes(size_t req_len);
/* gRPC code for an engine status (submit/await errors). */
int czk__service_grpc_code(czk_status st);

#endif
