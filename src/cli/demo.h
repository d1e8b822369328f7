/* demo.h: what `czk demo`'s two files share (private to src/cli): a row of the results table (every job, whatever
 * its kind) and the Filecoin jobs of demo_filecoin.c: keys set up once under their v28 names in the demo's keys
 * directory, one request per kind generated as `czk gen-vanilla` writes it, proven through the daemon's gRPC API with
 * the priority the reference gives the kind, and checked again as `czk verify --request` checks it. */
#ifndef CZK_CLI_DEMO_H
#define CZK_CLI_DEMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One job of the table. Filled by the thread that ran the job, read after it was joined. */
typedef struct czk__demo_row {
  char job_id[24];
  char kind[64];     /* the engine's kind name: winning-post-2KiB, porep-c2-2KiB, synthetic-k14, circom:demo-circom */
  int priority;      /* Cuzk__V1__Priority */
  unsigned parts;    /* partitions of the job */
  unsigned verified; /* partitions whose proof verified here, after the job */
  int code;          /* gRPC status of the Prove call (0: it answered) */
  int status;        /* AwaitProofResponse status (1: COMPLETED) */
  double wall_s;     /* submit to proof, as the client saw it */
  char err[200];
} czk__demo_row;

/* The Filecoin kinds of the demo, in table order. */
enum { CZK__DEMO_WINNING, CZK__DEMO_WINDOW, CZK__DEMO_POREP, CZK__DEMO_SNAP, CZK__DEMO_FC_KINDS };
/* Their `czk setup --kind` / `czk gen-vanilla` names: winning-post, window-post, porep, snap. */
extern const char *const czk__demo_fc_names[CZK__DEMO_FC_KINDS];

typedef struct czk__demo_fc {
  czk__demo_row row;
  int family;        /* CZK__DEMO_WINNING ... */
  char circuit[48];  /* the key's circuit id (PreloadSRS): winning-2k, wpost-2k, porep-2k, snap-2k */
  char dir[4200];    /* its request folder: request.json, the vanilla proofs, proof.bin */
  const char *addr;  /* the daemon */
} czk__demo_fc;

/* Makes every missing key of the kinds in on[] at sector_size in keys (a real setup on the CPU from fresh OS
 * randomness, written under the v28 names), printing a line per key; *setup_s: seconds spent setting up (0 when
 * every key was there). 0 on success. */
int czk__demo_fc_keys(const char *keys, uint64_t sector_size, const bool on[CZK__DEMO_FC_KINDS], double *setup_s);
/* Writes the request of one kind into dir (what `czk gen-vanilla KIND --sector-size S --seed seed` writes; dense
 * sectors: 2KiB and 8MiB) and fills j for czk__demo_fc_prove. 0 on success. */
int czk__demo_fc_generate(czk__demo_fc *j, int family, uint64_t sector_size, uint64_t seed, const char *dir,
                          const char *addr);
/* Thread body (arg: a czk__demo_fc): request.json read back, submitted through cuzk.v1.ProvingEngine/Prove as Curio
 * fills SubmitProofRequest, the returned proof written to dir/proof.bin. */
void *czk__demo_fc_prove(void *arg);
/* After the job: dir/proof.bin checked against dir/request.json and the .vk in keys (czk verify --request). */
void czk__demo_fc_verify(czk__demo_fc *j, const char *keys);

#endif
