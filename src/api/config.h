/* config.h: the daemon's configuration, driven by ONE table (CZK_CONFIG_TABLE): the config-file parser, the
 * command-line flags (--key value / --key=value, '_' written as '-'), `--help`, `--dump-config`, the example config
 * (etc/czk.conf) and docs/config.md are all generated from or checked against it.
 *
 * File format: one `key = value` per line, `#` comments, blank lines ignored; strings may be quoted ("..."); sizes
 * accept units (B, KiB, MiB, GiB, TiB, and KB/MB/GB/TB as powers of 1000); durations accept ms, s, m, h (default s).
 * Unknown keys, malformed values and out-of-range values are rejected with the key and the reason. */
#ifndef CZK_API_CONFIG_H
#define CZK_API_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "czk/status.h"

/* X(type, key, default-as-text, help). Types: STR, SIZE (bytes), UINT, BOOL, DUR (milliseconds). A default of ""
 * means "computed at start" for the keys that say so in their help. */
#define CZK_CONFIG_TABLE(X)                                                                                           \
  X(STR, listen, "", "gRPC address: unix:PATH or host:port (default: unix socket czk.sock in $XDG_RUNTIME_DIR, else /tmp/czk-$UID)") \
  X(STR, socket_mode, "0600", "permissions of the unix socket, octal (e.g. 0660 to let socket_group connect)")    \
  X(STR, socket_group, "", "group given to the unix socket: a name or gid the daemon's user belongs to (default: the daemon's)") \
  X(STR, http, "", "HTTP address for /metrics, /status, /healthz, e.g. 127.0.0.1:9820 (default: off)")              \
  X(STR, keys_dir, "", "directory of proving keys (default: $XDG_DATA_HOME/czk/keys or ~/.local/share/czk/keys)")  \
  X(STR, param_dir, "", "Filecoin parameter files by their v28 names (default: $FIL_PROOFS_PARAMETER_CACHE, else /var/tmp/filecoin-proof-parameters)") \
  X(SIZE, memory_budget, "", "memory budget for keys and in-flight proofs (default: physical memory minus 10% and 2 GiB)") \
  X(STR, gpus, "all", "GPUs to use: all, none, or a comma list of ordinals")                                        \
  X(STR, exclude_gpus, "", "comma list of GPU ordinals to leave alone")                                             \
  X(BOOL, allow_cpu_fallback, "false", "when GPUs are configured (gpus lists ordinals) or present (an NVIDIA driver) but none is usable, prove on the CPU with a loud warning instead of refusing to start") \
  X(BOOL, allow_cpu_large_sectors, "false", "let a daemon proving on the CPU only accept Filecoin jobs of 512MiB sectors and larger (hours per proof)") \
  X(UINT, synthesis_workers, "2", "CPU synthesis workers")                                                           \
  X(UINT, gpu_workers_per_device, "2", "GPU workers per device (two-phase prove overlaps them)")                    \
  X(SIZE, urgent_lane, "4GiB", "urgent lane: CRITICAL partitions up to this size (a/b/c + witness + scratch) get a synthesis worker, a GPU worker per device and budget headroom of their own, so a WinningPoSt never waits behind a backlog (0: off)") \
  X(STR, gpu_key_memory, "auto", "GPU memory for resident key copies (auto: as much as the device memory plan holds; 0: keys streamed)") \
  X(SIZE, gpu_memory_reserve, "2GiB", "GPU memory left outside the device memory plan (CUDA context, transient allocations); the plan holds key copies, the proves' lanes and NTT tables in the rest, so a prove waits for memory instead of failing an allocation; unless set, at most 1/16 of the device or its gpu_memory_limit (0: no plan)") \
  X(STR, gpu_memory_limit, "", "use at most this much of each GPU: a size for every device (e.g. 16GiB, to emulate a 16 GB card on a larger one) or ORDINAL:SIZE entries separated by commas (default: the whole device)") \
  X(STR, gpu_key_tier, "auto", "where each key of a kind that is not urgent lives on a GPU, when the device memory plan holds it: auto (the plan chooses), resident, partial or streamed (from the pinned host copy); where that does not fit, the plan's choice, with a warning") \
  X(STR, gpu_lane_shape, "auto", "the lanes such keys prove in: auto (the plan chooses), full, compact (MSMs in chunks, H and the witness MSMs on two streams) or lean (one stream, smallest); where that does not fit, the plan's choice, with a warning") \
  X(UINT, cpu_workers, "1", "workers of the CPU proving device (when it is used)")                                   \
  X(UINT, threads, "0", "threads of the shared CPU pool (0 = all online CPUs)")                                      \
  X(DUR, result_ttl, "600s", "how long finished results are kept for AwaitProof")                                    \
  X(BOOL, self_verify, "true", "verify every partition proof before returning it")                                   \
  X(BOOL, setup_in_memory, "false", "benchmarks only: a missing Filecoin key is set up in memory (on the first GPU) instead of failing") \
  X(SIZE, max_message_size, "128MiB", "largest SubmitProof/Prove message (other requests: 64 KiB) or reply")         \
  X(UINT, max_calls, "256", "concurrent gRPC calls served")                                                          \
  X(DUR, drain_grace, "30s", "on SIGTERM/SIGINT, how long in-flight work may finish before it is cancelled")        \
  X(STR, log_level, "info", "trace, debug, info, warn, error or off")                                                 \
  X(STR, log_format, "text", "text, or json (one JSON object per line: ts, level, component, msg)")              \
  X(STR, log_file, "", "append logs to this file instead of stderr (reopened on SIGHUP)")                           \
  X(STR, trace_file, "", "write the timeline trace (Chrome trace JSON) here on exit")

