#!/usr/bin/env bash
# soak.sh: `czk bench soak` as a test (CTest test_soak, label soak): a private daemon under a random mix of every
# kind with cancels, short await timeouts, duplicate request ids, malformed requests and client disconnects for
# CZK_SOAK_DURATION (default 60s; CZK_SOAK_KINDS narrows the kinds, CZK_SOAK_SEED picks the mix); the bench exits 1 when any of its checks fails (one outcome per job, proofs verify,
# malformed refused, accounting, budget back to the key bytes, RSS and fds flat, SIGTERM exit 0), and so does this.
#
#   tests/daemon/soak.sh <czk-binary> <cache-dir> [<oracle-cache>]
#
# The 2 KiB Filecoin keys and vanilla proofs are made on the first run and cached in <cache-dir> (the build tree);
# the circom kind joins when node_modules is present (scripts/oracle-prepare.sh builds the `mix` circuit's key in
# <oracle-cache>, default <cache-dir>/oracle; CTest passes the oracle tests' cache, already built by oracle_prepare)
# and is left out of the mix (CZK_SOAK_KINDS included) when it is not.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
czk=${1:?usage: soak.sh <czk-binary> <cache-dir>}
cache=${2:?usage: soak.sh <czk-binary> <cache-dir>}
mkdir -p "$cache"
oracle=${3:-$cache/oracle}
circom=()
kinds=()
[ -n "${CZK_SOAK_KINDS:-}" ] && kinds=(--kinds "$CZK_SOAK_KINDS") # e.g. synthetic,window-post for a quick try
if [ -x "$root/node_modules/.bin/snarkjs" ] && command -v node >/dev/null 2>&1; then
  if "$root/scripts/oracle-prepare.sh" "$oracle" mix >"$cache/oracle-prepare.log" 2>&1; then
    circom=(--circom "$oracle/mix/mix.zkey" "$oracle/mix/witness.wtns")
  else
    echo "soak.sh: oracle-prepare.sh failed (see $cache/oracle-prepare.log): circom left out" >&2
  fi
fi
# no circom key (no node_modules, or its preparation failed): the circom kind leaves the mix instead of failing the run
if [ ${#circom[@]} -eq 0 ] && [ ${#kinds[@]} -gt 0 ]; then
  mix=$(printf '%s\n' "${kinds[1]}" | tr ',' '\n' | grep -vx circom | paste -sd, -)
  [ -z "$mix" ] && { echo "soak.sh: CZK_SOAK_KINDS=$CZK_SOAK_KINDS: no kind left without a circom key" >&2; exit 2; }
  [ "$mix" != "${kinds[1]}" ] && echo "soak.sh: no circom key (node_modules missing): the circom kind is left out of the mix"
  kinds=(--kinds "$mix")
fi
exec "$czk" bench soak --duration "${CZK_SOAK_DURATION:-60s}" --seed "${CZK_SOAK_SEED:-1}" --clients 4 \
  --keys "$cache" --budget "${CZK_SOAK_BUDGET:-8GiB}" "${kinds[@]}" "${circom[@]}"
