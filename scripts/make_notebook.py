#!/usr/bin/env python3
"""Writes notebooks/colab.ipynb from labs/manifest.json: a setup cell (dependencies, a build for
the GPU Colab assigns, device_query), then one cell per lab with the student's command (the
manifest's run, which the lab's README shows) and its ctest command.

  scripts/make_notebook.py [--out notebooks/colab.ipynb] [--check]

--check: exit 1 if the notebook on disk differs from what would be written (a CPU test runs it).
"""
import json
import os
import sys

from cudalab import lab_manifest
from cudalab import script_cli

OUT = os.path.join(lab_manifest.ROOT, "notebooks", "colab.ipynb")

SETUP = """# Set REPO to where your course publishes this suite, then run this cell once (about 5 minutes).
REPO = "https://github.com/OWNER/cuda-labs"  # your course's copy of the repository
import subprocess
if subprocess.run(["test", "-d", "cuda-labs"]).returncode != 0:
    subprocess.run(["git", "clone", "--depth", "1", REPO, "cuda-labs"], check=True)
%cd cuda-labs
!./scripts/install-deps.sh
# Machine code for the GPU Colab gave this session: a driver older than the toolkit cannot JIT
# newer PTX, but runs machine code built for its GPU.
CC = subprocess.run(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"],
                    capture_output=True, text=True, check=True).stdout.split()[0].replace(".", "")
!cmake --preset release -DCMAKE_CUDA_ARCHITECTURES={CC} && cmake --build --preset release
!scripts/doctor
!cd build && ./labs/device_query"""


def cell(kind, text):
    c = {"cell_type": kind, "metadata": {}, "source": text.splitlines(keepends=True)}
    if kind == "code":
        c.update({"execution_count": None, "outputs": []})
    return c


def notebook():
    cells = [cell("markdown", "# CUDA labs on Colab\n\nRuntime → Change runtime type → a GPU (T4 is enough). "
                              "Then run the setup cell and any lab below. Each lab's README explains what it "
                              "measures and why.\n\n对应讲义 and the key points of each lab are at the top of its README."),
             cell("code", SETUP)]
    for lab in lab_manifest.load():
        name = lab["name"]
        cells.append(cell("markdown", f"## {name}\n\n{lab['idea']}.\n\nREADME: `labs/{name}/README.md`"))
        cells.append(cell("code", f"!cd build && {lab['run']}\n!cd build && ctest -L {name} --output-on-failure"))
    return {"cells": cells, "metadata": {"accelerator": "GPU", "colab": {"provenance": []},
                                         "kernelspec": {"display_name": "Python 3", "name": "python3"},
                                         "language_info": {"name": "python"}},
            "nbformat": 4, "nbformat_minor": 5}


def main():
    ap = script_cli.Parser(prog="make_notebook", description="Write notebooks/colab.ipynb from labs/manifest.json.")
    ap.add_argument("--out", default=OUT)
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    text = json.dumps(notebook(), indent=1, ensure_ascii=False) + "\n"
    if args.check:
        try:
            with open(args.out, encoding="utf-8") as f:
                same = f.read() == text
        except OSError:
            same = False
        if not same:
            print(f"make_notebook: {args.out} is out of date: run scripts/make_notebook.py", file=sys.stderr)
            return 1
        return 0
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"make_notebook: wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
