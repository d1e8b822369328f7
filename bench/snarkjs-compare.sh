#!/usr/bin/env bash
# snarkjs-compare.sh: `czk prove` vs `snarkjs groth16 prove` on the same circom case (BLS12-381); prints both times.
#
#   bench/snarkjs-compare.sh [--power K] [--reps N] [--czk PATH] [--cache DIR]
#
# The case is tests/oracle/circuits/mix.circom with its round count raised so that the domain is 2^K (default 16:
# 12 constraints per round, ROUNDS = (2^K - 16) / 12). It needs a prepared powers-of-tau of power >= K, made once and
# cached under DIR (default build/bench-snarkjs): `prepare phase2` costs ~21 s at power 10 on 2 cores and grows
# ~2.1x per power (power 16: roughly 40 min), so the first run at K = 16 is long; later runs reuse it.
# Both provers read the same zkey and witness; times are wall clock per `prove` command (key loading included), best
# of N runs; both proofs are checked with `snarkjs groth16 verify`. Never asserts on time.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
power=16
reps=3
czk="$root/build/src/cli/czk"
cache="$root/build/bench-snarkjs"
while [ $# -gt 0 ]; do
  case "$1" in
    --power) power=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --czk) czk=$2; shift 2 ;;
    --cache) cache=$2; shift 2 ;;
    -h | --help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "snarkjs-compare: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -x "$root/node_modules/.bin/snarkjs" ] || { echo "snarkjs-compare: run npm ci first" >&2; exit 1; }
czk=$(cd "$(dirname "$czk")" 2>/dev/null && pwd)/$(basename "$czk")
[ -x "$czk" ] || { echo "snarkjs-compare: no czk binary at $czk (--czk PATH)" >&2; exit 1; }
snarkjs() { node --max-old-space-size=8192 "$root/node_modules/snarkjs/cli.js" "$@"; }
now() { date +%s.%N; }
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)

rounds=$(( ((1 << power) - 16) / 12 ))
name="mix$power"
dir="$cache/$name"
# The circuit, the input and the keys: reuse the oracle's powers-of-tau preparation at this power.
mkdir -p "$cache/circuits"
sed "s/component main = Mix(80);/component main = Mix($rounds);/" "$root/tests/oracle/circuits/mix.circom" \
  >"$cache/circuits/$name.circom"
cp "$root/tests/oracle/circuits/mix.input.json" "$cache/circuits/$name.input.json"
ptau="$cache/pot${power}_final.ptau"
if [ ! -s "$ptau" ]; then
  echo "snarkjs-compare: preparing powers of tau $power (slow, once)" >&2
  snarkjs powersoftau new bls12381 "$power" "$cache/pot_0000.ptau" >/dev/null
  snarkjs powersoftau contribute "$cache/pot_0000.ptau" "$cache/pot_0001.ptau" --name=bench -e="czk bench" >/dev/null
  snarkjs powersoftau prepare phase2 "$cache/pot_0001.ptau" "$ptau.tmp" >/dev/null
  mv "$ptau.tmp" "$ptau"
  rm -f "$cache/pot_0000.ptau" "$cache/pot_0001.ptau"
fi
if [ ! -s "$dir/$name.zkey" ]; then
  mkdir -p "$dir"
  (
    cd "$dir"
    "$root/node_modules/.bin/circom2" "$cache/circuits/$name.circom" --r1cs --wasm --prime bls12381 -o . >/dev/null
    snarkjs groth16 setup "$name.r1cs" "$ptau" "$name.tmp.zkey" >/dev/null
    mv "$name.tmp.zkey" "$name.zkey"
    snarkjs zkey export verificationkey "$name.zkey" verification_key.json >/dev/null
    snarkjs wtns calculate "${name}_js/$name.wasm" "$cache/circuits/$name.input.json" witness.wtns >/dev/null
  )
fi

best() { sort -g | head -1; }
cd "$dir"
: >czk.times
: >snarkjs.times
for _ in $(seq "$reps"); do
  t0=$(now)
  "$czk" prove "$name.zkey" witness.wtns czk_proof.json czk_public.json
  t1=$(now)
  snarkjs groth16 prove "$name.zkey" witness.wtns snarkjs_proof.json snarkjs_public.json
  t2=$(now)
  awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }' >>czk.times
  awk -v a="$t1" -v b="$t2" 'BEGIN { print b - a }' >>snarkjs.times
done
snarkjs groth16 verify verification_key.json czk_public.json czk_proof.json | grep -q "OK!" ||
  { echo "snarkjs-compare: czk's proof does not verify" >&2; exit 1; }
snarkjs groth16 verify verification_key.json snarkjs_public.json snarkjs_proof.json | grep -q "OK!"
c=$(best <czk.times)
s=$(best <snarkjs.times)
cons=$(snarkjs r1cs info "$name.r1cs" | sed -n 's/.*# of Constraints: //p')
printf '%-10s %-12s %-10s %12s %12s %8s\n' case constraints domain "czk prove s" "snarkjs s" speedup
awk -v n="$name" -v k="$cons" -v d="$((1 << power))" -v c="$c" -v s="$s" \
  'BEGIN { printf "%-10s %-12s %-10s %12.3f %12.3f %7.1fx\n", n, k, d, c, s, s / c }'
echo "(wall time per prove command incl. key loading, best of $reps; threads: czk \$CZK_THREADS or all cores)"
