#!/usr/bin/env bash
# make-corpus.sh: regenerate the committed seed corpora of tests/fuzz/corpus/<target>/ from czk's own tools and the
# snarkjs/circom oracle (node_modules): a tiny circom circuit (r1cs, wtns, zkey, proof/public/vk JSON), a k=4
# synthetic bellperson key (.params, .vk), 2 KiB Filecoin vanilla proofs (czk gen-vanilla: winning/window PoSt, snap,
# porep C1 bare and enveloped), SubmitProof/Prove/Await/Cancel/Preload bodies, config files (flat and TOML) and
# request.json files. Regression inputs (corpus/<target>/regress-*) are kept as they are.
#
#   tests/fuzz/make-corpus.sh <czk-binary> [<ptau>]     (ptau: a bls12381 powers of tau, phase 2 prepared, power >= 4;
#                                                         default: made here with snarkjs, a few seconds)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
czk=$(realpath "${1:?usage: make-corpus.sh <czk-binary> [ptau]}")
out=$root/tests/fuzz/corpus
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
snarkjs() { node "$root/node_modules/snarkjs/cli.js" "$@"; }
seed() { # seed <target> <name> <file>: copy, prefixed by the bytes of $prefix (octal escapes for printf)
  mkdir -p "$out/$1"
  { printf "${prefix:-}"; cat "$3"; } >"$out/$1/$2"
}
for t in zkey wtns r1cs params vk snarkjs_json porep_c1 post_vanilla snap_vanilla proto config request; do
  mkdir -p "$out/$t"
  find "$out/$t" -type f ! -name 'regress-*' -delete
done

# circom: c = a*b*a + b, a public
cat >tiny.circom <<'CIRCOM'
pragma circom 2.0.0;
template Tiny() {
  signal input a;
  signal input b;
  signal output c;
  signal t;
  t <== a * b;
  c <== t * a + b;
}
component main {public [a]} = Tiny();
CIRCOM
echo '{"a": "3", "b": "11"}' >input.json
ptau=${2:-}
if [ -z "$ptau" ]; then
  snarkjs powersoftau new bls12381 4 p0.ptau >/dev/null
  snarkjs powersoftau contribute p0.ptau p1.ptau --name=fuzz -e="czk fuzz seeds" >/dev/null
  snarkjs powersoftau prepare phase2 p1.ptau p.ptau >/dev/null
  ptau=p.ptau
fi
"$root/node_modules/.bin/circom2" tiny.circom --r1cs --wasm --prime bls12381 -o . >/dev/null
snarkjs groth16 setup tiny.r1cs "$ptau" tiny.zkey >/dev/null
snarkjs zkey export verificationkey tiny.zkey vk.json >/dev/null
snarkjs wtns calculate tiny_js/tiny.wasm input.json tiny.wtns >/dev/null
snarkjs groth16 prove tiny.zkey tiny.wtns proof.json public.json >/dev/null
seed zkey tiny.zkey tiny.zkey
seed r1cs tiny.r1cs tiny.r1cs
seed wtns tiny.wtns tiny.wtns
prefix='\000' seed snarkjs_json proof.json proof.json
prefix='\001' seed snarkjs_json public.json public.json
prefix='\002' seed snarkjs_json vk.json vk.json

# bellperson keys of the synthetic circuit, k = 4
"$czk" setup 4 k4.params k4.vk >/dev/null
seed params k4.params k4.params
seed vk k4.vk k4.vk

# Filecoin 2 KiB vanilla proofs (first byte: the registered proof's wire value)
"$czk" gen-vanilla winning-post --sector-size 2KiB --out winning >/dev/null
"$czk" gen-vanilla window-post --sector-size 2KiB --sectors 2 --out window >/dev/null
"$czk" gen-vanilla window-post --sector-size 2KiB --api 1.0 --out window10 >/dev/null
"$czk" gen-vanilla snap --sector-size 2KiB --out snap >/dev/null
"$czk" gen-vanilla porep --sector-size 2KiB --out porep >/dev/null
prefix='\000' seed post_vanilla winning-2k.bin winning/vanilla-0.bin
prefix='\012' seed post_vanilla window-2k.bin window/vanilla-0.bin
prefix='\005' seed post_vanilla window-2k-v1.bin window10/vanilla-0.bin
prefix='\000' seed snap_vanilla snap-2k.bin snap/partition-0.bin
seed porep_c1 c1-2k.json porep/c1.json
seed porep_c1 c1-2k-envelope.json porep/c1-envelope.json

