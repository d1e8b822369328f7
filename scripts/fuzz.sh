#!/usr/bin/env bash
# fuzz.sh: build the libFuzzer harnesses (tests/fuzz, clang + ASan + UBSan, build-fuzz/) and run each target for a
# bounded time, then print a markdown table per target (executions, exec/s, corpus, crashes) for docs/reliability.md.
#
#   scripts/fuzz.sh [--minutes N | --seconds S] [--execs E] [--jobs J] [--no-build] [target...]
#
#   --minutes N   run each target N minutes (default 1); --seconds S for short runs (CI: scripts/test.sh)
#   --execs E     stop a target once its J processes ran E executions in all (each runs E/J; the time is then a cap)
#   --jobs J      J fuzzing processes per target, sharing its corpus (default 1); executions are summed
#   --no-build    use the binaries already in build-fuzz (no clang needed: e.g. unpacked from scripts/fuzz-pack.sh)
#   target        zkey wtns r1cs params vk snarkjs_json porep_c1 post_vanilla snap_vanilla proto config request
#                 (default: all)
#
# The growing corpus lives outside the repository, in build-fuzz/corpus/<target> (new inputs land there; the committed
# seeds of tests/fuzz/corpus/<target> are read too), so repeated runs continue where the last stopped. A crash, leak,
# UB report, hang (> 10 s on one input) or out-of-memory (> 2 GiB) stops that target; its reproducer is kept in
# build-fuzz/artifacts/<target>/ and named in the table; the script then exits 1. Reproduce with
#   build-fuzz/tests/fuzz/fuzz_<target> <artifact>
# Environment: CZK_FUZZ_RSS_MB (default 2048), CZK_FUZZ_TIMEOUT (seconds per input, default 10), CZK_FUZZ_BUILD (dir).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
all="zkey wtns r1cs params vk snarkjs_json porep_c1 post_vanilla snap_vanilla proto config request"
secs=60
jobs=1
max_execs=0
build=1
targets=""
while [ $# -gt 0 ]; do
  case "$1" in
  --minutes) secs=$(awk -v m="$2" 'BEGIN { printf "%d", m * 60 }'); shift 2 ;;
  --seconds) secs=$2; shift 2 ;;
  --jobs) jobs=$2; shift 2 ;;
  --execs) max_execs=$2; shift 2 ;;
  --no-build) build=0; shift ;;
  -h | --help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
  *) targets="$targets $1"; shift ;;
  esac
done
targets=${targets:-$all}
for t in $targets; do
  case " $all " in *" $t "*) ;; *) echo "fuzz.sh: unknown target $t (one of: $all)" >&2; exit 2 ;; esac
done
[ "$secs" -ge 1 ] 2>/dev/null || { echo "fuzz.sh: bad duration" >&2; exit 2; }
[ "$jobs" -ge 1 ] 2>/dev/null || { echo "fuzz.sh: bad --jobs" >&2; exit 2; }
[ "$max_execs" -ge 0 ] 2>/dev/null || { echo "fuzz.sh: bad --execs" >&2; exit 2; }
bdir=${CZK_FUZZ_BUILD:-$root/build-fuzz}
# a packed build (scripts/fuzz-pack.sh) carries the shared libraries the harnesses were linked with
[ -d "$bdir/lib" ] && export LD_LIBRARY_PATH="$bdir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

if [ $build = 1 ]; then
  cc=$(command -v clang || true)
  [ -n "$cc" ] || { echo "fuzz.sh: clang not found (scripts/deps.sh installs it)" >&2; exit 2; }
  cmake -S . -B "$bdir" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCZK_CUDA=OFF -DCZK_FUZZ=ON \
    >/dev/null
  fts=""
  for t in $targets; do fts="$fts fuzz_$t"; done
  cmake --build "$bdir" -j"$(nproc)" --target $fts >/dev/null
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/czk-fuzz-run.XXXXXX")
shm=/dev/shm
[ -d $shm ] && [ -w $shm ] || shm=$tmp
export CZK_FUZZ_TMP
CZK_FUZZ_TMP=$(mktemp -d "$shm/czk-fuzz-files.XXXXXX")
trap 'rm -rf "$tmp" "$CZK_FUZZ_TMP"' EXIT
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

