#!/usr/bin/env bash
# timeline-shot.sh: remake docs/timeline.png, the README's picture of the timeline, from a real run: `czk demo` proves
# its mixed workload through a private daemon and writes the timeline page; headless Chromium photographs it.
# Usage: scripts/timeline-shot.sh [BUILD_DIR] [OUT.png]   (defaults: build, docs/timeline.png; needs Debian's chromium)
set -euo pipefail
cd "$(dirname "$0")/.."
czk="${1:-build}/src/cli/czk"
out="${2:-docs/timeline.png}"
browser="${CZK_CHROMIUM:-chromium}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$czk" demo --small 10 --big 13 --keys-dir "$tmp/keys" --html "$tmp/timeline.html" >"$tmp/demo.log"
"$browser" --headless --disable-gpu --no-sandbox --disable-dev-shm-usage --no-first-run --hide-scrollbars --user-data-dir="$tmp/profile" \
  --window-size=1400,900 --virtual-time-budget=3000 --screenshot="$tmp/shot.png" "file://$tmp/timeline.html" \
  >/dev/null 2>&1
cp "$tmp/shot.png" "$out"
echo "timeline-shot: $out ($(stat -c %s "$out") bytes) from:"
sed -n '/^JOB/,/^$/p' "$tmp/demo.log"
