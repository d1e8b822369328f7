#!/usr/bin/env bash
# Black-box daemon test driver for CTest: skips (77) when the npm test oracles are not installed.
# Usage: run.sh CZK_BINARY [TEST_FILE]   (no TEST_FILE: lifecycle.test.mjs then daemon.test.mjs)
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
if [ ! -d "$root/node_modules/@grpc/grpc-js" ] || ! command -v node >/dev/null 2>&1; then
  echo "skipped: node or node_modules (npm ci) missing"
  exit 77
fi
# the timeline test drives a browser: skipped when none is installed (scripts/deps.sh installs Debian's chromium)
if [ "${2:-}" = timeline.test.mjs ] && [ -z "${CZK_CHROMIUM:-}" ] && ! command -v chromium >/dev/null 2>&1 &&
  ! command -v chromium-browser >/dev/null 2>&1 && ! command -v google-chrome >/dev/null 2>&1; then
  echo "skipped: no chromium (apt-get install chromium, or set CZK_CHROMIUM)"
  exit 77
fi
if [ $# -ge 2 ]; then # one test file alone
  CZK_BIN="$1" exec node --test "$root/tests/daemon/$2"
fi
CZK_BIN="$1" node --test "$root/tests/daemon/lifecycle.test.mjs" || exit 1
CZK_BIN="$1" exec node --test "$root/tests/daemon/daemon.test.mjs"
