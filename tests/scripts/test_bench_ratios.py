#!/usr/bin/env python3
"""scripts/bench.py --ratios without a GPU: the ratios of a result to the ceilings of its own run,
beside an earlier result's, on results made here and on the recorded H200 result. And a bench
stopped part way (killed, as a time limit kills it) keeps the runs it finished, on stand-in labs."""
import copy
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "bench.py")
RECORDED = os.path.join(ROOT, "docs", "bench", "nvidia-h200-2026-12-01.json")
spec = importlib.util.spec_from_file_location("bench", SCRIPT)
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)


def row(variant, n, over, correct=True, baseline=False):
    return {"variant": variant, "n": n, "over_baseline": over, "correct": correct, "baseline": baseline,
            "suspect": False}


RESULT = {"date": "d", "gpu": "g", "runs": {
    "vec_add_2p28": {"best_variant": "coarsened4", "best_over_copy": 1.02, "best_gbps": 4300.0},
    "divergence": {"ratio": 1.99, "model_ratio": 2.0},
    "reduction_sweep": {"sweep": [row("a", 1 << 20, 1.37), row("b", 1 << 20, 1.2), row("wrong", 1 << 20, 9.0, False),
                                  row("cub", 1 << 20, 1.0, baseline=True), row("a", 1000, 0.5)]},
}}


class Ratios(unittest.TestCase):
    def test_the_ratios_of_a_result(self):
        r = bench.ratios(RESULT)
        self.assertEqual(r[("vec_add_2p28", "best_over_copy")], 1.02)
        self.assertEqual(r[("divergence", "ratio")], 1.99)
        self.assertNotIn(("divergence", "model_ratio"), r)  # a model, not a measurement of the run
        self.assertNotIn(("vec_add_2p28", "best_gbps"), r)
        # per size the best correct kernel that is not the library: a wrong row never counts
        self.assertEqual(r[("reduction_sweep", "best_over_baseline n=2^20")], 1.37)
        self.assertEqual(r[("reduction_sweep", "best_over_baseline n=1000")], 0.5)

    def test_a_better_higher_ratio_that_fell_is_marked(self):
        old = copy.deepcopy(RESULT)
        new = copy.deepcopy(RESULT)
        new["runs"]["vec_add_2p28"]["best_over_copy"] = 0.95          # fell by 7 %: marked
        new["runs"]["divergence"]["ratio"] = 1.5                       # a fact of the GPU: listed only
        new["runs"]["reduction_sweep"]["sweep"][0]["over_baseline"] = 1.0  # 1.37 -> 1.2 (row b): marked
        lines, dropped = bench.ratio_table(new, old)
        self.assertEqual(dropped, 2)
        marked = [line for line in lines if line.endswith("LOWER")]
        self.assertEqual(len(marked), 2, lines)
        self.assertTrue(any("vec_add_2p28" in line and "(coarsened4)" in line for line in marked))
        self.assertTrue(any("n=2^20" in line for line in marked))
        self.assertEqual(bench.ratio_table(RESULT, RESULT)[1], 0)
        self.assertEqual(bench.ratio_table(RESULT)[1], 0)  # nothing to set beside it

    def test_the_command_on_the_recorded_result(self):
        with tempfile.TemporaryDirectory() as tmp:
            worse = json.load(open(RECORDED))
            worse["runs"]["matmul_4096"]["best_over_baseline"] *= 0.5
            path = os.path.join(tmp, "worse.json")
            with open(path, "w") as f:
                json.dump(worse, f)
            run = subprocess.run([sys.executable, SCRIPT, "--ratios", path, "--against", RECORDED],
                                 capture_output=True, text=True)
            self.assertEqual(run.returncode, 0, run.stderr)
            self.assertIn("1 ratio(s) fell", run.stdout)
            self.assertRegex(run.stdout, r"matmul_4096 +best_over_baseline \(async_pipeline\) +0\.456 +0\.913 +-50\.0%  LOWER")
            bad = subprocess.run([sys.executable, SCRIPT, "--ratios", os.path.join(tmp, "none.json")],
                                 capture_output=True, text=True)
            self.assertEqual(bad.returncode, 2)
            self.assertEqual(len(bad.stderr.strip().splitlines()), 1)
            usage = subprocess.run([sys.executable, SCRIPT, "--against", RECORDED], capture_output=True, text=True)
            self.assertEqual(usage.returncode, 2)


class Incremental(unittest.TestCase):
    def test_a_bench_killed_part_way_keeps_the_runs_it_finished(self):
        with open(os.path.join(ROOT, "tests", "data", "reports", "device_query.json")) as f:
            device_query = f.read()
        with tempfile.TemporaryDirectory() as tmp:
            labs = os.path.join(tmp, "labs")
            os.makedirs(labs)
            scripts = {"device_query": f"cat <<'JSON'\n{device_query}\nJSON\n",
                       "hello": "echo '{\"lab\": \"hello\"}'\n",
                       "vec_add": "kill -9 $PPID\n"}  # the bench itself dies on its third run
            for name, body in scripts.items():
                path = os.path.join(labs, name)
                with open(path, "w") as f:
                    f.write("#!/bin/sh\n" + body)
                os.chmod(path, 0o755)
            out = os.path.join(tmp, "out")
            env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "scripts"))
            r = subprocess.run([sys.executable, SCRIPT, "--build-dir", tmp, "--out", out, "--only",
                                "hello,device_query,vec_add"], capture_output=True, text=True, env=env, timeout=120)
            self.assertLess(r.returncode, 0, r.stdout + r.stderr)  # killed by its signal
            files = os.listdir(out)
            self.assertEqual(len(files), 1, files)
            self.assertTrue(files[0].startswith("nvidia-h200-"), files)  # named from device_query's GPU
            with open(os.path.join(out, files[0])) as f:
                kept = json.load(f)
            self.assertEqual(sorted(kept["runs"]), ["device_query", "hello"])
            self.assertEqual(kept["gpu"], "NVIDIA H200")


if __name__ == "__main__":
    unittest.main()
