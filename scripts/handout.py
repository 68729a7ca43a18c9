#!/usr/bin/env python3
"""Write the student handout: the repository with every chosen student region replaced by its
stub, and the solutions removed from everything shipped.

  scripts/handout.py --out ../handout                       # every region of every lab
  scripts/handout.py --out ../handout --labs vec_add reduction
  scripts/handout.py --out ../handout --regions vec_add.naive vec_add.vectorized
  scripts/handout.py --list                                 # the regions, by lab

What changes in the handout:
  - each chosen region keeps its BEGIN/END markers, TASK and HINT; its solution becomes the
    STUB code and "// TODO: your code here" (the stubs compile and leave outputs untouched,
    so the region's tests fail until it is written);
  - lab READMEs lose their <details> answer blocks;
  - instructor-only material is left out: docs/student-regions.md (it quotes a solution),
    labs/*/evidence/ (compiler and profiler output of the solutions), docs/reports/ and the
    handout's own instructor test.
Exit codes: 0 written, 2 usage error (unknown lab or region, output folder not empty).
"""
import argparse
import os
import sys

from cudalab import script_cli
from cudalab.labgrade import suite


def fail(message):
    script_cli.fail("handout", 2, message)


def choose(regions, labs, ids):
    all_ids = {r.id for rs in regions.values() for r in rs}
    all_labs = {r.lab for rs in regions.values() for r in rs}
    for lab in labs:
        if lab not in all_labs:
            fail(f"no student regions in lab '{lab}' (labs with regions: {', '.join(sorted(all_labs))})")
    for rid in ids:
        if rid not in all_ids:
            fail(f"unknown region '{rid}' (see --list)")
    if ids:
        return set(ids)
    if labs:
        return {r.id for rs in regions.values() for r in rs if r.lab in labs}
    return all_ids


def main():
    ap = script_cli.Parser(prog="handout", description="Generate the student handout from the solution repository.")
    ap.add_argument("--out", help="folder to write (must not exist or be empty)")
    ap.add_argument("--labs", nargs="*", default=[], help="only the regions of these labs")
    ap.add_argument("--regions", nargs="*", default=[], help="only these regions (ids like vec_add.naive)")
    ap.add_argument("--list", action="store_true", help="list the regions and exit")
    ap.add_argument("--root", default=suite.ROOT, help=argparse.SUPPRESS)
    args = ap.parse_args()
    try:
        regions = suite.find_regions(args.root)
    except (ValueError, RuntimeError) as e:
        fail(str(e))
    if args.list:
        for rel, rs in sorted(regions.items()):
            for r in rs:
                print(f"{r.id:<28} {rel}:{r.begin}  {r.title}")
        return 0
    if not args.out:
        fail("--out is required")
    if os.path.exists(args.out) and os.listdir(args.out):
        fail(f"{args.out} exists and is not empty")
    chosen = choose(regions, args.labs, args.regions)
    n = suite.write_handout(args.root, args.out, chosen, regions)
    print(f"handout: {n} files written to {args.out}; {len(chosen)} regions turned into tasks: "
          f"{', '.join(sorted(chosen))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
