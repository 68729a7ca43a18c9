#!/usr/bin/env bash
# Checks what the build needs, by what it can do rather than by package name, and installs only
# what is truly missing (Debian/Ubuntu packages, with apt). With nothing missing it does nothing
# and needs no network: a CMake or Ninja from pip, conda, Kitware's installer or a `module load`
# counts as present. The CUDA Toolkit itself is not installed here (it comes from NVIDIA's
# repository, the runner image or the cluster's modules); the script checks that nvcc is 12.x or 13.x.
#
#   scripts/install-deps.sh            install what is missing
#   scripts/install-deps.sh --grading  also bubblewrap, the sandbox of scripts/grade_submission.py
#   scripts/install-deps.sh --slurm    also slurm-wlm and munge (grading/slurm/ and its test)
#   scripts/install-deps.sh --check    list what is missing, exit 1 if anything is
# Options combine: .ci/run uses --grading --slurm.
#
# What is checked:
#   cmake >= 3.24 and ninja anywhere on PATH; a C++17 host compiler ($CXX, else c++);
#   nvcc 12.x or 13.x (PATH or /usr/local/cuda/bin); python3;
#   GoogleTest, CLI11, fmt, nlohmann_json, libpng, libjpeg: found the way the build finds them,
#   by a probe configure with the same find_package calls (any cmake will do for that; without
#   a cmake or a compiler, by asking dpkg for their packages).
# Exit codes: 0 everything present (or installed), 1 something is missing and could not be
# installed (the message names it), 2 usage error.
set -uo pipefail

check_only=0
extra_tools=()  # "command package" pairs
for arg in "$@"; do
  case "$arg" in
    --check) check_only=1 ;;
    --grading) extra_tools+=("bwrap bubblewrap") ;;
    --slurm) extra_tools+=("slurmctld slurm-wlm" "slurmd slurm-wlm" "munged munge") ;;
    *) echo "install-deps: unknown option '$arg' (known: --check --grading --slurm)" >&2; exit 2 ;;
  esac
done

missing=()       # Debian packages that would fix what is missing
missing_what=()  # what is missing, in words

need() {  # need PACKAGE "what is missing"
  missing+=("$1")
  missing_what+=("$2")
}

version_at_least() {  # version_at_least 3.25.1 3.24
  [[ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" == "$2" ]]
}

# ---- tools ---------------------------------------------------------------------------------
cmake_ok=0   # a cmake that can build the suite
cmake_any=0  # any cmake at all: enough for the library probe
if command -v cmake >/dev/null 2>&1; then cmake_any=1; fi
if command -v cmake >/dev/null 2>&1; then
  cmake_version=$(cmake --version 2>/dev/null | head -n1 | grep -oE '[0-9]+\.[0-9]+(\.[0-9]+)?' | head -n1)
  if [[ -n "$cmake_version" ]] && version_at_least "$cmake_version" 3.24; then
    cmake_ok=1
  else
    need cmake "cmake >= 3.24 (found ${cmake_version:-an unreadable version} at $(command -v cmake))"
  fi
else
  need cmake "cmake >= 3.24"
fi

if ! command -v ninja >/dev/null 2>&1; then need ninja-build "ninja"; fi

cxx_ok=0
cxx="${CXX:-c++}"
if command -v "$cxx" >/dev/null 2>&1 &&
   printf '#include <optional>\nint main() { std::optional<int> x = 1; return *x - 1; }\n' |
     "$cxx" -std=c++17 -fsyntax-only -x c++ - >/dev/null 2>&1; then
  cxx_ok=1
else
  need g++ "a C++17 host compiler ($cxx)"
fi

if ! command -v python3 >/dev/null 2>&1; then need python3 "python3"; fi

nvcc=$(command -v nvcc 2>/dev/null || true)
if [[ -z "$nvcc" && -x /usr/local/cuda/bin/nvcc ]]; then nvcc=/usr/local/cuda/bin/nvcc; fi
if [[ -z "$nvcc" ]]; then
  echo "install-deps: nvcc not found; install the CUDA Toolkit (12.x or 13.x) from NVIDIA first" >&2
  exit 1
fi
nvcc_version=$("$nvcc" --version 2>/dev/null | grep -oE 'release [0-9]+\.[0-9]+' | grep -oE '[0-9]+\.[0-9]+' || true)
case "${nvcc_version%%.*}" in
  12|13) ;;
  *) echo "install-deps: $nvcc is CUDA ${nvcc_version:-of an unknown version}; the suite needs 12.x or 13.x" >&2
     exit 1 ;;
esac

for pair in ${extra_tools[@]+"${extra_tools[@]}"}; do
  tool=${pair%% *}
  pkg=${pair##* }
  if ! command -v "$tool" >/dev/null 2>&1 && [[ ! -x "/usr/sbin/$tool" ]]; then need "$pkg" "$tool"; fi
done

# ---- libraries, as CMake will find them -----------------------------------------------------
LIBS=("GTest libgtest-dev" "CLI11 libcli11-dev" "fmt libfmt-dev" "nlohmann_json nlohmann-json3-dev"
      "PNG libpng-dev" "JPEG libjpeg-dev")
if [[ $cmake_any -eq 1 && $cxx_ok -eq 1 ]]; then
  probe=$(mktemp -d)
  trap 'rm -rf "$probe"' EXIT
  {
    echo "cmake_minimum_required(VERSION 3.10)"
    echo "project(cudalab_probe LANGUAGES CXX)"
    for pair in "${LIBS[@]}"; do
      lib=${pair%% *}
      echo "find_package($lib QUIET)"
      echo "if(${lib}_FOUND)"
      echo "  message(STATUS \"CUDALAB_PROBE $lib FOUND\")"
      echo "else()"
      echo "  message(STATUS \"CUDALAB_PROBE $lib MISSING\")"
      echo "endif()"
    done
  } >"$probe/CMakeLists.txt"
  found=$(CXX="$cxx" cmake -S "$probe" -B "$probe/build" 2>&1 | grep -oE 'CUDALAB_PROBE [A-Za-z0-9_]+ (FOUND|MISSING)' || true)
  for pair in "${LIBS[@]}"; do
    lib=${pair%% *}
    if ! grep -q "CUDALAB_PROBE $lib FOUND" <<<"$found"; then need "${pair##* }" "$lib (find_package)"; fi
  done
else
  for pair in "${LIBS[@]}"; do
    pkg=${pair##* }
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
      need "$pkg" "${pair%% *}"
    fi
  done
fi

# ---- report or install ----------------------------------------------------------------------
if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps: all present (cmake ${cmake_version}, nvcc ${nvcc_version}); nothing to install"
  exit 0
fi
packages=$(printf '%s\n' "${missing[@]}" | awk '!seen[$0]++' | tr '\n' ' ' | sed 's/ $//')
what=$(printf '%s, ' "${missing_what[@]}" | sed 's/, $//')
if [[ $check_only -eq 1 ]]; then
  echo "install-deps: missing: $what (Debian/Ubuntu packages: $packages)"
  exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-deps: missing: $what; this system has no apt: install them with its package manager (Debian/Ubuntu names: $packages)" >&2
  exit 1
fi

echo "install-deps: installing $packages (for: $what)"
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
# shellcheck disable=SC2086
if ! $SUDO apt-get update -qq >/dev/null 2>&1 || ! $SUDO apt-get install -y -qq --no-install-recommends $packages; then
  echo "install-deps: missing: $what; apt could not install $packages (no network to the mirrors?): install them by hand" >&2
  exit 1
fi
echo "install-deps: installed $packages"
