#!/usr/bin/env python3
"""The student regions of the suite, from the one parser of the format (scripts/cudalab/labgrade/regions.py).

  scripts/student_regions.py            one line per region
  scripts/student_regions.py --json     a JSON list (the C++ test StudentRegions.* reads it)
  scripts/student_regions.py --root DIR another tree (a handout)
  scripts/student_regions.py --task-sections BUILD [--check]
                                        writes each lab README's "Your task" section (points from
                                        BUILD's tests); --check: exit 1 when one differs

Exit codes: 0 listed, 2 usage error, 3 a file's region markers are malformed (the message says where).
"""
import json
import os
import sys

from cudalab import script_cli
from cudalab.labgrade import suite


def main():
    ap = script_cli.Parser(prog="student_regions", description="List the student regions.")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--root", default=suite.ROOT)
    ap.add_argument("--task-sections", metavar="BUILD", help="write each lab README's task section")
    ap.add_argument("--check", action="store_true", help="with --task-sections: only say which READMEs differ")
    args = ap.parse_args()
    if args.task_sections:
        from cudalab import task_sections
        try:
            differ = task_sections.update(args.task_sections, write=not args.check)
        except (RuntimeError, ValueError) as e:
            script_cli.fail("student_regions", 3, str(e))
        for path in differ:
            print(f"{'differs' if args.check else 'written'}: {os.path.relpath(path, suite.ROOT)}")
        return 1 if differ and args.check else 0
    if not os.path.isdir(args.root):
        script_cli.fail("student_regions", 2, f"{args.root} is not a folder")
    try:
        regions = suite.find_regions(args.root)
    except ValueError as e:
        script_cli.fail("student_regions", 3, str(e))
    flat = [r for rel in sorted(regions) for r in regions[rel]]
    if args.json:
        print(json.dumps([r.as_dict() for r in flat], indent=1))
    else:
        for r in flat:
            print(f"{r.id:<28} {r.path}:{r.begin}  {r.title}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
