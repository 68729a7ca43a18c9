#!/usr/bin/env bash
# compute-sanitizer (memcheck, initcheck, racecheck, synccheck) over every lab's small run and
# memcheck over the GPU test binaries; prints a table (target x tool -> errors, the program's own exit
# status under the tool, seconds) and exits 1 if
# any tool reports an error. The small runs come from <build>/sanitize-runs.txt, written by each
# lab's cudalab_add_lab(SANITIZE_ARGS ...). Without a GPU or without compute-sanitizer it says
# "skipped" and exits 0. `ctest -L sanitize` runs the same lab checks as ctest tests.
#
#   scripts/sanitize.sh [--build-dir build] [--out build/sanitize] [lab ...]
set -uo pipefail
cd "$(dirname "$0")/.."
build=build out="" labs=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build-dir) build="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    -*) echo "sanitize: error: unknown option $1" >&2; exit 2 ;;
    *) labs+=("$1"); shift ;;
  esac
done
out="${out:-$build/sanitize}"
runs="$build/sanitize-runs.txt"
[[ -f "$runs" ]] || { echo "sanitize: error: $runs not found (configure and build first)" >&2; exit 2; }
sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null || true)
[[ -n "$sanitizer" ]] || { echo "sanitize: skipped: compute-sanitizer not found"; exit 0; }
"$build/labs/device_query" >/dev/null 2>&1
[[ $? -eq 77 ]] && { echo "sanitize: skipped: no GPU"; exit 0; }
mkdir -p "$out"

# Tests that provoke CUDA errors on purpose, the huge cases (too slow under the tools), and the
# two that compare timings (bank passes in cycles, FP32 against FP64 peak): the tool's
# instrumentation changes what they time, so they fail under it with 0 errors found.
gtest_filter='-CudaErrorPaths.*:*EachMistakeSurfaces*:RgbaHuge.*:*17x2000000*:*n1048579*:*n16777216*:*n1048577*:*PastTwo*:TransposeBanks.CyclesFollowThePredictedDegree:RooflineGpu.PeaksArePositiveAndFp64IsNotFaster'
status=0
printf "%-24s %-10s %-7s %-5s %s\n" "target" "tool" "errors" "exit" "seconds" | tee "$out/summary.txt"
run_tool() {  # name tool command...
  local name=$1 tool=$2; shift 2
  local log="$out/${name}-${tool}.log"
  local start=$SECONDS
  "$sanitizer" --tool "$tool" --error-exitcode 99 "$@" >"$log" 2>&1
  local rc=$? took=$((SECONDS - start))
  # memcheck/initcheck/synccheck end with "ERROR SUMMARY: N errors", racecheck with
  # "RACECHECK SUMMARY: N hazards displayed (E errors, W warnings)".
  local errors
  errors=$(grep -oE "ERROR SUMMARY: [0-9]+|\([0-9]+ errors" "$log" | tail -1 | grep -oE "[0-9]+" || true)
  [[ -z "$errors" ]] && errors="?"
  # The exit column is the program's own status under the tool: a row with 0 errors and a
  # nonzero exit is a failure too (the lab found a wrong result, or could not run).
  printf "%-24s %-10s %-7s %-5s %s\n" "$name" "$tool" "$errors" "$rc" "$took" | tee -a "$out/summary.txt"
  if [[ $rc -ne 0 || "$errors" != "0" ]]; then status=1; fi
}
while read -r lab args; do
  [[ -z "$lab" ]] && continue
  if [[ ${#labs[@]} -gt 0 && ! " ${labs[*]} " =~ " $lab " ]]; then continue; fi
  for tool in memcheck initcheck racecheck synccheck; do
    # shellcheck disable=SC2086
    run_tool "$lab" "$tool" "$build/labs/$lab" $args
  done
  if [[ -x "$build/tests/${lab}_gpu_test" ]]; then
    run_tool "${lab}_gpu_test" memcheck "$build/tests/${lab}_gpu_test" --gtest_filter="$gtest_filter"
  fi
done < "$runs"
if [[ ${#labs[@]} -eq 0 && -x "$build/tests/common_gpu_test" ]]; then
  run_tool common_gpu_test memcheck "$build/tests/common_gpu_test" --gtest_filter="$gtest_filter"
fi
exit $status
