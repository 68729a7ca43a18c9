#!/usr/bin/env python3
"""labs/manifest.json is the one list of the labs: every lab folder has an entry and every entry a
folder, the README's labs table repeats it row for row, bench.py and profile.py take their runs
and metrics from it, plot.py reads only runs it defines, and grading/points.json knows every lab
that has student regions."""
import json
import os
import re
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
import bench  # noqa: E402
from cudalab import lab_manifest  # noqa: E402
import profile as lab_profile  # noqa: E402
from cudalab.labgrade import suite  # noqa: E402

LABS = lab_manifest.load()
NAMES = [lab["name"] for lab in LABS]


class Manifest(unittest.TestCase):
    def test_every_lab_folder_has_an_entry_and_every_entry_a_folder(self):
        folders = sorted(d for d in os.listdir(os.path.join(ROOT, "labs"))
                         if os.path.isfile(os.path.join(ROOT, "labs", d, "CMakeLists.txt")))
        self.assertEqual(sorted(NAMES), folders)
        for name in NAMES:
            for f in ("README.md", "main.cu"):
                self.assertTrue(os.path.isfile(os.path.join(ROOT, "labs", name, f)), f"labs/{name}/{f}")

    def test_every_main_is_thin(self):
        # a lab's run (start-up, --variant, the rungs, the report, the exit code) is common/driver's;
        # its main.cu keeps its own options and the sections that are not a ladder
        lines = {}
        for name in NAMES:
            with open(os.path.join(ROOT, "labs", name, "main.cu"), encoding="utf-8") as f:
                lines[name] = len(f.read().splitlines())
        self.assertEqual({name: n for name, n in lines.items() if n > 120}, {}, "main.cu files over 120 lines")

    def test_the_readme_table_repeats_the_manifest(self):
        with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
            rows = re.findall(r"^\| `(\w+)` \| (.+?) \| \[labs/(\w+)\]\(labs/(\w+)/README\.md\) \|$", f.read(), re.M)
        self.assertEqual([(r[0], r[1]) for r in rows], [(lab["name"], lab["idea"]) for lab in LABS])
        self.assertTrue(all(r[0] == r[2] == r[3] for r in rows), rows)

    def test_every_lab_readme_names_its_notes_in_chinese_and_the_chinese_front_door_lists_it(self):
        with open(os.path.join(ROOT, "README.zh-CN.md"), encoding="utf-8") as f:
            zh = f.read()
        for name in NAMES:
            with open(os.path.join(ROOT, "labs", name, "README.md"), encoding="utf-8") as f:
                text = f.read()
            self.assertRegex(text, r"\n对应讲义: \S", name)
            points = re.search(r"本实验要点:\n\n((?:- .+\n)+)", text)
            self.assertTrue(points, name)
            self.assertGreaterEqual(len(points.group(1).splitlines()), 5, name)
            self.assertIn(f"[{name}](labs/{name}/README.md)", zh, name)

    def test_bench_and_profile_take_it_from_the_manifest(self):
        self.assertEqual(bench.RUNS, lab_manifest.bench_runs())
        self.assertEqual([cmd[0] for _, cmd in bench.RUNS if cmd[0] not in NAMES], [])
        self.assertIn("device_query", [name for name, _ in bench.RUNS])  # bench.py names the GPU from it
        self.assertEqual(sorted(lab_profile.METRICS), sorted(lab["name"] for lab in LABS if lab.get("profile")))
        for lab, metrics in lab_profile.METRICS.items():
            self.assertEqual(len(metrics), len(set(metrics)), lab)
            for m in metrics:
                self.assertRegex(m, r"^[a-z0-9_]+__[a-z0-9_.]+$", lab)

    def test_timed_says_which_labs_take_the_timing_options(self):
        # a lab takes --repeat unless its main registers only --device and --json
        for lab in LABS:
            with open(os.path.join(ROOT, "labs", lab["name"], "main.cu"), encoding="utf-8") as f:
                takes_repeat = "CommonSet::kDeviceAndJson" not in f.read()
            self.assertEqual(lab_manifest.timed(lab), takes_repeat, lab["name"])
            self.assertEqual(bench.TIMED[lab["name"]], takes_repeat, lab["name"])

    def test_plot_reads_only_runs_that_bench_makes(self):
        with open(os.path.join(ROOT, "scripts", "plot.py"), encoding="utf-8") as f:
            text = f.read()
        used = set(re.findall(r'runs"?\]?\["(\w+)"\]', text))
        self.assertTrue(used)
        self.assertEqual(sorted(used - {name for name, _ in bench.RUNS}), [])

    def test_points_know_every_lab_with_student_regions(self):
        with open(os.path.join(ROOT, "grading", "points.json"), encoding="utf-8") as f:
            points = json.load(f)
        # its other entries are the test groups of the suite itself (tests/common, tests/grading, ...)
        others = [g for g in points["labs"] if g not in NAMES]
        self.assertEqual([g for g in others if not os.path.isdir(os.path.join(ROOT, "tests", g))], [])
        with_regions = {rel.split("/")[1] for rel in suite.find_regions(ROOT) if rel.startswith("labs/")}
        self.assertEqual(sorted(with_regions - set(points["labs"])), [])

    def test_a_lab_not_yet_recorded_grades_nothing(self):
        # its kernels have not run on the reference GPU: no task's points and no leaderboard
        # may depend on them (lab_manifest refuses the leaderboard; here the points)
        with open(os.path.join(ROOT, "grading", "points.json"), encoding="utf-8") as f:
            points = json.load(f)
        for lab in LABS:
            if lab_manifest.recorded(lab):
                continue
            self.assertNotIn("leaderboard", lab, lab["name"])
            self.assertEqual([t for t in points["tasks"] if t.split(".")[0] == lab["name"]], [], lab["name"])
            self.assertNotIn(lab["name"], points.get("labs", {}), lab["name"])

    def test_marking_a_lab_recorded_removes_only_its_mark_and_keeps_the_layout(self):
        with open(lab_manifest.PATH, encoding="utf-8") as f:
            original = f.read()
        unrecorded = [lab["name"] for lab in LABS if not lab_manifest.recorded(lab)]
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "manifest.json")
            with open(path, "w", encoding="utf-8") as f:
                f.write(original)
            self.assertEqual(lab_manifest.mark_recorded(["hello"], path), [])  # recorded already
            with open(path, encoding="utf-8") as f:
                self.assertEqual(f.read(), original)  # json.dump's layout: the file as it was
            if unrecorded:
                self.assertEqual(lab_manifest.mark_recorded(unrecorded[:1], path), unrecorded[:1])
                after = lab_manifest.load(path)
                self.assertEqual([lab["name"] for lab in after if not lab_manifest.recorded(lab)], unrecorded[1:])
                self.assertEqual([lab["name"] for lab in after], NAMES)

    def test_a_malformed_manifest_is_refused(self):
        good = {"name": "x", "idea": "an idea", "bench": {"x": []}}
        for bad in ([good, good], [dict(good, name="not a name")], [dict(good, idea="")],
                    [dict(good, bench={"r": [1]})], [dict(good, profile={"args": []})],
                    [dict(good, recorded="no")],
                    [dict(good, recorded=False, leaderboard={"args": [], "tasks": {"x.t": ["v"]}})]):
            with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
                json.dump({"labs": bad}, f)
            try:
                with self.assertRaises(ValueError):
                    lab_manifest.load(f.name)
            finally:
                os.unlink(f.name)
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump({"labs": [good]}, f)
        try:
            self.assertEqual(lab_manifest.load(f.name), [good])
        finally:
            os.unlink(f.name)


if __name__ == "__main__":
    unittest.main()
