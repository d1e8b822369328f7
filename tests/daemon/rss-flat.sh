#!/usr/bin/env bash
# rss-flat.sh: regression test of the soak's first finding (docs/reliability.md, "Soak"): the daemon's anonymous RSS
# must not grow with the number of jobs once warm. Before the fixed mmap threshold (cmd_daemon.c) every 2 KiB
# WinningPoSt job left ~5 MiB of freed a/b/c buffers resident in glibc's per-thread arenas (15 jobs: +75 MiB).
#
#   tests/daemon/rss-flat.sh <czk-binary> <cache-dir>
#
# Makes the 2 KiB WinningPoSt key and a vanilla proof in <cache-dir> once; 3 jobs to warm up, then 15 more; fails when
# RssAnon grew by more than 24 MiB over the 15.
set -uo pipefail
czk=${1:?usage: rss-flat.sh <czk-binary> <cache-dir>}
cache=${2:?usage: rss-flat.sh <czk-binary> <cache-dir>}
mkdir -p "$cache/params"
if [ ! -f "$cache/req/request.json" ]; then
  "$czk" setup --kind winning-post --sector-size 2KiB --out "$cache/params" >"$cache/setup.log" 2>&1 &&
    "$czk" gen-vanilla winning-post --sector-size 2KiB --out "$cache/req" >>"$cache/setup.log" 2>&1 ||
    { echo "rss-flat: setup failed (see $cache/setup.log)" >&2; exit 1; }
fi
dir=$(mktemp -d /tmp/czk-rss-XXXXXX)
addr="unix:$dir/czk.sock"
"$czk" daemon --listen "$addr" --keys-dir "$dir/keys" --param-dir "$cache/params" --log-level warn >"$dir/log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 100); do grep -q "ready on" "$dir/log" && break; sleep 0.1; done
grep -q "ready on" "$dir/log" || { echo "rss-flat: the daemon did not start" >&2; cat "$dir/log" >&2; exit 1; }
anon() { awk '/^RssAnon:/ {print $2}' "/proc/$pid/status"; }
job() {
  local id
  id=$("$czk" submit --addr "$addr" --request "$cache/req/request.json") || return 1
  "$czk" await --addr "$addr" "$id" >/dev/null || return 1
}
for _ in 1 2 3; do job || { echo "rss-flat: a job failed" >&2; exit 1; }; done
a0=$(anon)
for _ in $(seq 15); do job || { echo "rss-flat: a job failed" >&2; exit 1; }; done
a1=$(anon)
echo "rss-flat: RssAnon after 3 jobs ${a0} kB, after 15 more ${a1} kB (growth $(((a1 - a0) / 1024)) MiB, limit 24)"
[ $((a1 - a0)) -le $((24 * 1024)) ] || { echo "rss-flat: FAIL: the daemon's anonymous RSS grows with the jobs" >&2; exit 1; }
kill -TERM $pid
wait $pid
rc=$?
[ $rc -eq 0 ] || { echo "rss-flat: the daemon exited $rc on SIGTERM" >&2; exit 1; }
