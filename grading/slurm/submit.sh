#!/usr/bin/env bash
# Grade a class on a Slurm cluster: the base (the grading tree, built and listed) once, then one
# array task per submission that copies it, then a merge step.
#
#   grading/slurm/submit.sh SUBMISSIONS OUT [--gres gpu:1|none] [--throttle K] [--time MIN]
#                           [--partition P] [-- grade_submission options]
#
# Each task gets --gres (default gpu:1; "none" on a cluster without GPUs, whose GPU tests then
# report skipped), --time MIN (default 35: the grader's own per-submission limit is 30 min) and
# at most K tasks run at once (default 16). The base goes to OUT/base; the array waits for it
# (and is cancelled if it fails: OUT/cudalab-base-*.log says why). Prints the three job ids;
# OUT/summary.csv and OUT/class-report.md appear when the merge step has run.
# Exit codes: 0 queued, 2 usage error, 3 sbatch refused.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
suite=$(cd "$here/../.." && pwd)
usage() { echo "submit: error: $1 (see the header of grading/slurm/submit.sh)" >&2; exit 2; }
[[ $# -ge 2 ]] || usage "give SUBMISSIONS and OUT"
subs=$(realpath "$1"); out=$(realpath -m "$2"); shift 2
gres=gpu:1 throttle=16 minutes=35 partition=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --gres) gres=${2:?}; shift 2 ;;
    --throttle) throttle=${2:?}; shift 2 ;;
    --time) minutes=${2:?}; shift 2 ;;
    --partition) partition=(--partition "${2:?}"); shift 2 ;;
    --) shift; break ;;
    *) usage "unknown option '$1'" ;;
  esac
done
[[ -d "$subs" ]] || usage "$subs is not a folder of submissions"
[[ "$throttle" =~ ^[1-9][0-9]*$ && "$minutes" =~ ^[1-9][0-9]*$ ]] || usage "--throttle and --time take positive integers"
n=$(find "$subs" -mindepth 1 -maxdepth 1 ! -name '.*' | wc -l)
[[ $n -gt 0 ]] || usage "$subs holds no submissions"
mkdir -p "$out"
gres_args=() require=0
if [[ "$gres" != none ]]; then gres_args=(--gres "$gres"); require=1; fi
[[ -e "$out/base" ]] && usage "$out/base exists (a base from an earlier run): remove it or give another OUT"
base=$(sbatch --parsable "${partition[@]}" --time="$minutes" --chdir "$out" \
  "$here/prepare_base.sh" "$suite" "$out/base" "$@") || { echo "submit: error: sbatch refused the base step" >&2; exit 3; }
array=$(GRADE_REQUIRE_GPU=$require sbatch --parsable --export=ALL,GRADE_REQUIRE_GPU=$require "${partition[@]}" \
  --dependency="afterok:${base%%;*}" --kill-on-invalid-dep=yes \
  --array="0-$((n - 1))%$throttle" --time="$minutes" "${gres_args[@]}" --chdir "$out" \
  "$here/grade_array.sh" "$suite" "$subs" "$out" --base "$out/base" "$@") \
  || { echo "submit: error: sbatch refused the array" >&2; exit 3; }
merge=$(sbatch --parsable "${partition[@]}" --dependency="afterany:${array%%;*}" --kill-on-invalid-dep=yes --time=10 \
  --chdir "$out" "$here/merge.sh" "$suite" "$out") || { echo "submit: error: sbatch refused the merge step" >&2; exit 3; }
echo "submit: base ${base%%;*}, array ${array%%;*} ($n submissions, at most $throttle at once), merge $merge"
