#!/usr/bin/env bash
# CTest driver of metrics-promtool.test.mjs: `promtool check metrics` on a daemon's /metrics. Skips (77) when promtool
# is missing: $PROMTOOL, promtool on PATH, or .cache/promtool/promtool (scripts/deps.sh takes it from the Debian
# package prometheus without installing the server).
# Usage: promtool.sh CZK_BINARY
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
pt="${PROMTOOL:-}"
[ -n "$pt" ] || pt="$(command -v promtool 2>/dev/null || true)"
[ -n "$pt" ] || { [ -x "$root/.cache/promtool/promtool" ] && pt="$root/.cache/promtool/promtool"; }
if [ -z "$pt" ]; then
  echo "skipped: promtool not installed (scripts/deps.sh fetches it from the Debian package prometheus)"
  exit 77
fi
PROMTOOL="$pt" exec "$root/tests/daemon/run.sh" "$1" metrics-promtool.test.mjs
