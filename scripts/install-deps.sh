#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages the suite builds against, and nothing else.
# Idempotent: packages already present are left alone, and with nothing missing it
# does not touch apt at all. The CUDA Toolkit itself is not installed here (it comes
# from NVIDIA's repository or the runner image); the script only checks that nvcc exists.
#
#   scripts/install-deps.sh            install what is missing
#   scripts/install-deps.sh --grading  also bubblewrap, the sandbox of scripts/grade_submission.py
#   scripts/install-deps.sh --slurm    also slurm-wlm and munge (grading/slurm/ and its test)
#   scripts/install-deps.sh --check    list what is missing, exit 1 if anything is
# Options combine: .ci/run uses --grading --slurm.
set -euo pipefail

PACKAGES=(
  cmake            # CMake >= 3.24
  ninja-build      # the presets' generator
  g++              # host compiler
  libgtest-dev     # GoogleTest (find_package(GTest))
  libcli11-dev     # CLI11 (find_package(CLI11))
  libfmt-dev       # fmt (find_package(fmt))
  nlohmann-json3-dev  # nlohmann/json (find_package(nlohmann_json))
  libpng-dev       # PNG images for rgba_split (find_package(PNG))
  libjpeg-dev      # JPEG images for rgba_split (find_package(JPEG))
  python3          # scripts/grade.py and its self-test (scripts/plot.py also needs python3-matplotlib)
)

check_only=0
for arg in "$@"; do
  case "$arg" in
    --check) check_only=1 ;;
    --grading) PACKAGES+=(bubblewrap) ;;
    --slurm) PACKAGES+=(slurm-wlm munge) ;;
    *) echo "install-deps: unknown option '$arg' (known: --check --grading --slurm)" >&2; exit 2 ;;
  esac
done

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if ! command -v nvcc >/dev/null 2>&1 && [[ ! -x /usr/local/cuda/bin/nvcc ]]; then
  echo "install-deps: nvcc not found; install the CUDA Toolkit (12.x or 13.x) from NVIDIA first" >&2
  exit 1
fi

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps: all packages present"
  exit 0
fi

if [[ $check_only -eq 1 ]]; then
  echo "install-deps: missing: ${missing[*]}"
  exit 1
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
