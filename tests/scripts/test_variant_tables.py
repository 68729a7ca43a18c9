#!/usr/bin/env python3
"""The labs' variant tables are the one source: each ladder lab's README variant table names its
variants, in ladder order, as `--list-variants --json` of the built lab does (no GPU needed);
the leaderboard's variants in labs/manifest.json are variants of their lab and its tasks are
tasks of grading/points.json.

  tests/scripts/test_variant_tables.py BUILD_DIR
"""
import json
import os
import re
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
from cudalab import lab_manifest  # noqa: E402
from cudalab import report_schema  # noqa: E402

BUILD = None
LADDERS = ("vec_add", "rgba_split", "transpose", "divergence", "reduction", "scan", "histogram", "stencil", "sort", "matmul",
           "attention")


def listed(lab):
    run = subprocess.run([os.path.join(BUILD, "labs", lab), "--list-variants", "--json"], capture_output=True, text=True,
                         timeout=60)
    if run.returncode != 0:
        raise AssertionError(f"{lab} --list-variants --json exited {run.returncode}: {run.stderr}")
    return json.loads(run.stdout)


def readme_variants(lab):
    """The names in the first column of the README's ladder tables (a header "| variant |", or
    "| rung | what the previous one ..." where a lab has two ladders, as matmul's SIMT and Tensor
    Core rungs), in order; `coarsened2/4/8` stands for coarsened2, coarsened4, coarsened8, and
    "`smem16`, `smem32`" for both. A yardstick's row (`cub::DeviceRadixSort`, `unfused (cuBLAS,
    softmax, cuBLAS)`) is the baseline, not a variant: left out."""
    with open(os.path.join(ROOT, "labs", lab, "README.md"), encoding="utf-8") as f:
        lines = f.read().splitlines()
    starts = [i for i, line in enumerate(lines)
              if line.startswith("| variant |") or line.startswith("| rung | what the previous one")]
    if not starts:
        raise AssertionError(f"labs/{lab}/README.md has no ladder table")
    if lines[starts[0]].startswith("| variant |"):
        starts = starts[:1]  # one ladder: its first table
    names = []
    for start in starts:
        for line in lines[start + 2:]:
            if not line.startswith("|"):
                break
            first = line.split("|")[1].strip()
            if "::" in first or " (" in first:  # a yardstick: `cub::...`, `unfused (cuBLAS, ...)`
                continue
            for cell in first.split(", "):
                m = re.fullmatch(r"`([a-z_0-9]+?)(\d+(?:/\d+)+)?`", cell)
                if not m:
                    raise AssertionError(f"labs/{lab}/README.md: {cell!r} is not a `variant` cell")
                if m.group(2):
                    names += [m.group(1) + k for k in m.group(2).split("/")]
                else:
                    names.append(m.group(1))
    return names


class VariantTables(unittest.TestCase):
    def test_every_ladder_readme_lists_the_variants_of_its_lab_in_order(self):
        for lab in LADDERS:
            doc = listed(lab)
            self.assertEqual(doc["lab"], lab)
            self.assertEqual(report_schema.problems(doc, prefer_package=False), [], lab)
            names = [row["variant"] for row in doc["variant_table"]]
            self.assertTrue(all(row["what"] for row in doc["variant_table"]), lab)
            self.assertEqual(readme_variants(lab), names, f"labs/{lab}/README.md against {lab} --list-variants")

    def test_the_leaderboard_names_real_variants_and_tasks(self):
        with open(os.path.join(ROOT, "grading", "points.json"), encoding="utf-8") as f:
            tasks = json.load(f)["tasks"]
        for lab, (_, by_task) in lab_manifest.leaderboard_runs().items():
            names = {row["variant"] for row in listed(lab)["variant_table"]}
            for task, variants in by_task.items():
                self.assertIn(task, tasks, f"manifest leaderboard of {lab}")
                self.assertEqual(sorted(set(variants) - names), [], f"{task}: not variants of {lab}")


if __name__ == "__main__":
    if len(sys.argv) < 2 or not os.path.isdir(sys.argv[1]):
        print("usage: test_variant_tables.py BUILD_DIR", file=sys.stderr)
        sys.exit(2)
    BUILD = sys.argv.pop(1)
    unittest.main()
