#!/usr/bin/env bash
# oracle-prepare.sh: build the snarkjs side of the circom oracle tests, cached so that reruns are fast.
#
#   scripts/oracle-prepare.sh <cache-dir> [circuit...]     (default: every tests/oracle/circuits/*.circom)
#
# Makes ONE small powers-of-tau (BLS12-381, power $CZK_ORACLE_PTAU_POWER, default 10: `prepare phase2` is the slow
# step, ~21 s on 2 cores) and, for each circuit, from it: the r1cs + wasm (circom2 --prime bls12381), a zkey (setup +
# one contribution), verification_key.json, the witness (snarkjs wtns calculate from <name>.input.json, checked with
# `wtns check`) and snarkjs's own proof (snarkjs_proof.json / snarkjs_public.json), all under <cache-dir>/<name>/.
# A circuit is rebuilt only when its source, input, compiler flags or the ptau changed (stamp file).
# Entropy is fixed (test keys only). Exit 77 when node_modules (npm ci) is missing.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/node_modules/.bin"
if [ ! -x "$bin/snarkjs" ] || [ ! -x "$bin/circom2" ]; then
  echo "oracle-prepare: node_modules missing (run npm ci): skipping" >&2
  exit 77
fi
[ $# -ge 1 ] || { echo "usage: $0 <cache-dir> [circuit...]" >&2; exit 2; }
cache=$(mkdir -p "$1" && cd "$1" && pwd)
shift
power=${CZK_ORACLE_PTAU_POWER:-10}
src="$root/tests/oracle/circuits"
snarkjs() { node "$root/node_modules/snarkjs/cli.js" "$@"; }
log() { echo "oracle-prepare: $*" >&2; }

# circom optimisation level per circuit: --O0 keeps wires that no constraint uses (unused witness wires).
flags_of() {
  case "$1" in
    chain | bits) echo "--O0" ;;
    *) echo "--O1" ;;
  esac
}

# --- powers of tau (shared by every circuit) ---------------------------------------------------------------------
ptau="$cache/ptau/pot${power}_final.ptau"
if [ ! -s "$ptau" ]; then
  mkdir -p "$cache/ptau"
  t0=$(date +%s)
  log "powers of tau, power $power (prepare phase2 takes a while)"
  snarkjs powersoftau new bls12381 "$power" "$cache/ptau/pot_0000.ptau" >/dev/null
  snarkjs powersoftau contribute "$cache/ptau/pot_0000.ptau" "$cache/ptau/pot_0001.ptau" --name=czk-oracle \
    -e="czk oracle ptau entropy" >/dev/null
  snarkjs powersoftau prepare phase2 "$cache/ptau/pot_0001.ptau" "$ptau.tmp" >/dev/null
  mv "$ptau.tmp" "$ptau"
  rm -f "$cache/ptau/pot_0000.ptau" "$cache/ptau/pot_0001.ptau"
  log "ptau ready in $(($(date +%s) - t0)) s"
fi
ptau_id=$(stat -c '%s-%Y' "$ptau")

# --- circuits ------------------------------------------------------------------------------------------------------
if [ $# -eq 0 ]; then
  set --
  for f in "$src"/*.circom; do set -- "$@" "$(basename "$f" .circom)"; done
fi
for name in "$@"; do
  circ="$src/$name.circom"
  input="$src/$name.input.json"
  [ -f "$circ" ] && [ -f "$input" ] || { echo "oracle-prepare: no $circ or $input" >&2; exit 1; }
  out="$cache/$name"
  flags=$(flags_of "$name")
  stamp=$( (cat "$circ" "$input"; echo "$flags $ptau_id $power"; cat "$0") | sha256sum | cut -c1-32)
  if [ -f "$out/stamp" ] && [ "$(cat "$out/stamp")" = "$stamp" ]; then
    continue
  fi
  t0=$(date +%s)
  rm -rf "$out"
  mkdir -p "$out"
  (
    cd "$out"
    "$bin/circom2" "$circ" --r1cs --wasm --sym --prime bls12381 $flags -o . >circom.log
    snarkjs groth16 setup "$name.r1cs" "$ptau" "${name}_0000.zkey" >/dev/null
    snarkjs zkey contribute "${name}_0000.zkey" "$name.zkey" --name=czk-oracle -e="czk oracle $name entropy" >/dev/null
    rm -f "${name}_0000.zkey"
    snarkjs zkey export verificationkey "$name.zkey" verification_key.json >/dev/null
    snarkjs wtns calculate "${name}_js/$name.wasm" "$input" witness.wtns >/dev/null
    snarkjs wtns check "$name.r1cs" witness.wtns | grep -q "WITNESS IS CORRECT"
    snarkjs groth16 prove "$name.zkey" witness.wtns snarkjs_proof.json snarkjs_public.json
    snarkjs groth16 verify verification_key.json snarkjs_public.json snarkjs_proof.json >/dev/null
  ) || { echo "oracle-prepare: building $name failed (see $out)" >&2; exit 1; }
  echo "$stamp" >"$out/stamp"
  log "$name ready in $(($(date +%s) - t0)) s"
done
