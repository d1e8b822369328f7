#!/bin/sh
# Black-box test of `czk bench filecoin` (bench/bench_filecoin.c): real Filecoin proofs through a spawned daemon whose
# keys are set up in memory (setup_in_memory, on the CPU; nothing cached), with the table rows checked; and a run whose
# job fails (a --params directory holding a wrong key) must exit 1.
#   bench_filecoin.sh CZK winning   3 WinningPoSt 2 KiB jobs
#   bench_filecoin.sh CZK porep     1 PoRep 2 KiB job (2^22 constraints: minutes on a small CPU)
#   bench_filecoin.sh CZK fail      garbage key files under the v28 name: the job fails, exit code 1
#   bench_filecoin.sh CZK maxwall   --max-wall 3 over 40 WinningPoSt jobs one at a time: the jobs done, exit code 1
#   bench_filecoin.sh CZK params    real key files (czk setup): proofs verified here with the .vk; against the .vk of
#                                   another key (a daemon given key A, --params with key B) every proof fails: exit 1
set -u
CZK=$1
MODE=$2
OUT=$(mktemp -d /tmp/czk-test-benchfc-XXXXXX)
trap 'rm -rf "$OUT"' EXIT
fail() { echo "FAIL: $*"; echo "--- stdout"; cat "$OUT/out"; echo "--- stderr"; cat "$OUT/err"; exit 1; }
has() { grep -q -- "$1" "$OUT/out" || fail "no line matching '$1' in the output"; }

case $MODE in
winning | porep)
  if [ "$MODE" = winning ]; then
    KIND=winning-post NAME=winning-post-2KiB KEY=winning-2k JOBS=3
  else
    KIND=porep NAME=porep-c2-2KiB KEY=porep-2k JOBS=1
  fi
  "$CZK" bench filecoin --kind $KIND --sector-size 2KiB --jobs $JOBS --spawn --daemon-args "--gpus none" \
    >"$OUT/out" 2>"$OUT/err"
  rc=$?
  [ $rc -eq 0 ] || fail "exit code $rc"
  has "^$NAME  *critical\|^$NAME  *normal"
  has "^LATENCY (client, s)"
  has "^$NAME  *$JOBS  *[0-9.]*  *[0-9.]*  *[0-9.]*  *[0-9.]*  *[0-9.]*\$"
  has "^$NAME  *$JOBS  *$JOBS  *0 "
  has "^THROUGHPUT .* STEADY S/JOB\$"
  if [ $JOBS -ge 2 ]; then # seconds per job between the first and the last completion
    has "^$NAME  *$JOBS  *$JOBS  *0  *[0-9.]*  *[0-9.]*  *[0-9][0-9]*\.[0-9][0-9][0-9]\$"
  else
    has "^$NAME  *$JOBS  *$JOBS  *0  *[0-9.]*  *[0-9.]*  *-\$"
  fi
  has "$JOBS/$JOBS jobs good"
  has "verification: $NAME: $JOBS of $JOBS partition proofs self-verified"
  [ $KIND = porep ] || has "verification: $NAME: $JOBS of $JOBS"
  has "^STAGES (daemon) .*$NAME"
  for row in "parse (decode)" "native checks + inputs" "witness + a/b/c" "prover check" "H (NTTs)" "MSM h" "MSM l" \
             "MSM a" "MSM b_g1" "MSM b_g2" "finish" "verify" "job: queue wait"; do
    has "^$row  *[0-9]"
  done
  has "^DEVICE .*BUSY %"
  has "^0  *[0-9.]*  *[0-9.]*  *[0-9.]*"
  has "daemon peak RSS during the run [0-9]"
  has "reservations: peak [0-9]"
  has "^$KEY  *mapped  *host"
  grep -q "spawned daemon stopped (clean exit)" "$OUT/err" || fail "the spawned daemon did not stop cleanly"
  ;;
