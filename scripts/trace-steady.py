#!/usr/bin/env python3
"""trace-steady.py: steady-state device numbers from a daemon trace (`czk daemon --trace-file T`, Chrome trace JSON).

  scripts/trace-steady.py TRACE.json [--min-parts N]

Takes the "kernel busy" spans (device-event time of each partition's prove, drawn on the device's kernel lane) of the
jobs with at least N partitions (default 2: the multi-partition kind of a mixed run), sorted by start, and prints:
the median span, the gap between one span's end and the next one's start (negative: they overlap), the start-to-start
period, and over the middle 60% of those partitions the seconds per partition and the device busy share. It also
prints the median and mean of every span name seen at least 10 times (queue wait, synth, prove_start, ...)."""
import collections
import json
import statistics as st
import sys


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    min_parts = 2
    if "--min-parts" in sys.argv:
        min_parts = int(sys.argv[sys.argv.index("--min-parts") + 1])
    t = json.load(open(sys.argv[1]))
    ev = t["traceEvents"] if isinstance(t, dict) else t
    spans = [e for e in ev if e.get("ph") == "X"]
    kb = [e for e in spans if e["name"] == "kernel busy"]
    per_job = collections.Counter(e["args"]["job"] for e in kb)
    big = sorted((e for e in kb if per_job[e["args"]["job"]] >= min_parts), key=lambda e: e["ts"])
    if len(big) < 3:
        print("fewer than 3 kernel-busy spans of jobs with >= %d partitions" % min_parts)
        return 1
    gaps = [(b["ts"] - (a["ts"] + a["dur"])) / 1e3 for a, b in zip(big, big[1:])]
    period = [(b["ts"] - a["ts"]) / 1e3 for a, b in zip(big, big[1:])]
    print("partitions: %d (jobs with >= %d partitions)" % (len(big), min_parts))
    print("kernel busy span (ms): median %.0f" % st.median(e["dur"] / 1e3 for e in big))
    print("gap to the next span (ms): median %.0f, min %.0f, max %.0f" % (st.median(gaps), min(gaps), max(gaps)))
    print("start-to-start period (ms): median %.0f" % st.median(period))
    mid = big[len(big) // 5: len(big) * 4 // 5]
    if len(mid) > 2:
        wall = (mid[-1]["ts"] + mid[-1]["dur"] - mid[0]["ts"]) / 1e6
        # busy: the union of the spans over that window
        busy, end = 0.0, None
        for e in mid:
            s, f = e["ts"], e["ts"] + e["dur"]
            if end is None or s > end:
                busy += f - s
                end = f
            elif f > end:
                busy += f - end
                end = f
        print("steady state (middle 60%%): %d partitions in %.2f s = %.3f s per partition, device busy %.1f%%"
              % (len(mid), wall, wall / len(mid), 100 * busy / 1e6 / wall))
    by = collections.defaultdict(list)
    for e in spans:
        by[e["name"]].append(e["dur"] / 1e3)
    for k, v in sorted(by.items()):
        if len(v) >= 10:
            print("%-16s n=%4d median %9.1f ms  mean %9.1f ms" % (k, len(v), st.median(v), st.mean(v)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
