#!/usr/bin/env python3
"""scripts/profile.py without a GPU: kernel names as ncu prints them, the per-kernel table
(launch-time weighting, sectors per request, bank-conflict share), and the whole command with a
stand-in lab and a stand-in ncu on PATH; plus its bad-input and no-GPU exits."""
import importlib.util
import json
import os
import stat
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "profile.py")
spec = importlib.util.spec_from_file_location("profile_script", SCRIPT)
profile = importlib.util.module_from_spec(spec)
spec.loader.exec_module(profile)


def ncu_csv(metrics, rows):
    """ncu --csv --page raw: a header row, a units row, then one row per launch."""
    def line(cells):
        return ",".join(f'"{c}"' for c in cells)
    out = ["==PROF== Connected to process 1", line(["ID", "Kernel Name"] + metrics), line(["", ""] + ["" for _ in metrics])]
    for i, (name, values) in enumerate(rows):
        out.append(line([str(i), name] + [str(values[m]) for m in metrics]))
    return "\n".join(out) + "\n"


def table_rows(table):
    """{kernel: [values...]} from summarize()'s text (kernel names have no spaces here)."""
    lines = table.splitlines()
    return {l.split()[0]: [float(v) for v in l.split()[1:]] for l in lines[1:]}


class KernelName(unittest.TestCase):
    def test_names_are_ncus_own_with_the_variant_of_the_nvtx_range(self):
        # ncu --print-kernel-base function --print-nvtx-rename kernel: the driver's range of a
        # variant, then the kernel's base name; no demangling of our own
        self.assertEqual(profile.kernel_name(" padded_coarse/transpose_tile "), "padded_coarse/transpose_tile")
        self.assertEqual(profile.kernel_name("read_everything"), "read_everything")
        self.assertEqual(profile.kernel_name("x" * 50), "x" * 37 + "...")


class Summarize(unittest.TestCase):
    def test_reduction_columns_weighting_and_conflict_share(self):
        m = profile
        metrics = [m.TIME] + m.METRICS["reduction"]
        def launch(t_ns, dram, ld_conf, st_conf, ld_wf, st_wf):
            return {m.TIME: t_ns, m.DRAM: dram, m.SMEM_LD_CONFLICTS: ld_conf, m.SMEM_ST_CONFLICTS: st_conf,
                    m.SMEM_LD_WAVEFRONTS: ld_wf, m.SMEM_ST_WAVEFRONTS: st_wf}
        csv_text = ncu_csv(metrics, [
            # a long first pass at 90% DRAM and a short second pass at 10%: weighted 82%
            ("interleaved_strided/interleaved_strided", launch(9000, 90, 600, 300, 800, 400)),
            ("interleaved_strided/interleaved_strided", launch(1000, 10, 150, 0, 200, 100)),
            ("sequential/sequential", launch(5000, 50, 0, 0, 1000, 500)),
        ])
        table = m.summarize(csv_text, metrics)
        header = table.splitlines()[0].split()
        self.assertIn("conflict", " ".join(header))
        self.assertNotIn("wavefronts", " ".join(header))  # raw wavefront counters are folded into the share
        rows = table_rows(table)
        # launches, time us, DRAM %, ld conflicts, st conflicts, ld conflict %, st conflict %
        self.assertEqual(rows["interleaved_strided/interleaved_strided"], [2, 5.0, 82.0, 375.0, 150.0, 75.0, 60.0])
        self.assertEqual(rows["sequential/sequential"], [1, 5.0, 50.0, 0.0, 0.0, 0.0, 0.0])

    def test_sectors_per_request(self):
        m = profile
        metrics = [m.TIME] + m.METRICS["rgba_split"]
        csv_text = ncu_csv(metrics, [("naive/split_naive", {
            m.TIME: 2000, m.DRAM: 33, m.LD_SECTORS: 400, m.LD_REQUESTS: 100, m.ST_SECTORS: 200, m.ST_REQUESTS: 100})])
        self.assertEqual(table_rows(m.summarize(csv_text, metrics))["naive/split_naive"], [1, 2.0, 33.0, 4.0, 2.0])

    def test_per_launch_rows_keep_each_launch_configuration(self):
        m = profile
        metrics = [m.TIME] + m.LAUNCH + m.METRICS["occupancy"]
        achieved, theoretical = m.METRICS["occupancy"][:2]
        def launch(t_ns, grid, smem, occ, theo, dram):
            return {m.TIME: t_ns, "launch__grid_size": grid, "launch__block_size": 256,
                    "launch__shared_mem_per_block_dynamic": smem, achieved: occ, theoretical: theo, m.DRAM: dram}
        rows_in = [("stream_scale", launch(150000, 132, 232448, 12.1, 12.5, 14)),
                   ("stream_scale", launch(30000, 1056, 27648, 97.0, 100.0, 72)),
                   ("spin", launch(50000, 1056, 0, 99.0, 100.0, 0))]
        per_launch = table_rows(m.summarize(ncu_csv(metrics, rows_in), metrics, per_launch=True))
        # launches, time us, grid, block, dyn smem B, achieved %, theoretical %, DRAM %
        self.assertEqual(per_launch["stream_scale#1"], [1, 150.0, 132, 256, 232448, 12.1, 12.5, 14.0])
        self.assertEqual(per_launch["stream_scale#2"], [1, 30.0, 1056, 256, 27648, 97.0, 100.0, 72.0])
        self.assertEqual(per_launch["spin#1"][:3], [1, 50.0, 1056])
        folded = table_rows(m.summarize(ncu_csv(metrics, rows_in), metrics))
        self.assertEqual(sorted(folded), ["spin", "stream_scale"])
        self.assertEqual(folded["stream_scale"][0], 2)

    def test_no_kernels(self):
        self.assertIsNone(profile.summarize("==PROF== no kernels were profiled\n", [profile.TIME]))


