#!/usr/bin/env bash
# The merge step after the array: OUT/summary.csv and OUT/class-report.md from every task's row.
#SBATCH --job-name=cudalab-merge
#SBATCH --output=cudalab-merge-%j.log
set -euo pipefail
exec python3 "$1/scripts/grade_merge.py" "$2"
