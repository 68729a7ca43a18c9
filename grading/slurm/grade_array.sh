#!/usr/bin/env bash
# One Slurm array task: grades the submission with index SLURM_ARRAY_TASK_ID (in sorted order,
# as grade_submission.py --batch lists them) into OUT/submissions/<name>/ and OUT/rows/<name>.csv.
# Submit it with grading/slurm/submit.sh, which also queues the merge step.
#
#   sbatch --array=0-199%16 --time=35 --gres=gpu:1 grading/slurm/grade_array.sh SUITE SUBMISSIONS OUT [options]
#
# SUITE is the checkout of this suite (its scripts run from there); [options] go to
# grade_submission.py (e.g. --labs vec_add, --cmake-args=-DCMAKE_CUDA_ARCHITECTURES=90).
# GRADE_REQUIRE_GPU=1 (set by submit.sh when a GPU is requested) adds --require-gpu: a node whose
# GPU is missing or broken stops that task with exit 4 instead of scoring its GPU tests 0.
#SBATCH --job-name=cudalab-grade
#SBATCH --output=cudalab-grade-%A_%a.log
set -euo pipefail
suite=$1 subs=$2 out=$3
shift 3
extra=()
if [[ "${GRADE_REQUIRE_GPU:-0}" == 1 ]]; then extra+=(--require-gpu); fi
exec python3 "$suite/scripts/grade_submission.py" "$subs" --batch --index "${SLURM_ARRAY_TASK_ID:?not in a Slurm array}" \
  --out "$out" --jobs "${SLURM_CPUS_PER_TASK:-$(nproc)}" "${extra[@]}" "$@"
