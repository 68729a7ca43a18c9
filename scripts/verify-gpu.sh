#!/usr/bin/env bash
# The acceptance run on a machine with a GPU: what an instructor runs on a new machine, and what
# every change that touches a GPU is held to. Logs go to --out (default build/verify).
#
#   scripts/verify-gpu.sh [--out DIR] [--fresh-runs N [--limit S]] [--baseline] [--class-rate]
#                         [--bench [--against OLD.json]] [--record-new] [--no-suite]
#
# Always (unless --no-suite): build (release preset), the whole ctest suite (none of it may be
#   skipped, but grading.slurm where Slurm is not installed), then scripts/sanitize.sh.
# --fresh-runs N  N copies of this tree as a fresh clone has it (tracked and unignored files; no
#                 build folder), each configured, built and tested from nothing with the README's
#                 test command (cmake --workflow --preset test), one after another and timed. A run
#                 fails when a test fails or is skipped (but grading.slurm where Slurm is not
#                 installed: named in the line), or when the suite (ctest's "Total Test
#                 time") takes more than S seconds (--limit, default 60); the whole command's time,
#                 configure and build included, is printed beside it. DIR/fresh-runs.txt: a line per run.
# --baseline      scripts/grade_baseline.py: per task, bodies that do no work must score 0.
# --class-rate    scripts/grade_bench.py --copies 4 --per-gpu 4 --jobs 16: submissions an hour,
#                 and every copy's per-task scores equal to its kind's graded alone.
# --bench         scripts/bench.py, then its --ratios beside --against (default: the newest
#                 result of the same GPU under docs/bench, else the newest), so a ratio that
#                 fell is seen in the same log.
# --record-new    scripts/record_reports.py --unrecorded --mark-recorded: the labs labs/manifest.json
#                 marks recorded: false (written where no GPU was at hand) get their report in
#                 tests/data/reports and lose the mark, in this tree (commit both).
# Exit codes: 0 everything asked for passed, 1 something failed, 2 usage error, 77 no GPU.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
out="" fresh=0 limit=60 baseline=0 class=0 bench=0 against="" suite=1 record=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --out) out="${2:?--out needs a folder}"; shift 2 ;;
    --fresh-runs) fresh="${2:?--fresh-runs needs a count}"; shift 2 ;;
    --limit) limit="${2:?--limit needs seconds}"; shift 2 ;;
    --baseline) baseline=1; shift ;;
    --class-rate) class=1; shift ;;
    --bench) bench=1; shift ;;
    --against) against="${2:?--against needs a result}"; shift 2 ;;
    --no-suite) suite=0; shift ;;
    --record-new) record=1; shift ;;
    -h|--help) sed -n '2,/^# Exit codes/p' "$0"; exit 0 ;;
    -*) echo "verify-gpu: error: unknown option $1" >&2; exit 2 ;;
    *) [[ -z "$out" ]] || { echo "verify-gpu: error: one output folder, got $out and $1" >&2; exit 2; }
       out="$1"; shift ;;  # the older form: verify-gpu.sh OUTDIR
  esac
done
[[ "$fresh" =~ ^[0-9]+$ ]] || { echo "verify-gpu: error: --fresh-runs must be a count, got '$fresh'" >&2; exit 2; }
[[ "$limit" =~ ^[1-9][0-9]*$ ]] || { echo "verify-gpu: error: --limit must be whole seconds, got '$limit'" >&2; exit 2; }
[[ -z "$against" || -r "$against" ]] || { echo "verify-gpu: error: cannot read $against" >&2; exit 2; }
command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q "^GPU" ||
  { echo "verify-gpu: skipped: no GPU (nvidia-smi lists none)"; exit 77; }
out="${out:-build/verify}"
mkdir -p "$out" && out=$(cd "$out" && pwd)
status=0
# A skipped test fails the run, but for grading.slurm where Slurm is not installed (it needs a
# Slurm cluster, not a GPU; scripts/install-deps.sh --slurm): that one is named and let pass.
no_slurm=0
command -v slurmctld >/dev/null 2>&1 || no_slurm=1
skipped() {
  if [[ $no_slurm -eq 1 ]]; then grep -E "\(Skipped\)|Not Run" "$1" | grep -v "grading\.slurm"; else grep -E "\(Skipped\)|Not Run" "$1"; fi
}
# Copies stdin to stdout, and each line with the seconds since the start before it to $1.
timeline() {
  local t0=${EPOCHREALTIME/./} line us
  while IFS= read -r line; do
    printf '%s\n' "$line"
    us=$((${EPOCHREALTIME/./} - t0))
    printf '%d.%02d %s\n' $((us / 1000000)) $((us % 1000000 / 10000)) "$line" >>"$1"
  done
}
# From a timeline of ctest's output: the eight tests that ended last, with when each started and
# ended (seconds after ctest's first line): the suite's critical path.
critical_path() {
  awk '/Test project/ && !t0 { t0 = $1 }
       / Start +[0-9]+: / { n = $NF; s[n] = $1 - t0 }
       /Test +#[0-9]+: / { n = $0; sub(/.*Test +#[0-9]+: /, "", n); sub(/ .*/, "", n); e[n] = $1 - t0 }
       END { for (n in e) printf "  ended %6.1f s, started %6.1f s: %s\n", e[n], s[n], n }' "$1" | sort -k2 -n | tail -8
}
slurm_note() { [[ $no_slurm -eq 1 ]] && grep -qE "grading\.slurm.*Skipped" "$1" && echo ", grading.slurm skipped (no Slurm here)"; }