maxwall)
  # --max-wall: past it the tables of the jobs done, the rest cancelled with the daemon, exit code 1; not without --spawn
  "$CZK" bench filecoin --kind winning-post --sector-size 2KiB --jobs 40 --inflight 1 --spawn --max-wall 3 \
    --daemon-args "--gpus none" >"$OUT/out" 2>"$OUT/err"
  rc=$?
  [ $rc -eq 1 ] || fail "exit code $rc, expected 1"
  has "^czk bench filecoin: --max-wall 3 s reached: [0-9]* of 40 jobs done"
  DONE=$(sed -n 's/.*--max-wall 3 s reached: \([0-9]*\) of 40.*/\1/p' "$OUT/out")
  [ "$DONE" -lt 40 ] || fail "all 40 jobs done within 3 s: the deadline was not tested"
  has "^LATENCY (client, s)"
  has "^$DONE/$DONE jobs good"
  grep -q "spawned daemon stopped" "$OUT/err" || fail "the spawned daemon was not stopped"
  "$CZK" bench filecoin --kind winning-post --sector-size 2KiB --max-wall 3 >"$OUT/out" 2>"$OUT/err"
  [ $? -eq 2 ] || fail "--max-wall without --spawn is not a usage error"
  grep -q "max-wall need --spawn" "$OUT/err" || fail "no message for --max-wall without --spawn"
  ;;
fail)
  STEM=$("$CZK" circuit-info winning-post --sector-size 2KiB | sed -n 's/^  parameters  *\(.*\)\.params$/\1/p')
  [ -n "$STEM" ] || { echo "FAIL: no parameter stem from circuit-info"; exit 1; }
  mkdir "$OUT/params"
  head -c 4096 /dev/zero >"$OUT/params/$STEM.params"
  head -c 1024 /dev/zero >"$OUT/params/$STEM.vk"
  "$CZK" bench filecoin --kind winning-post --sector-size 2KiB --jobs 1 --spawn --params "$OUT/params" \
    --daemon-args "--gpus none" >"$OUT/out" 2>"$OUT/err"
  rc=$?
  [ $rc -eq 1 ] || fail "exit code $rc, expected 1"
  grep -q "job .*(winning-post-2KiB): FAILED: .*key" "$OUT/err" || fail "the failed job is not reported"
  has "0/1 jobs good"
  # and bad usage is 2, never a crash
  "$CZK" bench filecoin --kind nope --spawn >/dev/null 2>&1
  [ $? -eq 2 ] || fail "a bad --kind is not a usage error"
  ;;
params)
  for k in A B; do
    "$CZK" setup --kind winning-post --sector-size 2KiB --out "$OUT/$k" >/dev/null 2>&1 || fail "czk setup $k"
  done
  "$CZK" bench filecoin --kind winning-post --sector-size 2KiB --jobs 2 --spawn --params "$OUT/A" \
    --daemon-args "--gpus none" >"$OUT/out" 2>"$OUT/err"
  rc=$?
  [ $rc -eq 0 ] || fail "exit code $rc with the right key"
  has "verification: 2 partition proofs verified here with the .vk files of $OUT/A, 0 failed"
  has "2/2 jobs good"
  # a daemon proving with key A, checked against key B's .vk
  "$CZK" daemon --listen "unix:$OUT/d.sock" --keys-dir "$OUT/keys" --param-dir "$OUT/A" --gpus none \
    --log-level warn >"$OUT/daemon.out" 2>&1 &
  DPID=$!
  i=0
  until grep -q "ready on" "$OUT/daemon.out"; do
    i=$((i + 1))
    [ $i -lt 300 ] || { kill $DPID; fail "the daemon did not start"; }
    sleep 0.1
  done
  "$CZK" bench filecoin --kind winning-post --sector-size 2KiB --jobs 2 --addr "unix:$OUT/d.sock" \
    --params "$OUT/B" >"$OUT/out" 2>"$OUT/err"
  rc=$?
  kill $DPID
  wait $DPID
  [ $rc -eq 1 ] || fail "exit code $rc against the wrong .vk, expected 1"
  has "verification: 2 partition proofs verified here with the .vk files of $OUT/B, 2 failed"
  has "0/2 jobs good"
  grep -q "WRONG PROOF: partition 0 does not verify with" "$OUT/err" || fail "the wrong proofs are not reported"
  ;;
*) echo "unknown mode $MODE"; exit 2 ;;
esac
echo "ok: czk bench filecoin ($MODE)"
