#!/usr/bin/env python3
"""grading/slurm/ on a real Slurm cluster: a single-node cluster on localhost, started in a
temporary folder by this test (munged, slurmctld and slurmd with their own ports, state folders and
key), grades three submissions with the job array -- the solutions, the handout and one whose
vec_add does not compile -- and checks the merged summary.csv and class report, and that the base
was built once, by its own job, and copied by every array task. Every daemon is
stopped by its pid at the end. No GPU is requested (--gres none): GPU tests report skipped; the
flow is what is tested.

Exit 77 (reported by ctest as skipped) where Slurm or munge is not installed
(scripts/install-deps.sh --slurm installs them) or the test does not run as root.
Builds use one GPU architecture (CUDALAB_HANDOUT_ARCH, default 75-real).
"""
import csv
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
from cudalab.labgrade import regions, suite  # noqa: E402

ARCH = os.environ.get("CUDALAB_HANDOUT_ARCH", "75-real")
DAEMONS = ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "sinfo")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    """munged + slurmctld + slurmd in `top`, stopped by their pids."""

    def __init__(self, top):
        self.top = top
        self.pids = {}
        host = socket.gethostname().split(".")[0]
        with open("/proc/meminfo") as f:
            mem_mb = int(f.readline().split()[1]) // 1024
        for d in ("state", "spool", "munge"):
            os.makedirs(os.path.join(top, d), mode=0o700)
        os.chmod(os.path.join(top, "munge"), 0o711)  # munged wants its socket's folder passable by all
        self.key = os.path.join(top, "munge", "munge.key")
        with open(self.key, "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(self.key, 0o400)
        self.socket = os.path.join(top, "munge", "munge.socket")
        self.conf = os.path.join(top, "slurm.conf")
        with open(self.conf, "w") as f:
            f.write("\n".join([
                "ClusterName=cudalabtest", f"SlurmctldHost={host}",
                "AuthType=auth/munge", f"AuthInfo=socket={self.socket}", "CredType=cred/munge",
                "SlurmUser=root", "SlurmdUser=root",
                f"SlurmctldPort={free_port()}", f"SlurmdPort={free_port()}",
                f"StateSaveLocation={top}/state", f"SlurmdSpoolDir={top}/spool",
                f"SlurmctldPidFile={top}/slurmctld.pid", f"SlurmdPidFile={top}/slurmd.pid",
                f"SlurmctldLogFile={top}/slurmctld.log", f"SlurmdLogFile={top}/slurmd.log",
                "ProctrackType=proctrack/linuxproc", "TaskPlugin=task/none",
                "SelectType=select/cons_tres", "SelectTypeParameters=CR_Core",
                "JobAcctGatherType=jobacct_gather/none", "MpiDefault=none", "ReturnToService=2",
                f"NodeName={host} CPUs={os.cpu_count()} RealMemory={int(mem_mb * 0.9)} State=UNKNOWN",
                f"PartitionName=grade Nodes={host} Default=YES MaxTime=INFINITE State=UP", ""]))
        self.env = dict(os.environ, SLURM_CONF=self.conf)

    def start(self):
        m = os.path.join(self.top, "munge")
        subprocess.run(["munged", f"--key-file={self.key}", f"--socket={self.socket}",
                        f"--pid-file={m}/munged.pid", f"--log-file={m}/munged.log", f"--seed-file={m}/munged.seed"],
                       check=True, capture_output=True, timeout=30)
        self.pids["munged"] = f"{m}/munged.pid"
        for daemon in ("slurmctld", "slurmd"):
            subprocess.run([daemon, "-f", self.conf], check=True, env=self.env, capture_output=True, timeout=30)
            self.pids[daemon] = os.path.join(self.top, f"{daemon}.pid")
        deadline = time.time() + 60
        while time.time() < deadline:
            state = subprocess.run(["sinfo", "-h", "-o", "%t"], env=self.env, capture_output=True, text=True).stdout
            if state.strip() in ("idle", "mix", "alloc"):
                return
            time.sleep(1)
        raise RuntimeError(f"the node never became idle; slurmctld.log: {self.log('slurmctld')}")

    def log(self, daemon):
        try:
            with open(os.path.join(self.top, f"{daemon}.log")) as f:
                return f.read()[-2000:]
        except OSError:
            return ""

    def stop(self):
        for daemon in ("slurmd", "slurmctld", "munged"):
            try:
                with open(self.pids[daemon]) as f:
                    pid = int(f.read().strip())
                os.kill(pid, signal.SIGTERM)
                for _ in range(50):
                    os.kill(pid, 0)
                    time.sleep(0.2)
                os.kill(pid, signal.SIGKILL)
            except (KeyError, OSError, ValueError):
                pass  # not started, or gone


class SlurmArray(unittest.TestCase):
    def test_array_grades_three_submissions_and_merges(self):
        tmp = tempfile.mkdtemp(prefix="slurm_test_")
        os.chmod(tmp, 0o711)
        cluster = Cluster(os.path.join(tmp, "cluster"))
        try:
            cluster.start()
            subs = os.path.join(tmp, "subs")
            suite.copy_tree(ROOT, os.path.join(subs, "solutions"))
            gen = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "handout.py"), "--out",
                                  os.path.join(subs, "handout")], capture_output=True, text=True)
            self.assertEqual(gen.returncode, 0, gen.stderr)
            broken = os.path.join(subs, "broken")
            suite.copy_tree(ROOT, broken)
            rel = "labs/vec_add/vec_add.cu"
            with open(os.path.join(broken, rel)) as f:
                text = f.read()
            with open(os.path.join(broken, rel), "w") as f:
                f.write(regions.rewrite(text, regions.parse(rel, text), {"vec_add.naive": ["  not C++ at all;"]}))
            out = os.path.join(tmp, "out")
            run = subprocess.run([os.path.join(ROOT, "grading", "slurm", "submit.sh"), subs, out, "--gres", "none",
                                  "--throttle", "2", "--time", "30", "--", "--labs", "device_query", "vec_add",
                                  f"--cmake-args=-DCMAKE_CUDA_ARCHITECTURES={ARCH}"],
                                 env=cluster.env, capture_output=True, text=True, timeout=60)
            self.assertEqual(run.returncode, 0, run.stderr)
            self.assertIn("3 submissions", run.stdout)
            # Until the merge has written the class report, or the queue has stayed empty for three
            # polls without it (every job ended, one of them failed: the asserts below say which,
            # at once rather than at the deadline).
            deadline, idle = time.time() + 1500, 0
            while time.time() < deadline:
                queue = subprocess.run(["squeue", "-h"], env=cluster.env, capture_output=True, text=True)
                idle = idle + 1 if queue.returncode == 0 and not queue.stdout.strip() else 0  # a refused query is not empty
                if idle and os.path.exists(os.path.join(out, "class-report.md")) or idle >= 3:
                    break
                time.sleep(5)
            logs, full = "", {}
            for n in sorted(os.listdir(out)):
                if n.endswith(".log"):
                    with open(os.path.join(out, n)) as f:
                        full[n] = f.read()
                    logs += full[n][-1500:]
            # the base is built once, by its own job; every array task copies it
            built = [n for n, text in full.items() if "base built and listed" in text]
            reused = [n for n, text in full.items() if "(prepared once)" in text]
            self.assertEqual([n for n in built if n.startswith("cudalab-base-")], built, logs)
            self.assertEqual(len(built), 1, logs)
            self.assertEqual(len(reused), 3, logs)
            with open(os.path.join(out, "summary.csv"), newline="") as f:
                rows = {r["submission"]: r for r in csv.DictReader(f)}
            self.assertEqual(sorted(rows), ["broken", "handout", "solutions"], logs)
            for row in rows.values():
                self.assertEqual(row["status"], "graded", logs)
            self.assertEqual(len({r["max_score"] for r in rows.values()}), 1)  # one maximum for all
            self.assertEqual(rows["broken"]["not_compiling"], "vec_add")
            # vec_add's tests ran and passed for the solutions and not for broken (where they need no
            # GPU); its points need one: without, the two score the same (device_query's task)
            self.assertGreaterEqual(float(rows["solutions"]["score"]), float(rows["broken"]["score"]))
            tasks, vec_add_passed = {}, {}
            for name in rows:
                with open(os.path.join(out, "submissions", name, "results.json")) as f:
                    data = json.load(f)
                tasks[name] = data["extra_data"]["tasks"]
                vec_add_passed[name] = sum(t["status"] == "passed" for t in data["tests"] if t["tags"] == ["vec_add"])
            self.assertGreater(vec_add_passed["solutions"], vec_add_passed["broken"])
            self.assertEqual(vec_add_passed["broken"], 0)
            self.assertEqual([t for t, s in tasks["handout"].items() if s["score"] > 0], [])
            for name in ("solutions", "broken"):  # device_query's CPU tests ran and passed in both
                self.assertGreater(tasks[name]["device_query.residency"]["passed"], 0, name)
            self.assertEqual(tasks["broken"]["vec_add.naive"]["score"], 0.0)
            with open(os.path.join(out, "class-report.md")) as f:
                report = f.read()
            self.assertIn("3 submissions: 3 graded", report)
            self.assertIn("| vec_add.naive |", report)
            self.assertIn("broken: vec_add", report)
        finally:
            cluster.stop()
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    missing = [d for d in DAEMONS if not shutil.which(d)]
    if missing or os.geteuid() != 0:
        why = f"not installed: {' '.join(missing)}" if missing else "the test starts Slurm as root"
        print(f"CUDALAB_SKIPPED: no single-node Slurm cluster here ({why}; scripts/install-deps.sh --slurm)")
        sys.exit(77)
    unittest.main()