class ReadBack(unittest.TestCase):
    def test_dram_bytes_by_variant_sums_each_variants_kernels_of_the_right_run(self):
        from cudalab import nsight
        def k(name, read, write):
            return {"kernel": name, "launches": 2, "metrics": {"dram__bytes_read.sum": read, "dram__bytes_write.sum": write}}
        doc = {"lab": "matmul", "args": ["4096"], "per_launch": False,
               "kernels": [k("naive/matmul_naive", 3e10, 6e7), k("async_pipeline/matmul_async", 2e8, 6e7),
                           k("async_pipeline/reduce_splits", 1e7, 1e7), k("read_everything", 5e8, 0),
                           k("cublas/sm90_xmma_gemm", 2e8, 6e7), k("smem32/matmul_smem", 0, 0)]}
        got = nsight.dram_bytes_by_variant(doc, "matmul", ["4096"])
        self.assertEqual(got, {"naive": 3e10 + 6e7, "async_pipeline": 2e8 + 6e7 + 2e7, "cublas": 2e8 + 6e7})
        self.assertEqual(nsight.dram_bytes_by_variant(doc, "matmul", ["1025"]), {})  # another size
        self.assertEqual(nsight.dram_bytes_by_variant(doc, "vec_add", ["4096"]), {})
        self.assertEqual(nsight.dram_bytes_by_variant(dict(doc, per_launch=True), "matmul", ["4096"]), {})
        self.assertEqual(nsight.dram_bytes_by_variant(None, "matmul", ["4096"]), {})