/* Longest string value (a flat file's line is at most 4095 bytes, the key, " = " and the quotes included). */
#define CZK__CONFIG_MAX_VALUE 3072

typedef struct czk__config {
#define CZK__CFG_FIELD_STR(key) char *key;
#define CZK__CFG_FIELD_SIZE(key) uint64_t key;
#define CZK__CFG_FIELD_UINT(key) uint64_t key;
#define CZK__CFG_FIELD_BOOL(key) bool key;
#define CZK__CFG_FIELD_DUR(key) uint64_t key;
#define CZK__CFG_FIELD(type, key, def, help) CZK__CFG_FIELD_##type(key)
  CZK_CONFIG_TABLE(CZK__CFG_FIELD)
#undef CZK__CFG_FIELD
  bool set_by_user[64]; /* index = table order: keys given in a file or on the command line */
  char **warnings;      /* one line per key of a reference (cuzk) TOML file that czk ignores, and why */
  size_t nwarnings;
} czk__config;

/* gpu_memory_limit for the device of this ordinal: *out = the limit in bytes, 0 for none. CZK_ERR_CONFIG (err says
 * why) when the text is neither empty, a size, nor ORDINAL:SIZE entries separated by commas. */
czk_status czk__config_gpu_limit(const char *spec, int ordinal, uint64_t *out, char *err, size_t errlen);
/* gpu_key_tier / gpu_lane_shape as the plan's masks (czk_engine_plan_in.tiers / .shapes; 0 for auto). CZK_ERR_CONFIG
 * (err says why) for any other word. */
czk_status czk__config_plan_choice(const char *tier, const char *shape, uint32_t *tiers, uint32_t *shapes, char *err,
                                   size_t errlen);

/* Defaults from the table (computed keys stay empty/0 until czk__config_finalize). */
czk_status czk__config_init(czk__config *c);
void czk__config_free(czk__config *c);
/* Set one key from text; on failure writes "key: reason" into err. */
czk_status czk__config_set(czk__config *c, const char *key, const char *value, char *err, size_t errlen);
/* Parse a config file; err gets "file:line: key: reason". A file named *.toml, or whose first line that is not blank
 * or a comment is a [section] header, is read as the reference daemon's (cuzk) TOML configuration (config_toml.c). */
czk_status czk__config_load_file(czk__config *c, const char *path, char *err, size_t errlen);
/* The same from an open stream (read from its position; path names it in messages and, by a .toml suffix, picks
 * TOML) and from len bytes in memory (fmemopen; what tests/fuzz/fuzz_config.c parses, with no file). */
czk_status czk__config_load_stream(czk__config *c, const char *path, FILE *f, char *err, size_t errlen);
czk_status czk__config_load_mem(czk__config *c, const char *name, const void *text, size_t len, char *err,
                                size_t errlen);
/* The reference daemon's TOML file (sections [daemon] [memory] [gpus] [scheduler] [synthesis] [pipeline] [srs]
 * [logging], plus [czk] for czk's own keys by name), mapped onto this table; each key czk ignores adds one warning
 * (c->warnings) saying why. Without [daemon] listen / [srs] param_cache the reference's defaults apply
 * (unix:///run/curio/cuzk.sock, /data/zk/params). err gets "file: [section] key: reason". */
czk_status czk__config_load_toml(czk__config *c, const char *path, char *err, size_t errlen);
bool czk__config_is_toml(const char *path);
/* czk__config_is_toml of an open stream (name for the suffix); leaves the stream where it was. */
bool czk__config_is_toml_stream(const char *name, FILE *f);
czk_status czk__config_load_toml_stream(czk__config *c, const char *path, FILE *f, char *err, size_t errlen);
/* Append one warning line (printf format) to c->warnings. */
void czk__config_warn(czk__config *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Index of a key in the table, or -1. */
long czk__config_key_index(const char *key);
/* Physical memory in bytes (0 when unknown). */
uint64_t czk__config_physical_memory(void);
/* Parse --key value / --key=value flags from argv[first..argc); unknown flags are errors. --config FILE is applied
 * first wherever it appears. Non-flag arguments are errors. */
czk_status czk__config_parse_args(czk__config *c, int argc, char **argv, int first, char *err, size_t errlen);
/* Fill computed defaults (listen path, keys dir, memory budget) and validate cross-key constraints. Without
 * XDG_RUNTIME_DIR the socket goes to /tmp/czk-$UID, checked by czk__config_private_dir. */
czk_status czk__config_finalize(czk__config *c, char *err, size_t errlen);
/* Create `dir` (mode 0700) or accept an existing one only when it is a directory itself (lstat: a symbolic link is
 * refused), owned by the effective user and not writable by group or others; else CZK_ERR_CONFIG and why in err. */
czk_status czk__config_private_dir(const char *dir, char *err, size_t errlen);
/* The unix socket's permissions from socket_mode / socket_group (the group resolved by name or number; -1 when
 * unset). Checked by czk__config_finalize too. */
czk_status czk__config_socket_perms(const czk__config *c, unsigned *mode, long *gid, char *err, size_t errlen);
/* Print every key as a config file (with the help text as comments). */
void czk__config_dump(const czk__config *c, FILE *out);
/* Print the flags with help (for --help). */
void czk__config_print_help(FILE *out);
/* Markdown table of all keys (docs/config.md is checked against it by a test). */
void czk__config_print_markdown(FILE *out);

/* Sizes and durations in the table are parsed by core/units.h (czk__parse_size, czk__parse_duration_ms). */

#endif
