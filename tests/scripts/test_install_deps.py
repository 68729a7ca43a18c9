#!/usr/bin/env python3
"""scripts/install-deps.sh decides by what the build needs, not by package names. Run against
stand-in commands on a PATH of their own: everything present; cmake from pip only (its package
not installed); cmake too old; a library missing; apt unreachable; no apt at all."""
import os
import shutil
import stat
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join(ROOT, "scripts", "install-deps.sh")
SYSTEM_TOOLS = ["bash", "sort", "grep", "awk", "sed", "mktemp", "head", "tr", "id", "rm", "cat", "dirname"]

STANDINS = {
    "cmake": """#!/bin/bash
if [[ "$1" == --version ]]; then echo "cmake version $FAKE_CMAKE_VERSION"; exit 0; fi
for lib in GTest CLI11 fmt nlohmann_json PNG JPEG; do
  if [[ " $FAKE_MISSING_LIBS " == *" $lib "* ]]; then echo "-- CUDALAB_PROBE $lib MISSING"; else echo "-- CUDALAB_PROBE $lib FOUND"; fi
done
""",
    "ninja": "#!/bin/bash\nexit 0\n",
    "c++": "#!/bin/bash\ncat >/dev/null\nexit 0\n",
    "python3": "#!/bin/bash\nexit 0\n",
    "nvcc": "#!/bin/bash\necho 'Cuda compilation tools, release 13.0, V13.0.48'\n",
    "dpkg-query": "#!/bin/bash\nexit 1\n",  # no package is installed: only what the tools can do counts
    "apt-get": "#!/bin/bash\necho \"apt-get $*\" >>\"$FAKE_LOG\"\n[[ -z \"$FAKE_APT_FAIL\" ]] || exit 100\n",
    "sudo": "#!/bin/bash\nexec \"$@\"\n",
}


class InstallDeps(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="install_deps_")
        self.bin = os.path.join(self.tmp, "bin")
        os.makedirs(self.bin)
        for tool in SYSTEM_TOOLS:
            os.symlink(shutil.which(tool), os.path.join(self.bin, tool))
        for name, text in STANDINS.items():
            self.standin(name, text)
        self.log = os.path.join(self.tmp, "apt.log")
        self.env = {"PATH": self.bin, "HOME": self.tmp, "TMPDIR": self.tmp, "FAKE_LOG": self.log,
                    "FAKE_CMAKE_VERSION": "3.25.1", "FAKE_MISSING_LIBS": "", "CXX": "c++"}

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def standin(self, name, text):
        path = os.path.join(self.bin, name)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)

    def run_script(self, *args, **env):
        e = dict(self.env, **env)
        return subprocess.run([os.path.join(self.bin, "bash"), SCRIPT] + list(args), env=e, capture_output=True,
                              text=True, timeout=60)

    def apt_calls(self):
        if not os.path.exists(self.log):
            return []
        with open(self.log) as f:
            return f.read().splitlines()

    def test_everything_present_needs_no_apt(self):
        r = self.run_script()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("nothing to install", r.stdout)
        self.assertEqual(self.apt_calls(), [])

    def test_cmake_from_pip_counts_although_its_package_is_not_installed(self):
        r = self.run_script("--check", FAKE_CMAKE_VERSION="4.1.2")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        r = self.run_script(FAKE_CMAKE_VERSION="4.1.2")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.apt_calls(), [])

    def test_cmake_too_old_is_installed(self):
        r = self.run_script("--check", FAKE_CMAKE_VERSION="3.18.4")
        self.assertEqual(r.returncode, 1)
        self.assertIn("cmake >= 3.24 (found 3.18.4", r.stdout)
        r = self.run_script(FAKE_CMAKE_VERSION="3.18.4")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("apt-get install -y -qq --no-install-recommends cmake", self.apt_calls())

    def test_a_missing_library_is_installed_by_its_package(self):
        r = self.run_script(FAKE_MISSING_LIBS="fmt JPEG")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("apt-get install -y -qq --no-install-recommends libfmt-dev libjpeg-dev", self.apt_calls())

    def test_apt_unreachable_names_what_is_missing(self):
        r = self.run_script(FAKE_MISSING_LIBS="CLI11", FAKE_APT_FAIL="1")
        self.assertEqual(r.returncode, 1)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        self.assertIn("CLI11", r.stderr)
        self.assertIn("libcli11-dev", r.stderr)

    def test_no_apt_says_what_to_install(self):
        os.unlink(os.path.join(self.bin, "apt-get"))
        r = self.run_script(FAKE_MISSING_LIBS="PNG")
        self.assertEqual(r.returncode, 1)
        self.assertIn("no apt", r.stderr)
        self.assertIn("libpng-dev", r.stderr)
        os.unlink(os.path.join(self.bin, "ninja"))
        r = self.run_script()
        self.assertEqual(r.returncode, 1)
        self.assertIn("ninja", r.stderr)

    def test_a_wrong_cuda_and_bad_options(self):
        self.standin("nvcc", "#!/bin/bash\necho 'Cuda compilation tools, release 11.8, V11.8.89'\n")
        r = self.run_script()
        self.assertEqual(r.returncode, 1)
        self.assertIn("needs 12.x or 13.x", r.stderr)
        self.assertEqual(self.run_script("--nope").returncode, 2)


if __name__ == "__main__":
    unittest.main()
