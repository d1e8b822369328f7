/* daemon.h: pieces of `czk daemon` shared with `czk demo`: running a daemon in-process, and the registry of circuit
 * kinds the daemon serves (daemon_kinds.c). */
#ifndef CZK_CLI_DAEMON_H
#define CZK_CLI_DAEMON_H

#include "api/config.h"
#include "api/render.h"
#include "czk/engine.h"

/* Register the kinds this build can prove: synthetic-k<k> for k in [min_k, max_k] (keys generated on first use into
 * keys_dir) and circom:<name> for every <name>.zkey in keys_dir. Returns the first hard error; kinds that do not fit
 * the budget are skipped with a warning. */
czk_status czk__daemon_register_kinds(czk_engine *e, const czk__config *cfg);
/* True when `kind` exists but one partition can never fit the budget (it was not registered). */
bool czk__daemon_kind_over_budget(const char *kind);
/* Free what register_kinds allocated (after the engine is destroyed). */
void czk__daemon_kinds_free(void);

/* Engine devices for the configuration: CUDA devices when built and present (minus excluded ones), else the CPU.
 * No silent CPU fallback: when gpus lists ordinals, or gpus = all and an NVIDIA driver is present (/proc/driver/nvidia,
 * /dev/nvidia<N>), and no CUDA device can be used, CZK_ERR_NO_DEVICE with the reason in why, unless
 * allow_cpu_fallback (then the CPU, a loud warning, info->cpu_fallback and its reason). info->cpu_only: the CPU
 * device is the engine's only one. info may be NULL. */
czk_status czk__daemon_devices(const czk__config *cfg, czk_engine_device_desc **devs, uint32_t *n,
                               czk__daemon_info *info, char *why, size_t whylen);
void czk__daemon_devices_free(czk_engine_device_desc *devs, uint32_t n);

#endif
