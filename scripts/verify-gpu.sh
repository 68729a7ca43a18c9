#!/usr/bin/env bash
# Full check on a machine with a GPU: build (release preset), the whole ctest suite (none of
# it may be skipped), and scripts/sanitize.sh. Logs go to OUTDIR (default: build/verify).
# Exits non-zero if a test fails, a GPU test is skipped, or a sanitizer reports an error.
#
#   scripts/verify-gpu.sh [OUTDIR]
set -uo pipefail
cd "$(dirname "$0")/.."
out="${1:-build/verify}"
mkdir -p "$out"
status=0

echo "== build"
{ cmake --preset release && cmake --build --preset release -j "$(nproc)"; } >"$out/build.log" 2>&1 ||
  { tail -40 "$out/build.log"; exit 1; }

echo "== ctest"
ctest --preset release -j 8 -LE sanitize >"$out/ctest.log" 2>&1 || status=1
tail -4 "$out/ctest.log"
if grep -q "(Skipped)" "$out/ctest.log"; then
  echo "some tests were skipped on a GPU machine:"; grep "(Skipped)" "$out/ctest.log"; status=1
fi

echo "== compute-sanitizer"
scripts/sanitize.sh --build-dir build --out "$out/sanitize" || status=1

exit $status
