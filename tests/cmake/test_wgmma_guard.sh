#!/bin/sh
# cmake/wgmma_guard.sh, the launcher of the sm_90a kernel objects: it passes a kernel whose wgmma
# ptxas leaves asynchronous, and refuses one whose wgmma ptxas serialises, naming ptxas's C7520.
#   tests/cmake/test_wgmma_guard.sh NVCC SOURCE_DIR
nvcc=$1
src=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/wgmma_guard_test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
guard="$src/cmake/wgmma_guard.sh"
# device code only (-cubin): ptxas's report is all the guard reads, and the host compile would
# double the test's time
set -- -std=c++17 "-I$src" -arch=sm_90a -cubin
if ! "$guard" "$nvcc" "$@" "$src/tests/cmake/wgmma_clean.cu" -o "$tmp/clean.cubin"; then
  echo "FAIL: the guard refused a kernel whose wgmma ptxas does not serialise"
  exit 1
fi
if "$guard" "$nvcc" "$@" "$src/tests/cmake/wgmma_serialized.cu" -o "$tmp/serialized.cubin" 2>"$tmp/err"; then
  echo "FAIL: the guard passed a kernel whose wgmma ptxas serialises"
  exit 1
fi
if ! grep -q "C7520" "$tmp/err"; then
  echo "FAIL: the refusal does not name ptxas's C7520:"
  cat "$tmp/err"
  exit 1
fi
echo "ok: clean kernel built, serialised kernel refused:"
cat "$tmp/err"
