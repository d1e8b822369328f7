#!/usr/bin/env bash
# device-run.sh: the full-size measurements of issues 32 and 33 on a GPU machine, from build-device/pack.tar.xz
# (scripts/device-pack.sh), each step under a timeout and all of them under one deadline, so that one device call
# (10 minutes at most) returns every table it could make.
#
#   scripts/device-run.sh [--deadline S] STEP...        (default deadline 570 s from the start)
#
# Steps (timeouts in brackets; with less than 2/3 of its timeout left before the deadline a step is skipped, and
# said so; with more, it runs with what is left):
#   test-prover [150]   test_prover_gpu gpu: proofs byte-identical over lane shapes and tiers, yields, pinning
#   test-cuda [240]     test_cuda: every kernel against the CPU          test-backend [200]  test_backend_gpu gpu
#   porep [90]          czk bench porep 32 GiB, random key, whole card, compact lanes, 2 reps
#   porep-ab=SPEC [150] the same with --ab SPEC (chunk-log=N or NAME=VALUE), 2 proves a side, one process
#   porep-LIMIT [110]   the same at --gpu-memory-limit LIMIT (e.g. porep-16GiB, porep-24GiB), the plan's tier and lanes
#   profile [90]        the porep step with CZK_CUDA_MSM_PROFILE=1 (every MSM pass synchronous and timed)
#   post [90], post-LIMIT [90]   czk bench post --kind window-post 32 GiB (a full partition), random key
#   snap [90], snap-LIMIT [90]   czk bench snap 32 GiB, random key
#   mix [230], mix-LIMIT [230]   czk bench filecoin --mix "porep,winning-post:0.3" --jobs 3 at 32 GiB through a
#                       spawned daemon (keys set up in memory on the card: ~75 s), --max-wall 95, every proof verified
# Output: each step's log and its key lines; all logs in $OUT/logs.tar.xz and the key lines in $OUT/summary.txt (the
# device tool brings back at most 8 files). Exit status 1 if a step failed or timed out.
set -uo pipefail
cd "$(dirname "$0")/.."
deadline=570
steps=()
while [ $# -gt 0 ]; do
  case "$1" in
    --deadline) deadline=$2; shift 2 ;;
    -h | --help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) steps+=("$1"); shift ;;
  esac
done
[ ${#steps[@]} -gt 0 ] || { echo "device-run: no step (--help lists them)" >&2; exit 2; }
[ -f build-device/pack.tar.xz ] || { echo "device-run: build-device/pack.tar.xz missing (scripts/device-pack.sh)" >&2; exit 2; }
T0=$SECONDS # (the deadline counts from here: unpacking included)
out=${OUT:-/tmp/czk-device-run}
logs=$(mktemp -d /tmp/czk-device-logs.XXXXXX)
bin=$(mktemp -d /tmp/czk-device-bin.XXXXXX)
tar xJf build-device/pack.tar.xz -C "$bin"
export LD_LIBRARY_PATH=$bin/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mkdir -p "$out"
summary=$out/summary.txt
say() { echo "$*" | tee -a "$summary"; }
say "device-run: commit $(cat "$bin/COMMIT" 2>/dev/null), $(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null | head -1)"
rc=0
# run NAME TIMEOUT GREP CMD...: under the timeout if it fits the deadline; the log's lines matching GREP to the summary
run() {
  local name=$1 limit=$2 pat=$3; shift 3
  local left=$((deadline - (SECONDS - T0)))
  if [ "$left" -lt 20 ] || [ "$left" -lt $((limit * 2 / 3)) ]; then
    say "=== $name: skipped ($((SECONDS - T0)) s of $deadline used)"; return 0
  fi
  [ "$limit" -gt "$left" ] && limit=$left
  say "=== $name (timeout $limit s): $*"
  local t=$SECONDS
  timeout -k 10 "$limit" "$@" >"$logs/$name.log" 2>&1
  local s=$?
  [ $s -ne 0 ] && rc=1
  say "rc=$s in $((SECONDS - t)) s$( [ $s -eq 124 ] || [ $s -eq 137 ] && echo ' (TIMED OUT)')"
  grep -E "$pat|^czk |rror" "$logs/$name.log" | cut -c1-400 | tee -a "$summary"
}
czk=$bin/czk
porep=(bench porep --sector-size 32GiB --backend cuda:0 --random-key --prove-only)
P_POREP="key |prove |^    (l|a|b_g1|b_g2) |median|^\| |peak|pinned|pageable"
P_MIX=" on cuda:0.*(resident|partial|streamed)|out of memory|failed|^(LATENCY|KIND|porep|winning|H \(NTTs\)|MSM |a/b/c|witness |upload|DEVICE|cuda)"
for s in "${steps[@]}"; do
  case "$s" in
    test-prover) run "$s" 150 "checks|FAIL|fail" "$bin/test_prover_gpu" gpu ;;
    test-cuda) run "$s" 240 "checks|FAIL|fail" "$bin/test_cuda" ;;
    test-backend) run "$s" 200 "checks|FAIL|fail" "$bin/test_backend_gpu" gpu ;;
    porep) run "$s" 90 "$P_POREP" "$czk" "${porep[@]}" --lanes compact --reps 2 ;;
    porep-ab=*) ab=${s#porep-ab=}; run "porep-ab-${ab//[^A-Za-z0-9=._-]/_}" 150 "$P_POREP" "$czk" "${porep[@]}" --lanes compact --reps 2 --ab "$ab" ;;
    porep-*) run "$s" 110 "$P_POREP" "$czk" "${porep[@]}" --reps 1 --gpu-memory-limit "${s#porep-}" ;;
    profile) run "$s" 90 "$P_POREP|msm g" env CZK_CUDA_MSM_PROFILE=1 "$czk" "${porep[@]}" --lanes compact --reps 1 ;;
    post | post-*)
      lim=(); [ "$s" != post ] && lim=(--gpu-memory-limit "${s#post-}")
      run "$s" 90 "key |prove|median|peak|device" "$czk" bench post --kind window-post --sector-size 32GiB \
        --backend cuda:0 --random-key --reps 1 "${lim[@]}" ;;
    snap | snap-*)
      lim=(); [ "$s" != snap ] && lim=(--gpu-memory-limit "${s#snap-}")
      run "$s" 90 "key |prove|median|peak|device" "$czk" bench snap --sector-size 32GiB --backend cuda:0 \
        --random-key --reps 1 "${lim[@]}" ;;
    mix | mix-*)
      lim=(); [ "$s" != mix ] && lim=(--gpu-memory-limit "${s#mix-}")
      run "$s" 230 "$P_MIX" "$czk" bench filecoin --mix "porep,winning-post:0.3" --jobs 3 --sector-size 32GiB \
        --spawn --max-wall 95 "${lim[@]}" --daemon-args "--synthesis-workers 4 --log-level info" ;;
    *) say "=== $s: unknown step"; rc=1 ;;
  esac
done
say "=== done in $((SECONDS - T0)) s, rc=$rc"
tar cJf "$out/logs.tar.xz" -C "$logs" . 2>/dev/null
rm -rf "$logs" "$bin"
exit $rc