if [[ $suite -eq 1 ]]; then
  echo "== build"
  { cmake --preset release && cmake --build --preset release -j "$(nproc)"; } >"$out/build.log" 2>&1 ||
    { tail -40 "$out/build.log"; exit 1; }
  echo "== ctest"
  ctest --preset release -j 8 -LE sanitize >"$out/ctest.log" 2>&1 || status=1
  tail -4 "$out/ctest.log"
  if skipped "$out/ctest.log" >/dev/null; then
    echo "some tests were skipped on a GPU machine:"; skipped "$out/ctest.log"; status=1
  fi
  echo "== compute-sanitizer"
  scripts/sanitize.sh --build-dir build --out "$out/sanitize" || status=1
fi

if [[ $record -eq 1 ]]; then
  echo "== the reports of the labs not yet recorded"
  python3 scripts/record_reports.py build tests/data/reports --unrecorded --mark-recorded 2>&1 | tee "$out/record.log"
  [[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
fi

if [[ $fresh -gt 0 ]]; then
  echo "== $fresh fresh runs of: cmake --workflow --preset test (the suite within ${limit} s each)"
  : >"$out/fresh-runs.txt"
  for i in $(seq 1 "$fresh"); do
    copy=$(mktemp -d "${TMPDIR:-/tmp}/cudalab-fresh-$i.XXXXXX")
    chmod 755 "$copy"  # as a clone's folder is: mktemp's 0700 keeps the grading tests' sandbox uid out
    git ls-files -z -co --exclude-standard | tar --null -T - -cf - | tar -xf - -C "$copy"
    start=$(date +%s%N)
    vmstat -n 1 >"$out/fresh-$i.vmstat" 2>/dev/null &
    vmstat_pid=$!
    (cd "$copy" && cmake --workflow --preset test) 2>&1 | timeline "$out/fresh-$i.timeline" >"$out/fresh-$i.log"
    rc=${PIPESTATUS[0]}
    kill "$vmstat_pid" 2>/dev/null
    ms=$((($(date +%s%N) - start) / 1000000))
    suite_s=$(grep -Eo 'Total Test time \(real\) = +[0-9.]+' "$out/fresh-$i.log" | tail -1 | grep -Eo '[0-9.]+$')
    line="run $i: rc $rc, $((ms / 1000)).$(printf %03d $((ms % 1000))) s in all, the suite ${suite_s:-?} s, $(grep -Eo '[0-9]+% tests passed(, [0-9]+ tests failed)? out of [0-9]+' "$out/fresh-$i.log" | tail -1)$(slurm_note "$out/fresh-$i.log")"
    [[ $rc -eq 0 ]] || { line+=", FAILED"; status=1; }
    skipped "$out/fresh-$i.log" >/dev/null && { line+=", a test was skipped"; status=1; }
    # the limit is the suite's (ctest's own time); configure and build are reported beside it
    awk -v t="${suite_s:-1e9}" -v l="$limit" 'BEGIN { exit !(t <= l) }' || { line+=", suite over ${limit} s"; status=1; }
    echo "$line" | tee -a "$out/fresh-runs.txt"
    critical_path "$out/fresh-$i.timeline" >>"$out/fresh-runs.txt"
    rm -rf "$copy"
  done
fi

if [[ $baseline -eq 1 ]]; then
  echo "== grade_baseline (every task must score 0 for a body that does no work)"
  python3 scripts/grade_baseline.py --out "$out/baseline" >"$out/baseline.log" 2>&1 || status=1
  tail -25 "$out/baseline.log"
fi

if [[ $class -eq 1 ]]; then
  echo "== grade_bench (the grading rate)"
  python3 scripts/grade_bench.py --out "$out/class" --copies 4 --per-gpu 4 --jobs 16 >"$out/class.log" 2>&1 ||
    status=1
  tail -30 "$out/class.log"
fi

if [[ $bench -eq 1 ]]; then
  echo "== bench"
  python3 scripts/bench.py --build-dir build --out "$out/bench" >"$out/bench.log" 2>&1 || status=1
  result=$(ls -t "$out"/bench/*.json 2>/dev/null | head -1)
  # default: the newest recorded result of the same GPU (its file name's slug), else the newest
  gpu_slug=$(basename "${result:-none}" | sed -E 's/-[0-9]{4}-[0-9]{2}-[0-9]{2}\.json$//')
  against="${against:-$(ls "$root"/docs/bench/"$gpu_slug"-*.json 2>/dev/null | sort | tail -1)}"
  against="${against:-$(ls "$root"/docs/bench/*.json 2>/dev/null | sort | tail -1)}"
  if [[ -n "$result" ]]; then
    python3 scripts/bench.py --ratios "$result" ${against:+--against "$against"} | tee "$out/ratios.txt"
  else
    echo "bench wrote no result:"; tail -10 "$out/bench.log"; status=1
  fi
fi

exit $status
