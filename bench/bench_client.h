/* bench_client.h: the daemon-side helpers of the gRPC benchmarks (bench_client.c), shared with the other benchmarks
 * that drive a daemon (bench_filecoin.c): a private daemon for --spawn, the PreloadSRS call, the device counters of
 * GetMetrics (busy % and idle time by cause between two snapshots), and the latency table rows (nearest-rank
 * percentiles). Internal to the czk executable; needs the api layer. */
#ifndef CZK_BENCH_CLIENT_H
#define CZK_BENCH_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "api/client.h"

/* A daemon started by the benchmark: `czk daemon --listen unix:<temp dir>/czk.sock --keys-dir KEYS --log-level warn
 * EXTRA...` (EXTRA split at blanks), ready once it printed "ready on". NULL when it did not start (a message said why). */
typedef struct czk__bench_daemon czk__bench_daemon;
czk__bench_daemon *czk__bench_daemon_start(const char *keys_dir, const char *extra_args);
const char *czk__bench_daemon_addr(const czk__bench_daemon *d);
pid_t czk__bench_daemon_pid(const czk__bench_daemon *d);
/* SIGTERM, wait, remove the temp dir, free; 0 when the daemon exited cleanly. */
int czk__bench_daemon_stop(czk__bench_daemon *d);

/* One Prove call (SubmitProof + AwaitProof in the daemon) of r, no deadline; *t_submit / *t_done (czk__now_s) around
 * it. Returns the gRPC code: 0 with *out set (free with protobuf_c_message_free_unpacked), else err says why. */
int czk__bench_prove_call(const char *addr, Cuzk__V1__SubmitProofRequest *r, double *t_submit, double *t_done,
                          Cuzk__V1__ProveResponse **out, char *err, size_t errlen);

/* PreloadSRS of circuit_id; prints what happened and how long it took; 0 ok (on failure: why, in err). */
int czk__bench_preload(const char *addr, const char *circuit_id, double *seconds, char *err, size_t errlen);

/* The daemon's device counters (czk_device_{wall,busy,idle}_seconds_total) at one moment; NULL when GetMetrics failed
 * (or no memory). Free with free(). */
typedef struct czk__bench_devsnap czk__bench_devsnap;
czk__bench_devsnap *czk__bench_devsnap_take(const char *addr);
/* Busy % of all devices between two snapshots (-1 unknown); the per-device table (wall, busy, busy %, idle % by
 * cause) between them. */
double czk__bench_devsnap_busy(const czk__bench_devsnap *a, const czk__bench_devsnap *b);
void czk__bench_devsnap_print(const czk__bench_devsnap *a, const czk__bench_devsnap *b);

/* Latency table: the header (first column titled `first`), and a row of n samples in seconds (sorted in place):
 * count, min, p50, p95, max, mean. */
void czk__bench_lat_header(const char *first);
void czk__bench_lat_row(const char *label, double *v, size_t n);
/* Nearest-rank percentile of a sorted array (n > 0). */
double czk__bench_pct(const double *v, size_t n, double p);

/* A decimal unsigned in [lo, hi] (the whole string); false otherwise. */
bool czk__bench_parse_uint(const char *s, unsigned lo, unsigned hi, unsigned *out);

#endif
