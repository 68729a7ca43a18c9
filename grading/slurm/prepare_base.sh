#!/usr/bin/env bash
# The first step of a graded class on Slurm: builds and lists the grading tree (the base) once,
# into BASE, for every array task to copy instead of building its own. Queued by submit.sh.
#
#   sbatch grading/slurm/prepare_base.sh SUITE BASE [grade_submission options]
#
# The options are the array's (the same --labs, --cmake-args, --per-case); options that only
# grading uses are accepted and have no effect here.
#SBATCH --job-name=cudalab-base
#SBATCH --output=cudalab-base-%j.log
set -euo pipefail
suite=$1 base=$2
shift 2
exec python3 "$suite/scripts/grade_submission.py" --prepare-base "$base" \
  --out "$(dirname "$base")" --jobs "${SLURM_CPUS_PER_TASK:-$(nproc)}" "$@"