class Command(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.build = os.path.join(self.tmp.name, "build")
        os.makedirs(os.path.join(self.build, "labs"))
        self.bin = os.path.join(self.tmp.name, "bin")
        os.makedirs(self.bin)

    def tearDown(self):
        self.tmp.cleanup()

    def script(self, path, text):
        with open(path, "w") as f:
            f.write("#!/bin/sh\n" + text)
        os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)

    def run_profile(self, *args):
        env = dict(os.environ, CUDALAB_BUILD_DIR=self.build, PATH=self.bin + os.pathsep + os.environ["PATH"])
        return subprocess.run([sys.executable, SCRIPT] + list(args), capture_output=True, text=True, env=env)

    def test_bad_input(self):
        for args, message in (([], "required: lab"), (["fastest_lab"], "unknown lab"), (["vec_add"], "not found"),
                              (["--per-launch"], "required: lab"), (["--per-lunch", "vec_add"], "unrecognized")):
            r = self.run_profile(*args)
            self.assertEqual(r.returncode, 2, args)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
            self.assertIn(message, r.stderr)

    def test_no_gpu_is_skipped(self):
        self.script(os.path.join(self.build, "labs", "vec_add"), "echo 'no usable CUDA device' >&2; exit 77\n")
        r = self.run_profile("vec_add")
        self.assertEqual(r.returncode, 0)
        self.assertIn("skipped: no GPU", r.stdout)

    def test_lab_output_then_the_ncu_table(self):
        m = profile
        metrics = [m.TIME] + m.METRICS["vec_add"]
        csv_path = os.path.join(self.tmp.name, "ncu.csv")
        with open(csv_path, "w") as f:
            f.write(ncu_csv(metrics, [("naive/vec_add_naive", {
                m.TIME: 59000, m.DRAM: 66.5, m.LD_SECTORS: 800, m.LD_REQUESTS: 200, m.ST_SECTORS: 400, m.ST_REQUESTS: 100})]))
        self.script(os.path.join(self.build, "labs", "vec_add"), "echo 'best / copy ceiling  1.02'\n")
        args_log = os.path.join(self.tmp.name, "ncu.args")
        self.script(os.path.join(self.bin, "ncu"), f'echo "$@" > {args_log}; cat {csv_path}\n')
        r = self.run_profile("vec_add", "2^20")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("best / copy ceiling", r.stdout)
        self.assertEqual(table_rows(r.stdout.split("mean per launch")[1].split("\n", 1)[1])["naive/vec_add_naive"],
                         [1, 59.0, 66.5, 4.0, 4.0])
        with open(args_log) as f:
            ncu_args = f.read()
        self.assertIn("--clock-control none", ncu_args)
        self.assertIn("--nvtx --print-nvtx-rename kernel --print-kernel-base function", ncu_args)
        self.assertIn("2^20 --warmup 0 --repeat 1 --no-l2-flush", ncu_args)

        # --json writes each kernel's means per launch, in the metrics' own units
        out = os.path.join(self.tmp.name, "profile.json")
        r = self.run_profile("--json", out, "vec_add", "2^20")
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out) as f:
            doc = json.load(f)
        self.assertEqual((doc["lab"], doc["args"], doc["per_launch"]), ("vec_add", ["2^20"], False))
        self.assertEqual([k["kernel"] for k in doc["kernels"]], ["naive/vec_add_naive"])
        self.assertEqual(doc["kernels"][0]["launches"], 1)
        self.assertEqual(doc["kernels"][0]["metrics"][m.TIME], 59000)
        self.assertEqual(doc["kernels"][0]["metrics"][m.LD_SECTORS], 800)

        # --per-launch asks ncu for the launch configuration and prints one row per launch
        r = self.run_profile("--per-launch", "vec_add", "2^20")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("one row per launch", r.stdout)
        with open(args_log) as f:
            self.assertIn("launch__grid_size", f.read())

    def test_counter_permission_points_to_doctor(self):
        self.script(os.path.join(self.build, "labs", "vec_add"), "echo 'best / copy ceiling  1.02'\n")
        self.script(os.path.join(self.bin, "ncu"),
                    "echo '==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU "
                    "Performance Counters on the target device 0.'\nexit 1\n")
        r = self.run_profile("vec_add", "2^20")
        self.assertEqual(r.returncode, 3)
        self.assertIn("scripts/doctor", r.stderr)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)


if __name__ == "__main__":
    unittest.main()
