#!/bin/sh
# Compiler launcher of the sm_90a kernel objects (cudalab_sm90a_kernels): runs the nvcc command it
# is given with ptxas's report (-Xptxas=-v) and fails the compile when ptxas says it serialised
# wgmma ("Potential Performance Loss: wgmma.mma_async instructions are serialized ...", C7520) or
# had to insert a fence the code lacked (C7519).
# ptxas still produces correct code then, but every wgmma of the kernel waits for the one before
# (a 0.69 x slowdown once, found only on the GPU): the build is the earliest place to see it.
# The rest of ptxas's report (registers, stack) is left out; anything else it or nvcc prints
# passes through.
log=$(mktemp "${TMPDIR:-/tmp}/wgmma_guard.XXXXXX") || exit 1
"$@" -Xptxas=-v 2>"$log"
rc=$?
# ptxas's notes on wgmma code it had to change: C7520 (serialised), C7519 (a warpgroup.arrive it
# injected because registers a wgmma uses were written with no fence before it), and their kin.
notes='^ptxas info +: \(C75[0-9][0-9]\).*(wgmma|GMMA|warpgroup)'
grep -v -E '^ptxas info +: (Compiling entry function|Function properties for|Used [0-9]+ registers|Compile time|[0-9]+ bytes gmem)|^ +[0-9]+ bytes stack frame' "$log" | grep -v -E "$notes" >&2
if grep -q -E "$notes" "$log"; then
  grep -E "$notes" "$log" | sed 's/^ptxas info *: */error: ptxas: /' >&2
  echo "error: ptxas changed the wgmma code of an sm_90a kernel: keep every wgmma, its fence, commit and wait out of branches that ptxas cannot prove uniform (peel a loop's first and last steps), and fence (wgmma_fence) registers written before a wgmma reads them" >&2
  rc=1
fi
rm -f "$log"
exit $rc