rows=""
failed=0
for t in $targets; do
  bin=$bdir/tests/fuzz/fuzz_$t
  [ -x "$bin" ] || { echo "fuzz.sh: $bin missing (build without --no-build)" >&2; exit 2; }
  corpus=$bdir/corpus/$t
  art=$bdir/artifacts/$t
  mkdir -p "$corpus" "$art"
  seeds=$root/tests/fuzz/corpus/$t
  dict=()
  [ -f "$root/tests/fuzz/dict/$t.dict" ] && dict=(-dict="$root/tests/fuzz/dict/$t.dict")
  opts=()
  [ "$max_execs" -gt 0 ] && opts+=(-runs=$(((max_execs + jobs - 1) / jobs)))
  # inputs past the largest seed that a target can use (the default is the largest corpus file, at least 4 KiB)
  case $t in
  vk) opts+=(-max_len=8192) ;;           # 6 points + u32 + IC points: a few public inputs
  config | request) opts+=(-max_len=16384) ;;
  esac
  t0=$(date +%s)
  before=$(find "$art" -type f | wc -l)
  echo "fuzz.sh: $t: $secs s x $jobs job(s)" >&2
  pids=()
  for j in $(seq 1 "$jobs"); do
    "$bin" "$corpus" "$seeds" "${dict[@]}" "${opts[@]}" -max_total_time="$secs" -timeout="${CZK_FUZZ_TIMEOUT:-10}" \
      -rss_limit_mb="${CZK_FUZZ_RSS_MB:-2048}" -artifact_prefix="$art/" -print_final_stats=1 -seed="$j$RANDOM" \
      >"$tmp/$t.$j.log" 2>&1 &
    pids+=($!)
  done
  rc=0
  for p in "${pids[@]}"; do wait "$p" || rc=1; done
  elapsed=$(($(date +%s) - t0))
  [ "$elapsed" -ge 1 ] || elapsed=1
  execs=0
  for j in $(seq 1 "$jobs"); do
    n=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$tmp/$t.$j.log" | awk '{print $2}' | tail -1)
    if [ -z "$n" ]; then # stopped by a crash: the last status line's count
      n=$(grep -o '^#[0-9]*' "$tmp/$t.$j.log" | tr -d '#' | tail -1)
    fi
    execs=$((execs + ${n:-0}))
  done
  new=$(find "$art" -type f -newer "$tmp" | sort)
  crashes=$(find "$art" -type f | wc -l)
  crashes=$((crashes - before))
  files=$(find "$corpus" -type f | wc -l)
  bytes=$(du -sk --apparent-size "$corpus" | awk '{print $1}')
  cov=$(grep -o 'cov: [0-9]*' "$tmp/$t.1.log" | tail -1 | awk '{print $2}')
  rate=$((execs / elapsed))
  status=ok
  if [ $rc -ne 0 ] || [ "$crashes" -gt 0 ]; then
    status="FAILED"
    failed=1
    echo "fuzz.sh: $t FAILED; log tail:" >&2
    for j in $(seq 1 "$jobs"); do grep -A30 -m1 -E 'ERROR:|runtime error|fuzz property failed' "$tmp/$t.$j.log" >&2 || tail -20 "$tmp/$t.$j.log" >&2; done
    for a in $new; do echo "fuzz.sh: reproducer kept: $a" >&2; done
    # keep the logs next to the artifacts
    mkdir -p "$bdir/fuzz-logs"
    for j in $(seq 1 "$jobs"); do cp "$tmp/$t.$j.log" "$bdir/fuzz-logs/$t-$(date +%Y%m%d-%H%M%S)-$j.txt"; done
  fi
  rows="$rows| $t | $elapsed x $jobs | $execs | $rate | ${cov:-?} | $files ($bytes KiB) | $crashes | $status |
"
done
echo
echo "| target | seconds x jobs | executions | exec/s (per target) | coverage (edges) | corpus (files) | crashes | result |"
echo "|---|---|---|---|---|---|---|---|"
printf "%s" "$rows"
echo
cc=$(command -v clang >/dev/null && clang --version | head -1 || true)
[ -n "$cc" ] || cc=$(cat "$bdir/fuzz-build-info.txt" 2>/dev/null | head -1 || true)
echo "command: scripts/fuzz.sh $( [ "$secs" -ge 60 ] && [ $((secs % 60)) -eq 0 ] && echo "--minutes $((secs / 60))" || echo "--seconds $secs")$( [ "$max_execs" -gt 0 ] && echo " --execs $max_execs") --jobs $jobs; $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs, ${cc:-compiler unknown}"
exit $failed
