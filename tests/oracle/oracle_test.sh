#!/usr/bin/env bash
# oracle_test.sh: czk against snarkjs on the circom circuits of tests/oracle/circuits (CTest label `oracle`).
#
#   tests/oracle/oracle_test.sh <czk-binary> <cache-dir>
#
# scripts/oracle-prepare.sh builds (or reuses) the ptau, zkeys, witnesses and snarkjs proofs under <cache-dir>; then
# for every circuit:
#   czk prove (with the r1cs check)  -> public.json identical to snarkjs's, `snarkjs groth16 verify` accepts the proof;
#   czk verify accepts snarkjs's own proof and czk's;
#   a public signal + 1, a public signal + r, swapped pi_a/pi_c and an off-curve pi_a are rejected by both verifiers;
#   czk prove refuses a witness of the wrong length and (with --r1cs) a witness that breaks a constraint.
# Exit 77 (skip) when node_modules is missing.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
czk=${1:?usage: oracle_test.sh <czk-binary> <cache-dir>}
cache=${2:?usage: oracle_test.sh <czk-binary> <cache-dir>}
if [ ! -x "$root/node_modules/.bin/snarkjs" ]; then
  echo "oracle_test: node_modules missing (npm ci): skipping" >&2
  exit 77
fi
"$root/scripts/oracle-prepare.sh" "$cache"
rc=$?
[ $rc -eq 0 ] || exit $rc

snarkjs() { node "$root/node_modules/snarkjs/cli.js" "$@"; }
tamper() { node "$here/tamper.js" "$@"; }
fails=0
checks=0
ok() { checks=$((checks + 1)); }
bad() {
  checks=$((checks + 1))
  fails=$((fails + 1))
  echo "FAIL: $*" >&2
}
expect_rc() { # expect_rc <want> <what> <cmd...>: want = 0 or "nonzero"
  local want=$1 what=$2
  shift 2
  "$@" >"$work/last.log" 2>&1
  local got=$?
  if { [ "$want" = 0 ] && [ $got -eq 0 ]; } || { [ "$want" = nonzero ] && [ $got -ne 0 ]; }; then
    ok
  else
    bad "$what: exit $got, wanted $want"
    sed 's/^/    /' "$work/last.log" >&2
  fi
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
circuits=$(cd "$here/circuits" && ls *.circom | sed 's/\.circom$//')
for c in $circuits; do
  d="$cache/$c"
  vk="$d/verification_key.json"
  out="$work/$c"
  mkdir -p "$out"
  t0=$(date +%s.%N)
  expect_rc 0 "$c: czk prove" "$czk" prove "$d/$c.zkey" "$d/witness.wtns" "$out/proof.json" "$out/public.json" \
    --r1cs "$d/$c.r1cs"
  t1=$(date +%s.%N)
  if cmp -s "$out/public.json" "$d/snarkjs_public.json"; then ok; else bad "$c: public.json differs from snarkjs's"; fi
  expect_rc 0 "$c: snarkjs verifies czk's proof" snarkjs groth16 verify "$vk" "$out/public.json" "$out/proof.json"
  grep -q "OK!" "$work/last.log" && ok || bad "$c: snarkjs did not print OK!"
  expect_rc 0 "$c: czk verifies snarkjs's proof" "$czk" verify "$vk" "$d/snarkjs_public.json" "$d/snarkjs_proof.json"
  expect_rc 0 "$c: czk verifies czk's proof" "$czk" verify "$vk" "$out/public.json" "$out/proof.json"

  tamper public-add1 "$out/public.json" "$out/public_add1.json"
  tamper public-plus-r "$out/public.json" "$out/public_plus_r.json"
  tamper swap-ac "$out/proof.json" "$out/proof_swap.json"
  tamper offcurve-a "$out/proof.json" "$out/proof_offcurve.json"
  for v in czk snarkjs; do
    if [ $v = czk ]; then V=("$czk" verify); else V=(snarkjs groth16 verify); fi
    expect_rc nonzero "$c: $v rejects public+1" "${V[@]}" "$vk" "$out/public_add1.json" "$out/proof.json"
    expect_rc nonzero "$c: $v rejects public+r" "${V[@]}" "$vk" "$out/public_plus_r.json" "$out/proof.json"
    expect_rc nonzero "$c: $v rejects swapped A/C" "${V[@]}" "$vk" "$out/public.json" "$out/proof_swap.json"
    expect_rc nonzero "$c: $v rejects off-curve A" "${V[@]}" "$vk" "$out/public.json" "$out/proof_offcurve.json"
  done

  # a witness of another circuit (of a different length): refused before proving
  for o in $circuits; do
    if [ "$(stat -c %s "$cache/$o/witness.wtns")" != "$(stat -c %s "$d/witness.wtns")" ]; then
      expect_rc nonzero "$c: czk prove refuses $o's witness" "$czk" prove "$d/$c.zkey" "$cache/$o/witness.wtns" \
        "$out/x.json" "$out/y.json"
      break
    fi
  done
  # the first public output + 1: the container is fine, a constraint breaks
  tamper wtns-add1 1 "$d/witness.wtns" "$out/bad.wtns"
  expect_rc nonzero "$c: czk prove --r1cs refuses an unsatisfying witness" "$czk" prove "$d/$c.zkey" "$out/bad.wtns" \
    "$out/x.json" "$out/y.json" --r1cs "$d/$c.r1cs"
  grep -q "does not satisfy" "$work/last.log" && ok || bad "$c: no 'does not satisfy' message"
  awk -v c="$c" -v a="$t0" -v b="$t1" 'BEGIN { printf "oracle_test: %-6s czk prove %.2f s\n", c, b - a }' >&2
done
echo "oracle_test: $checks checks, $fails failures" >&2
[ $fails -eq 0 ]
