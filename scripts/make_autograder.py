#!/usr/bin/env python3
"""Write a Gradescope autograder bundle (autograder.zip) from this repository.

  scripts/make_autograder.py [--out autograder.zip] [--labs vec_add rgba_split]

The zip holds setup.sh (installs the CUDA Toolkit from NVIDIA's Ubuntu repository and the
suite's packages), run_autograder (grades /autograder/submission with
scripts/grade_submission.py into /autograder/results/results.json) and the grading tree under
source/: the suite with every student region stubbed, so the bundle holds no solution.
bubblewrap is installed by setup.sh; where Gradescope's container cannot start a sandbox,
run_autograder grades with --unsafe-no-sandbox (the container is then the only wall).

Gradescope's machines have no GPU: there the CPU tests run and every GPU test is reported as
skipped (score 0). For full grading, run the same command on a machine with a GPU (the course's
own, or a CI runner with one):
  scripts/grade_submission.py submission.zip --out results/
"""
import os
import stat
import sys
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
from cudalab import script_cli
from cudalab.labgrade import suite

SETUP = """#!/usr/bin/env bash
# Gradescope image setup: the CUDA Toolkit (no driver, no GPU) and the suite's packages.
set -euo pipefail
apt-get update -qq
apt-get install -y -qq wget ca-certificates gnupg
. /etc/os-release
repo="ubuntu${VERSION_ID//./}"
wget -q "https://developer.download.nvidia.com/compute/cuda/repos/${repo}/x86_64/cuda-keyring_1.1-1_all.deb"
dpkg -i cuda-keyring_1.1-1_all.deb
apt-get update -qq
apt-get install -y -qq cuda-toolkit-13-0
export PATH=/usr/local/cuda/bin:$PATH
/autograder/source/scripts/install-deps.sh --grading
"""

RUN = """#!/usr/bin/env bash
# Grades /autograder/submission; writes /autograder/results/results.json. AUTOGRADER_ROOT moves
# the /autograder folder (for a trial run elsewhere); arguments go to grade_submission.py.
AG="${{AUTOGRADER_ROOT:-/autograder}}"
export PATH=/usr/local/cuda/bin:$PATH
cd "$AG/source"
sandbox=""
PYTHONPATH=scripts python3 -c 'import sys; from cudalab.labgrade.sandbox import Sandbox; sys.exit(Sandbox.find()[0] is None)' \
  || sandbox="--unsafe-no-sandbox"
python3 scripts/grade_submission.py "$AG/submission" --out "$AG/results" {labs} $sandbox "$@"
"""


def main():
    ap = script_cli.Parser(prog="make_autograder", description="Write a Gradescope autograder bundle.")
    ap.add_argument("--out", default="autograder.zip")
    ap.add_argument("--labs", nargs="*", default=[])
    args = ap.parse_args()
    labs = ("--labs " + " ".join(args.labs)) if args.labs else ""
    with zipfile.ZipFile(args.out, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in (("setup.sh", SETUP), ("run_autograder", RUN.format(labs=labs))):
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFREG | 0o755) << 16
            z.writestr(info, text)
        with tempfile.TemporaryDirectory() as tree:
            suite.write_grading_tree(ROOT, tree)
            for dirpath, _, names in os.walk(tree):
                for n in sorted(names):
                    full = os.path.join(dirpath, n)
                    z.write(full, os.path.join("source", os.path.relpath(full, tree)))
    print(f"make_autograder: wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
