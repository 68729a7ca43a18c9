#!/usr/bin/env python3
"""The first five minutes: notebooks/colab.ipynb is a valid notebook, generated from
labs/manifest.json (so its commands cannot drift), and every lab command in it is the one the lab's
README shows; the container recipes build with the command the README documents."""
import json
import os
import re
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
from cudalab import lab_manifest  # noqa: E402


def read(*parts):
    with open(os.path.join(ROOT, *parts), encoding="utf-8") as f:
        return f.read()


class Notebook(unittest.TestCase):
    def test_valid_notebook_format(self):
        nb = json.loads(read("notebooks", "colab.ipynb"))
        self.assertEqual(nb["nbformat"], 4)
        self.assertIn("kernelspec", nb["metadata"])
        for c in nb["cells"]:
            self.assertIn(c["cell_type"], ("markdown", "code"))
            self.assertIsInstance(c["source"], list)
            self.assertTrue(all(isinstance(line, str) for line in c["source"]))
            if c["cell_type"] == "code":
                self.assertEqual((c["outputs"], c["execution_count"]), ([], None))

    def test_generated_from_the_manifest(self):
        r = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "make_notebook.py"), "--check"],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_every_lab_has_its_readme_command_and_its_ctest(self):
        code = "\n".join("".join(c["source"]) for c in json.loads(read("notebooks", "colab.ipynb"))["cells"]
                         if c["cell_type"] == "code")
        self.assertIn("nvidia-smi --query-gpu=compute_cap", code.replace('", "', " "))
        self.assertIn("-DCMAKE_CUDA_ARCHITECTURES={CC}", code)
        for lab in lab_manifest.load():
            self.assertIn(f"!cd build && {lab['run']}\n", code)
            self.assertIn(f"ctest -L {lab['name']} ", code)
            self.assertIn(f"$ {lab['run']}\n", read("labs", lab["name"], "README.md"), lab["name"])


class Containers(unittest.TestCase):
    def test_recipes_build_with_the_readme_command(self):
        m = re.search(r"all build with:\n\n  ```sh\n  (.+)\n  ```", read("README.md"))
        self.assertTrue(m)
        command = m.group(1)
        self.assertIn("cmake --preset ci", command)
        self.assertIn("ctest --preset ci -L cpu", command)
        self.assertIn(f"RUN {command}\n", read("Dockerfile"))
        self.assertIn(f"    {command}\n", read("containers", "cuda-labs.def"))
        self.assertRegex(read("Dockerfile"), r"(?m)^FROM nvidia/cuda:13\.0\.\d+-devel-ubuntu24\.04$")
        dev = json.loads(read(".devcontainer", "devcontainer.json"))
        self.assertEqual(dev["build"]["dockerfile"], "../Dockerfile")
        self.assertIn("--gpus=all", dev["runArgs"])

    def test_the_ci_preset_exists_for_configure_build_and_test(self):
        presets = json.loads(read("CMakePresets.json"))
        for kind in ("configurePresets", "buildPresets", "testPresets"):
            self.assertIn("ci", [p["name"] for p in presets[kind]], kind)


if __name__ == "__main__":
    unittest.main()
