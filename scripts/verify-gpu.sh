#!/usr/bin/env bash
# Full check on a machine with a GPU: build (release preset), the whole ctest suite, and
# compute-sanitizer over every lab's small run and over the GPU test binaries. Logs go to
# OUTDIR (default: build/verify). Exits non-zero if a test fails, a GPU test is skipped, or a
# sanitizer reports an error.
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
ctest --preset release -j 8 >"$out/ctest.log" 2>&1 || status=1
tail -4 "$out/ctest.log"
if grep -q "(Skipped)" "$out/ctest.log"; then
  echo "some tests were skipped on a GPU machine:"; grep "(Skipped)" "$out/ctest.log"; status=1
fi

# Small runs of every lab: memcheck finds out-of-bounds and misaligned accesses, initcheck
# reads of uninitialised device memory, racecheck and synccheck shared-memory races and
# barrier misuse.
declare -A small_run=(
  [device_query]=""
  [vec_add]="100003 --warmup 1 --repeat 2"
  [rgba_split]="77 61 --warmup 1 --repeat 2"
  [occupancy]="--stream-n 1M --warmup 1 --repeat 2"
  [divergence]="--iters 100 --warmup 1 --repeat 2"
  [mem_spaces]="--n 1000 --block 128 --measure-n 100000 --warmup 1 --repeat 2"
  [reduction]="100003 --warmup 1 --repeat 2"
)
# Tests that provoke CUDA errors on purpose, and the huge cases (too slow under the tools).
gtest_filter='-CudaErrorPaths.*:RgbaHuge.*:*17x2000000*:*n1048579*:*n16777216*:*n1048577*:*PastTwo*'

echo "== compute-sanitizer"
printf "%-16s %-10s %s\n" "target" "tool" "errors" | tee "$out/sanitizer-summary.txt"
run_tool() {  # name tool command...
  local name=$1 tool=$2; shift 2
  local log="$out/sanitize-${name}-${tool}.log"
  compute-sanitizer --tool "$tool" --error-exitcode 99 "$@" >"$log" 2>&1
  local rc=$?
  local errors
  # memcheck/initcheck/synccheck end with "ERROR SUMMARY: N errors", racecheck with
  # "RACECHECK SUMMARY: N hazards displayed (E errors, W warnings)".
  errors=$(grep -oE "ERROR SUMMARY: [0-9]+|\([0-9]+ errors" "$log" | tail -1 | grep -oE "[0-9]+" || true)
  [[ -z "$errors" ]] && errors="?"
  printf "%-16s %-10s %s\n" "$name" "$tool" "$errors" | tee -a "$out/sanitizer-summary.txt"
  if [[ $rc -ne 0 || "$errors" != "0" ]]; then status=1; fi
}
for lab in "${!small_run[@]}"; do
  for tool in memcheck initcheck racecheck synccheck; do
    # shellcheck disable=SC2086
    run_tool "$lab" "$tool" "build/labs/$lab" ${small_run[$lab]}
  done
done
for test_bin in build/tests/*_gpu_test; do
  run_tool "$(basename "$test_bin")" memcheck "$test_bin" --gtest_filter="$gtest_filter"
done

exit $status
