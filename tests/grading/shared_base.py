#!/usr/bin/env python3
"""The one grading base the end-to-end grading tests share (ctest fixture grading_base): the
handout of the labs those tests grade (LABS: device_query and vec_add), configured, built and
listed once by grade_submission.py --prepare-base (without its own tests: each grader that loads
it runs them for its labs, in a copy). ctest runs this first and names the folder in
CUDALAB_GRADING_BASE for the tests that need it; a test run on its own (no such variable) builds a
base of its labs itself. That the handout of every other lab builds is checked without a second
build of the suite: test_handout.HandoutBuilds compiles each of its region files with the
suite's own compile commands.

Exit 77 (skipped) where no sandbox can start, as the tests that use the base do.
"""
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ARCH = os.environ.get("CUDALAB_HANDOUT_ARCH", "75-real")
JOBS = str(os.cpu_count() or 2)


def cmake_args(cpu_s, gpu_s, sanitize_s):
    """grade_submission's --cmake-args for a base of these tests: one architecture, and per-case
    limits (seconds) for CPU cases, GPU cases and sanitizer runs."""
    return (f"--cmake-args=-DCMAKE_CUDA_ARCHITECTURES={ARCH} -DCUDALAB_TIMEOUT_CPU={cpu_s} "
            f"-DCUDALAB_TIMEOUT_GPU={gpu_s} -DCUDALAB_TIMEOUT_SANITIZE={sanitize_s}")


# The shared base's limits: what a loaded machine keeps.
CMAKE_ARGS = cmake_args(5, 15, 20)
BASE = os.environ.get("CUDALAB_GRADING_BASE")
# The labs the end-to-end grading tests grade: a lab with a CPU-graded task (device_query) and one
# whose tasks are kernels (vec_add).
LABS = ["device_query", "vec_add"]


def grader_args():
    """grade_submission.py arguments for a grader in these tests: the shared base's options, and
    the base itself when ctest prepared it."""
    return [CMAKE_ARGS, "--jobs", JOBS] + (["--base", BASE] if BASE else [])


def prepare(folder, labs=None, cmake_args=CMAKE_ARGS):
    """Builds a base of `labs` (default: LABS) at `folder`; the grade_submission run."""
    shutil.rmtree(folder, ignore_errors=True)
    return subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "grade_submission.py"), "--prepare-base",
                           folder, "--no-reuse", cmake_args, "--jobs", JOBS, "--labs"] + (labs or LABS),
                          capture_output=True, text=True)


if __name__ == "__main__":
    from cudalab.labgrade.sandbox import Sandbox  # noqa: E402
    if not BASE:
        print("shared_base.py: set CUDALAB_GRADING_BASE to the folder to prepare")
        sys.exit(2)
    from cudalab.labgrade.sandbox import blocked_folder  # noqa: E402
    box, why = Sandbox.find()
    if not box:
        print(f"CUDALAB_SKIPPED: no sandbox can start here: {why}")
        sys.exit(77)
    uid = box.uid if box.drop_to_nobody else None
    box.close()
    if os.path.islink(BASE):
        os.unlink(BASE)  # the last run's link (below)
    folder = BASE
    if uid is not None and blocked_folder(os.path.dirname(os.path.abspath(BASE)), uid):
        # The build folder is out of the submissions' uid's reach (a checkout under a home of mode
        # 0700, as /root is): the base is built in the temp folder, and BASE links to it (the
        # graders that use it read it through the link and grade in their own temp folders).
        folder = os.path.join(tempfile.gettempdir(),
                              "cudalab-grading-base-" + hashlib.sha256(os.path.abspath(BASE).encode()).hexdigest()[:12])
        shutil.rmtree(BASE, ignore_errors=True)
        os.symlink(folder, BASE)
        print(f"shared_base.py: {os.path.dirname(BASE)} is out of the sandbox uid's reach; the base is built at {folder}")
    run = prepare(folder)
    print(run.stdout[-3000:], run.stderr[-3000:])
    sys.exit(run.returncode)
