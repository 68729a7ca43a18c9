#!/usr/bin/env python3
"""scripts/attention_peers.py where it cannot time anything: "skipped" and exit 0 without PyTorch
and with a PyTorch that sees no CUDA device (a stand-in module), one line and exit 2 for bad
arguments, and its FLOP count the attention lab's (labs/attention/reference.hpp)."""
import importlib.util
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "attention_peers.py")
import attention_peers as peers  # scripts/ is on PYTHONPATH (tests/CMakeLists.txt)


def run(args, pythonpath):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(pythonpath + [os.path.join(ROOT, "scripts")]))
    return subprocess.run([sys.executable, SCRIPT] + args, capture_output=True, text=True, env=env, timeout=120)


class AttentionPeers(unittest.TestCase):
    def test_the_flops_are_the_labs(self):
        # the values attention_cpu_test holds attention_flops to
        self.assertEqual(peers.attention_flops(4, 1024, 1024, 128, False), 4.0 * 1024 * 1024 * 128 * 4)
        self.assertEqual(peers.attention_flops(4, 1024, 1024, 128, True), 4.0 * (1024 * 1025 / 2) * 128 * 4)
        self.assertEqual(peers.attention_flops(8, 1, 4096, 64, False), 4.0 * 4096 * 64 * 8)

    def test_a_torch_without_a_device_is_skipped(self):
        with tempfile.TemporaryDirectory() as tmp:
            os.makedirs(os.path.join(tmp, "torch"))
            with open(os.path.join(tmp, "torch", "__init__.py"), "w") as f:
                f.write("class cuda:\n    @staticmethod\n    def is_available():\n        return False\n")
            r = run([], [tmp])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.strip(), "attention_peers: skipped: no CUDA device")

    def test_no_torch_is_skipped(self):
        if importlib.util.find_spec("torch") is not None:
            self.skipTest("PyTorch is installed here")
        r = run([], [])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.strip(), "attention_peers: skipped: PyTorch is not installed")

    def test_bad_arguments_are_one_line_and_exit_2(self):
        for args in (["--heads", "0"], ["--seq", "-3"], ["--dim", "abc"], ["--nope"]):
            r = run(args, [])
            self.assertEqual(r.returncode, 2, args)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, (args, r.stderr))
            self.assertIn("attention_peers: error:", r.stderr)


if __name__ == "__main__":
    unittest.main()