# request.json (the fuzzer's folder holds vanilla-0.bin and c1.json)
sed 's/"vanilla_proofs": \[.*\]/"vanilla_proofs": ["vanilla-0.bin"]/' window/request.json >window-request.json
seed request window.json window-request.json
sed 's/"vanilla_proofs": \[.*\]/"vanilla_proofs": ["vanilla-0.bin"]/' snap/request.json >snap-request.json
seed request snap.json snap-request.json
sed 's/"vanilla_proof": ".*"/"vanilla_proof": "c1.json"/' porep/request.json >porep-request.json
seed request porep.json porep-request.json

# gRPC bodies (first byte: 0 SubmitProof, 1 AwaitProof, 2 Prove, 3 CancelProof, 4 PreloadSRS, 5 EvictSRS)
python3 - "$out/proto" window/vanilla-0.bin <<'PY'
import sys, os
out, vanilla = sys.argv[1], open(sys.argv[2], 'rb').read()
def varint(v):
    b = bytearray()
    while True:
        x = v & 0x7f; v >>= 7
        b.append(x | (0x80 if v else 0))
        if not v: return bytes(b)
def f_varint(n, v): return varint(n << 3) + varint(v)
def f_bytes(n, v): return varint(n << 3 | 2) + varint(len(v)) + v
rnd = bytes(range(32))[:31] + b'\x01'
window = (f_bytes(1, b'req-1') + f_varint(2, 3) + f_varint(3, 2048) + f_varint(4, 10) + f_varint(5, 2) +
          f_bytes(11, vanilla) + f_varint(21, 1000) + f_bytes(22, rnd) + f_varint(23, 0))
synthetic = f_varint(2, 100) + f_varint(3, 1 << 10) + f_bytes(10, b'partitions=2\n')
snap = (f_varint(2, 2) + f_varint(4, 0) + f_bytes(11, b'\x00' * 64) + f_varint(20, 7) + f_bytes(30, b'\x01' * 32) +
        f_bytes(31, b'\x02' * 32) + f_bytes(32, b'\x03' * 32))
circom = f_varint(2, 101) + f_bytes(10, b'wtns') + f_bytes(11, b'tiny')
seeds = {
    'submit-window.bin': b'\x00' + window,
    'submit-synthetic.bin': b'\x00' + synthetic,
    'submit-snap.bin': b'\x00' + snap,
    'submit-circom.bin': b'\x00' + circom,
    'await.bin': b'\x01' + f_bytes(1, b'12') + f_varint(2, 5),
    'await-request.bin': b'\x01' + f_bytes(1, b'request:req-1'),
    'prove.bin': b'\x02' + f_bytes(1, synthetic),
    'cancel.bin': b'\x03' + f_bytes(1, b'req-1'),
    'preload.bin': b'\x04' + f_bytes(1, b'wpost-2k'),
    'evict.bin': b'\x05' + f_bytes(1, b'synthetic-k10'),
}
for name, data in seeds.items():
    open(os.path.join(out, name), 'wb').write(data)
PY

# config files (first byte: even = czk's flat file, odd = cuzk TOML)
printf '\000' >"$out/config/flat.conf"
cat "$root/etc/czk.conf" >>"$out/config/flat.conf" 2>/dev/null || true
printf '\000# czk\nlisten = "unix:/tmp/x.sock"\nmemory_budget = 64GiB\nresult_ttl = 10m\nself_verify = false\ngpus = 0,1\n' \
  >"$out/config/small.conf"
cat >"$work/cuzk.toml" <<'TOML'
# a cuzk daemon configuration: every section the reference has
[daemon]
listen = "unix:///run/curio/cuzk.sock"
status_listen = "127.0.0.1:9821"
[memory]
total_budget = "auto"
safety_margin = "8GiB"
eviction_min_idle = "60s"
[gpus]
devices = [0, 2]
gpu_threads = 8
gpu_workers_per_device = 2
[scheduler]
max_batch_size = 4
max_batch_wait_ms = 100
sort_by_type = true
[synthesis]
threads = 0
partition_workers = 2
[pipeline]
enabled = true
synthesis_lookahead = 2
synthesis_concurrency = 3
slot_size = 1
max_gpu_queue_depth = 4
[srs]
param_cache = "/data/zk/params"
preload = ["porep-32g"]
[logging]
level = "info"
format = "json"
[czk]
self_verify = false
result_ttl = "10m"
TOML
prefix='\001' seed config cuzk.toml "$work/cuzk.toml"
printf '\001[daemon]\nlisten = "unix:///run/x.sock"\n[memory]\ntotal_budget = "100GiB"\n[gpus]\ndevices = []\n[czk]\nsynthesis_workers = 4\n' \
  >"$out/config/small.toml"
du -sh "$out"
