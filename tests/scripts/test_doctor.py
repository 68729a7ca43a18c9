#!/usr/bin/env python3
"""scripts/doctor against stand-in nvidia-smi, nvcc, ncu and compute-sanitizer on a PATH of their
own and a stand-in build folder: all green; no GPU; a driver older than the toolkit; a build for
another GPU; MIG; a folder that is not configured or not built."""
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DOCTOR = os.path.join(ROOT, "scripts", "doctor")
with open(os.path.join(ROOT, "labs", "manifest.json"), encoding="utf-8") as f:
    LABS = [lab["name"] for lab in json.load(f)["labs"]]


class Doctor(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="doctor_")
        self.bin = os.path.join(self.tmp, "bin")
        os.makedirs(self.bin)
        self.build = os.path.join(self.tmp, "build")
        self.configure("90")
        self.standin("nvcc", "echo 'Cuda compilation tools, release 13.0, V13.0.48'")
        self.standin("ncu", "exit 0")
        self.standin("compute-sanitizer", "exit 0")
        self.gpu("NVIDIA H200, 9.0, Disabled, 140000, 143771", "13.0")
        self.params = os.path.join(self.tmp, "params")
        with open(self.params, "w") as f:
            f.write("RmProfilingAdminOnly: 0\n")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def standin(self, name, body):
        path = os.path.join(self.bin, name)
        with open(path, "w") as f:
            f.write("#!/bin/sh\n" + body + "\n")
        os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)

    def gpu(self, csv_row, driver_cuda):
        self.standin("nvidia-smi", 'case "$1" in --query-gpu*) echo "' + csv_row + '";; '
                     '*) echo "| NVIDIA-SMI 580.65   Driver Version: 580.65   CUDA Version: ' + driver_cuda + ' |";; esac')

    def configure(self, archs, built=LABS):
        shutil.rmtree(self.build, ignore_errors=True)
        os.makedirs(os.path.join(self.build, "labs"))
        with open(os.path.join(self.build, "CMakeCache.txt"), "w") as f:
            f.write(f"CMAKE_CUDA_ARCHITECTURES:STRING={archs}\n")
        for lab in built:
            open(os.path.join(self.build, "labs", lab), "w").close()

    def doctor(self):
        env = {"PATH": self.bin, "CUDALAB_NVIDIA_PARAMS": self.params, "HOME": self.tmp}
        return subprocess.run([sys.executable, DOCTOR, "--build-dir", self.build], env=env, capture_output=True,
                              text=True, timeout=60)

    def test_all_green(self):
        r = self.doctor()
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertNotIn("[FAIL]", r.stdout)
        self.assertNotIn("[warn]", r.stdout)
        self.assertIn("all is well", r.stdout)

    def test_no_gpu_is_named(self):
        os.unlink(os.path.join(self.bin, "nvidia-smi"))
        r = self.doctor()
        self.assertEqual(r.returncode, 1)
        self.assertIn("first: GPU: no usable GPU", r.stdout.strip().splitlines()[-1])

    def test_a_driver_older_than_the_toolkit(self):
        self.gpu("NVIDIA H200, 9.0, Disabled, 140000, 143771", "12.4")
        r = self.doctor()
        self.assertEqual(r.returncode, 1)
        self.assertIn("first: driver vs toolkit", r.stdout)
        self.gpu("NVIDIA H200, 9.0, Disabled, 140000, 143771", "13.0")
        self.standin("nvcc", "echo 'Cuda compilation tools, release 13.1, V13.1.0'")
        r = self.doctor()
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertIn("[warn] driver vs toolkit", r.stdout)  # minor-version compatibility

    def test_a_build_for_another_gpu(self):
        self.configure("75-real")
        r = self.doctor()
        self.assertEqual(r.returncode, 1)
        self.assertIn("first: architectures", r.stdout)
        self.assertIn("-DCMAKE_CUDA_ARCHITECTURES=90", r.stdout)
        self.configure("80")  # PTX for sm_80 runs on sm_90 after a JIT
        r = self.doctor()
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertIn("[warn] architectures", r.stdout)

    def test_mig_and_busy_memory_are_warnings(self):
        self.gpu("NVIDIA H200, 9.0, Enabled, 1000, 143771", "13.0")
        r = self.doctor()
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertIn("[warn] MIG", r.stdout)
        self.assertIn("[warn] free GPU memory", r.stdout)

    def test_build_folder_not_configured_or_not_built(self):
        self.configure("90", built=LABS[:-1])
        r = self.doctor()
        self.assertEqual(r.returncode, 1)
        self.assertIn(f"not built: {LABS[-1]}", r.stdout)
        shutil.rmtree(self.build)
        r = self.doctor()
        self.assertEqual(r.returncode, 1)
        self.assertIn("is not configured", r.stdout)


if __name__ == "__main__":
    unittest.main()
