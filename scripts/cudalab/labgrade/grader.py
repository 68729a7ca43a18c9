"""Grading submissions: one pristine base build per run, then per submission only its spliced
region files rebuilt and its labs' tests run, all in sandboxes (docs/grading-security.md).

  base   the grading tree (handout: every region stubbed, no solutions) configured and built once;
         its ctest listing is the fixed test list (names, labs, maxima) every submission is
         scored against, taken before any student code is built
  one    copy the base tree and build, splice the submission's region bodies into the region
         files, build the labs (ninja recompiles only what the spliced files touch), run each
         lab's tests, score them against the fixed list
"""
import contextlib
import csv
import glob
import json
import os
import re
import secrets
import shutil
import subprocess
import tempfile
import threading
import time

from . import ctest, leaderboard, regions as regions_mod, results, submission, suite, symbols
from .sandbox import BUILD, OUT, SRC, TOOLS, GiB, MemoryGroup, MemoryWatch, blocked_folder, reap_uid

LAB_TARGETS = ("{lab}", "{lab}_cpu_test", "{lab}_gpu_test")
NAME_OK = re.compile(r"[^A-Za-z0-9._-]")
EXIT_NO_GPU = 4
CTEST_REGEX_MAX = 16000  # ctest -R of about 32 KB and more matches no test at all (CMake 3.25)
BASE_FILE = "base.json"  # a prepared base's listing, next to its src/ build/ tools/


class GradingError(Exception):
    """The suite itself cannot be built or listed (not the submission's fault)."""


class NoGpu(GradingError):
    """--require-gpu on a node without a usable GPU."""


class Limits:
    """Wall-clock limits in seconds."""

    def __init__(self, build_s=900, lab_tests_s=600, submission_s=1800, test_s=None, memory_bytes=None):
        self.build_s, self.lab_tests_s, self.submission_s, self.test_s = build_s, lab_tests_s, submission_s, test_s
        self.memory_bytes = memory_bytes  # all of one submission's processes together (MemoryGroup)


class Workspace:
    """Where one tree lives on the host, and how a command reaches it: in the sandbox at /grade/*,
    or (with no sandbox) at the host paths themselves."""

    def __init__(self, root, box, env=None, group=None):
        self.root, self.box, self.env, self.group = root, box, env or {}, group
        self.src, self.build, self.out, self.tools = (os.path.join(root, d) for d in ("src", "build", "out", "tools"))

    def path(self, which):
        if self.box:
            return {"src": SRC, "build": BUILD, "out": OUT, "tools": TOOLS}[which]
        return getattr(self, which)

    def wrap(self, build_writable=True, with_out=False, extra_env=None):
        def wrap_cmd(cmd):
            if not self.box:
                return cmd
            return self.box.command(cmd, src=self.src, build=self.build, out=self.out if with_out else None,
                                    tools=self.tools, build_writable=build_writable, env={**self.env, **(extra_env or {})})
        return wrap_cmd

    def runner(self, build_writable=True, with_out=False):
        return lambda cmd, timeout, **kw: self.run(cmd, timeout, build_writable, with_out, **kw)

    def preexec(self):
        """In the child: into the submission's memory group (while still root), then the sandbox's own."""
        if self.group:
            self.group.join()
        if self.box:
            self.box.preexec()

    def run(self, cmd, timeout, build_writable=True, with_out=False, watch=None, keep_bytes=1 << 20, extra_env=None,
            pass_fds=()):
        """`extra_env` and `pass_fds`: a variable and the open file it names (the grader's result
        pipe). Without a sandbox the workspace's variables and these are set in the command's own
        environment."""
        env = {**self.env, **(extra_env or {})}
        if env and not self.box:  # no sandbox to set it: the command's own environment (a GPU slot too)
            cmd = ["env"] + [f"{k}={v}" for k, v in env.items()] + list(cmd)
        return ctest.run_bounded(self.wrap(build_writable, with_out, extra_env)(cmd), timeout,
                                 preexec_fn=self.preexec if self.box or self.group else None, watch=watch,
                                 keep_bytes=keep_bytes, pass_fds=pass_fds)


def remove_tree(path, patience_s=5.0):
    """Removes the folder at path, trying again for up to patience_s seconds while something
    still writes into it (a killed build's last processes ending); True once it is gone."""
    deadline = time.time() + patience_s
    while True:
        shutil.rmtree(path, ignore_errors=True)
        if not os.path.lexists(path) or time.time() >= deadline:
            return not os.path.lexists(path)
        time.sleep(0.1)


def lab_targets(labs):
    return [t.format(lab=lab) for lab in labs for t in LAB_TARGETS]


def failed_labs(log, labs):
    """{lab: compiler lines} for the labs with a FAILED step in a `ninja -k 0` log."""
    broken, block, lab = {}, [], None
    for line in log.splitlines() + ["FAILED: <end>"]:
        if line.startswith("FAILED: ") or line.startswith("ninja: "):
            if lab:
                broken.setdefault(lab, []).extend(block)
            lab, block = None, []
            if line.startswith("FAILED: "):
                for candidate in labs:
                    if re.search(rf"(^|[/ ]){candidate}(_kernels|_cpu_test|_gpu_test)?([/. ]|$)", line[8:]) or \
                            f"/{candidate}/" in line:
                        lab = candidate
                        break
            continue
        block.append(line)
    return {lab: "\n".join([l for l in lines if "error" in l.lower()][-15:] or lines[-15:])
            for lab, lines in broken.items()}


class Grader:
    def __init__(self, points, labs, box, jobs, limits, cmake_args=(), work=None, keep=False, log=print,
                 measure=False, gtest_batch=False, reuse_base=True, test_seed=None, all_tests=False):
        self.points, self.labs, self.box, self.jobs, self.limits = points, labs, box, jobs, limits
        # By default ctest runs only what decides a grade: the tests that grade a task, the gates,
        # and the GoogleTest binaries that hold them (graded_run). The rest (smoke runs,
        # compute-sanitizer runs, the references' CPU tests) earn nothing and are most of a
        # submission's GPU processes; all_tests runs and reports them too, as feedback.
        self.all_tests = all_tests
        self.graded_run = None  # ctest names to run (None: every test of the labs)
        self.cmake_args, self.keep, self.log, self.measure = list(cmake_args), keep, log, measure
        self.gtest_batch = gtest_batch
        # Every test draws its inputs from this run's seed (CUDALAB_TEST_SEED, tests/gpu_test.hpp):
        # drawn here unless given (to grade again on the same inputs), so no table of answers made
        # from the handout's tests fits a grading run.
        self.test_seed = test_seed if test_seed is not None else secrets.randbits(62) + 1
        self.seed_given = test_seed is not None  # a prepared base's seed is taken unless one was given
        self.submission_jobs = None  # build and test jobs of one submission (a batch shares self.jobs out)
        self.reuse_base = reuse_base  # run the base's tests once and reuse them for labs left as handed out
        self.base_results = None      # ({case: [status, output, seconds]}, {case: limit} timed out)
        self.work = work or tempfile.mkdtemp(prefix="labgrade_")
        os.chmod(self.work, 0o711)  # the sandbox's uid passes through to its own folders, lists nothing
        self.groups = 0
        self.made_groups = []  # every memory group made, removed by cleanup() on every way out
        self.no_group = None  # why submissions run without a memory group (None: they have one, or none asked)
        self.base = None
        self.regions = {}
        self.listed = []
        self.batches = {}  # ctest tests that run a whole GoogleTest binary: their labels
        self.base_objects = {}  # region file: (symbols, bytes) of its object in the base build
        self.gpu = threading.Condition()  # submissions graded at once share the GPU for their tests,
        self.gpu_users = self.gpu_timing = 0  # and a timed leaderboard run has it alone

    def seed_env(self):
        return {"CUDALAB_TEST_SEED": str(self.test_seed)}

    # ---- the base: built once ------------------------------------------------------------
    def configure_args(self, ws):
        return ["cmake", "-S", ws.path("src"), "-B", ws.path("build"), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
                f"-DCUDALAB_TEST_LAUNCHER={ws.path('tools')}/sandbox-test" if self.box else "-DCUDALAB_TEST_LAUNCHER=",
                f"-DCUDALAB_GTEST_BATCH={'ON' if self.gtest_batch else 'OFF'}"] + self.cmake_args

    def make_tree(self, ws):
        """A fresh grading tree at ws (source, build folder, tools)."""
        if self.box and self.box.drop_to_nobody:
            blocked = blocked_folder(ws.root, self.box.uid)
            if blocked:
                raise GradingError(f"the grading tree {ws.root} is out of the sandbox's reach: {blocked[0]} is mode "
                                   f"{blocked[1]:04o} and the submission's uid may not enter it (grade from a folder "
                                   f"every user may enter, or chmod o+x {blocked[0]})")
        self.regions = suite.write_grading_tree(suite.ROOT, ws.src)
        for d in (ws.build, ws.out, ws.tools):
            os.makedirs(d, exist_ok=True)
        if self.box:
            with open(os.path.join(ws.tools, "sandbox-test"), "w") as f:
                f.write(self.box.launcher_script())
            os.chmod(os.path.join(ws.tools, "sandbox-test"), 0o755)
            self.box.prepare_writable(ws.build, ws.out)

    def build(self, ws, labs, timeout, jobs=None):
        """Configures (if needed) and builds the labs; returns (broken {lab: log}, whole log)."""
        if not os.path.exists(os.path.join(ws.build, "build.ninja")):
            conf = ws.run(self.configure_args(ws), timeout)
            if conf.returncode != 0:
                raise GradingError(f"the grading tree does not configure: {(conf.stderr or conf.stdout).strip()[-600:]}")
        b = ws.run(["cmake", "--build", ws.path("build"), "-j", str(jobs or self.jobs), "--target"] + lab_targets(labs)
                   + ["--", "-k", "0"], timeout, watch=(ws.build, self.box.limits.disk_bytes if self.box else None))
        log = b.stdout + b.stderr
        if b.timed_out:
            return {lab: f"the build passed its limit of {timeout:g} s" for lab in labs}, log
        if b.returncode == 0:
            return {}, log
        broken = failed_labs(log, labs)
        if not broken:  # failed, but on no lab's step: every lab is in doubt
            broken = {lab: log[-1500:] for lab in labs}
        return broken, log

    def memory_group(self):
        """A new MemoryGroup of limits.memory_bytes, or None (why is kept in no_group and logged once)."""
        if not self.limits.memory_bytes or not self.box or self.no_group:
            return None
        self.groups += 1
        group, why = MemoryGroup.create(f"labgrade-{os.getpid()}-{self.groups}", int(self.limits.memory_bytes))
        if not group:
            self.no_group = why
            watched = self.box.drop_to_nobody and self.box.lease
            self.log(f"grade_submission: no memory group per submission ({why}); "
                     + ("the grader adds up each submission's resident memory (its uid's processes) and stops it "
                        f"past {self.limits.memory_bytes / GiB:g} GiB" if watched else "each process keeps its own limit"))
        else:
            self.made_groups.append(group)
        return group

    def memory_watch(self, ws, box):
        """A MemoryWatch of the submission's uid where no group bounds it (else a no-op context)."""
        if ws.group or not box or not self.limits.memory_bytes or not (box.drop_to_nobody and box.lease):
            return contextlib.nullcontext(None)
        return MemoryWatch(box.uid, int(self.limits.memory_bytes))

    def prepare_base(self, root=None):
        """Builds and lists the base at `root` (default: in the work folder). With a root, the
        base is kept there with its listing (base.json) for load_base: a Slurm array builds it once."""
        start = time.time()
        if root:
            os.makedirs(root)
            os.chmod(root, 0o711)
        ws = Workspace(root or os.path.join(self.work, "base"), self.box, self.seed_env(), group=self.memory_group())
        self.make_tree(ws)
        broken, log = self.build(ws, self.labs, self.limits.build_s)
        if broken:
            raise GradingError(f"the grading tree (the handout) does not build: {sorted(broken)}\n{log[-1500:]}")
        try:
            labels = ctest.list_tests(ws.path("build"), ws.runner(), timeout=self.limits.build_s)
        except RuntimeError as e:
            raise GradingError(str(e)) from e
        def list_cases(name):  # a binary run as one test: the fixed list has its cases
            launcher = f"--launcher={ws.path('tools')}/sandbox-test" if self.box else "--launcher="
            listing = ws.run(["python3", f"{ws.path('src')}/scripts/gtest_batch.py", "--list", launcher, "--",
                              f"{ws.path('build')}/tests/{name}"], self.limits.build_s, keep_bytes=None)
            if listing.returncode != 0:
                raise GradingError(f"cannot list the cases of {name}: {listing.stderr.strip()[-300:]}")
            return listing.stdout.split()
        known = set(self.points.get("labs", {}))
        ctest_names, cases_of = list(labels), {}
        def list_and_keep(name):
            cases_of[name] = list_cases(name)
            return cases_of[name]
        self.batches.update(results.expand_listing(labels, list_and_keep,
                                                   lambda lbl: results.lab_of(lbl, known) in self.labs))
        self.listed = results.fixed_list(labels, self.points, set(self.labs))
        graded = {t.name for t in self.listed if t.max_score > 0 or t.gate}
        self.graded_run = [n for n in ctest_names if n in graded or any(c in graded for c in cases_of.get(n, []))]
        self.keep_graded()
        self.base = ws
        if self.reuse_base:
            self.base_tests(ws)
        if root:
            with open(os.path.join(root, BASE_FILE), "w") as f:
                json.dump({"labs": self.labs, "cmake_args": self.cmake_args, "gtest_batch": self.gtest_batch,
                           "labels": labels, "batches": self.batches, "graded_run": self.graded_run,
                           "all_tests": self.all_tests, "region_files": sorted(self.regions),
                           "base_results": self.base_results, "test_seed": self.test_seed}, f, indent=1)
        self.log(f"grade_submission: base built and listed in {time.time() - start:.0f} s: "
                 f"{len(self.listed)} tests in {len(self.labs)} labs")
        return ws

    def load_base(self, root):
        """The base that prepare_base(root) built, after checking it was built for these labs and
        options. Raises GradingError when it is missing or built otherwise."""
        try:
            with open(os.path.join(root, BASE_FILE)) as f:
                info = json.load(f)
        except (OSError, ValueError) as e:
            raise GradingError(f"no prepared base at {root} ({e}): run grade_submission.py --prepare-base {root} first")
        wanted = {"cmake_args": self.cmake_args, "gtest_batch": self.gtest_batch, "all_tests": self.all_tests}
        differs = [k for k, v in wanted.items() if info.get(k) != v]
        missing = [lab for lab in self.labs if lab not in info.get("labs", [])]
        if missing:  # a base serves any of its labs
            differs.append("labs")
        if differs:
            raise GradingError(f"the base at {root} was built with other {', '.join(differs)} "
                               f"({', '.join(f'{k}={info.get(k)}' for k in differs)}); prepare it with the same options")
        ws = Workspace(root, self.box, self.seed_env())
        self.regions = suite.parse_regions(ws.src, info["region_files"])
        self.batches = info["batches"]
        self.listed = results.fixed_list(info["labels"], self.points, set(self.labs))
        self.graded_run = info.get("graded_run")
        self.keep_graded()
        self.base = ws
        # the base's own results are reused only on the inputs they were taken on: the base's seed
        # is this run's unless another was given
        self.base_results = info.get("base_results") if self.reuse_base else None
        if self.base_results and info.get("test_seed") != self.test_seed:
            if self.seed_given or info.get("test_seed") is None:
                self.base_results = None
            else:
                self.test_seed = info["test_seed"]
        self.log(f"grade_submission: base from {root} (prepared once): {len(self.listed)} tests in {len(self.labs)} labs")
        if self.reuse_base and self.base_results is None:
            self.base_tests_in_copy()
        return ws

    def keep_graded(self):
        """Unless all_tests: the fixed list keeps only the tests that grade a task or gate a lab
        (what a submission is scored on does not change), and run_regex names what ctest runs."""
        if self.all_tests:
            self.graded_run = None
            return
        self.listed = [t for t in self.listed if t.max_score > 0 or t.gate]

    def run_regex(self):
        """ctest's -R for a submission's run: the graded tests and the binaries that hold them, by
        their exact names; None (every test of the labs) with all_tests, or where the list would
        pass what ctest's regular expressions hold (they then match nothing, silently)."""
        if self.graded_run is None:
            return None
        rx = "^(" + "|".join(re.sub(r"([.\[\]()*+?^$|\\])", r"\\\1", n) for n in self.graded_run) + ")$"
        return rx if len(rx) <= CTEST_REGEX_MAX else None

    def base_tests_in_copy(self):
        """The base's own tests for this run's labs, run once in a copy of the base: a prepared base
        (made without them, or on other inputs) is shared read-only by the graders that load it.
        Without a sandbox the build's paths are the host's, and the tests run in the base itself."""
        if not self.box:
            return self.base_tests(self.base)
        ws = Workspace(os.path.join(self.work, "base-run"), self.box, self.seed_env(), group=self.memory_group())
        for d in ("src", "build", "tools"):
            shutil.copytree(getattr(self.base, d), getattr(ws, d), symlinks=True)
        os.makedirs(ws.out)
        self.box.prepare_writable(ws.build, ws.out)
        try:
            self.base_tests(ws)
        finally:
            if ws.group:
                ws.group.remove()
                self.made_groups.remove(ws.group)
            remove_tree(ws.root)

    def require_gpu(self):
        """Raises GradingError unless the base's device_query finds a usable GPU (in the sandbox)."""
        exe = os.path.join(self.base.path("build"), "labs", "device_query")
        if not os.path.exists(os.path.join(self.base.build, "labs", "device_query")):
            raise GradingError("--require-gpu needs the device_query lab in the build (add it to --labs)")
        run = self.base.run([exe, "--device", "0"], 120, build_writable=False)
        if run.returncode != 0:
            raise NoGpu(f"no usable GPU on this node (device_query exit {run.returncode}: "
                               f"{run.stderr.strip()[-200:]})")

    # ---- one submission --------------------------------------------------------------------
    def spliced(self, files, src):
        """The submission's regions spliced into the region files under src, written nowhere:
        ({region id: outcome}, {file: its text} for each file that differs from src's)."""
        outcome, changed = {}, {}
        for rel, rs in self.regions.items():
            if not any(r.lab in self.labs for r in rs):
                continue
            if rel not in files:
                outcome.update({r.id: regions_mod.outcome(regions_mod.NOT_TAKEN, f"{rel} is not in the submission")
                                for r in rs})
                continue
            try:
                text = files[rel].decode("utf-8")
            except UnicodeDecodeError:
                outcome.update({r.id: regions_mod.outcome(regions_mod.NOT_TAKEN, f"{rel} is not UTF-8 text") for r in rs})
                continue
            with open(os.path.join(src, rel), encoding="utf-8") as f:
                pristine = f.read()
            spliced, o = regions_mod.splice(pristine, rs, text, rel)
            outcome.update(o)
            if spliced != pristine:
                changed[rel] = spliced
        return outcome, changed

    def run_lab_tests(self, ws, labs, limit, jobs):
        """Every test of `labs` in one ctest run in workspace `ws` (tests of different labs share
        the cores and the GPU instead of waiting for each other). Returns ({case: (status, output,
        seconds)}, {case: limit} of those that timed out, whether the run passed `limit`)."""
        batch_labels = {n: lbl for n, lbl in self.batches.items() if any(lab in lbl for lab in labs)}
        with self.gpu_use():  # the graders' one pipeline: ctest, its JUnit report, each GoogleTest binary's cases
            run, cases, timed_out = results.run_and_collect(ws.path("build"), f"{ws.path('out')}/junit.xml",
                                                            "^(" + "|".join(labs) + ")$", jobs, self.limits.test_s,
                                                            limit, batch_labels, runner=ws.runner(with_out=True),
                                                            extra=["-R", rx] if (rx := self.run_regex()) else [],
                                                            seen_as=(ws.build, os.path.join(ws.out, "junit.xml")))
        return cases, timed_out, run.timed_out

    def unchanged(self, lab, differs):
        """Whether every region file of `lab` is the base's, byte for byte: none is among `differs`
        (the files the submission changed, less those put back because the compiled object was refused)."""
        return not any(rel in differs for rel, rs in self.regions.items() if any(r.lab == lab for r in rs))

    def base_tests(self, ws):
        """Runs the base's own tests once (the handout's results: what a submission that leaves a
        lab as handed out gets for it), kept in self.base_results."""
        start = time.time()
        if self.box:
            self.box.prepare_writable(ws.out)
        cases, timed_out, _ = self.run_lab_tests(ws, self.labs, self.limits.lab_tests_s * len(self.labs), self.jobs)
        self.base_results = ({n: list(c) for n, c in cases.items()}, timed_out)
        # its reports must not be found in a submission's copy of this build as if they were its own
        for report in glob.glob(os.path.join(ws.build, "gtest-batch", "*.xml")) + [os.path.join(ws.out, "junit.xml")]:
            if os.path.exists(report):
                os.remove(report)
        shutil.rmtree(os.path.join(ws.build, "Testing"), ignore_errors=True)
        self.log(f"grade_submission: the base's own tests ran in {time.time() - start:.0f} s "
                 "(reused for every lab a submission leaves as handed out)")

    @contextlib.contextmanager
    def gpu_use(self, alone=False):
        """The GPU for a submission's correctness tests, shared with other submissions' tests; or,
        alone=True, for a timed leaderboard run, alone: new tests wait for it, running ones finish
        first."""
        with self.gpu:
            self.gpu_timing += alone
            while self.gpu_users if alone else self.gpu_timing:
                self.gpu.wait()
            self.gpu_users += 1
        try:
            yield
        finally:
            with self.gpu:
                self.gpu_users -= 1
                self.gpu_timing -= alone
                self.gpu.notify_all()

    def object_of(self, root, rel):
        """The object file the build folder `root` compiles the region file `rel` into, or None."""
        lab = rel.split("/")[1] if rel.startswith("labs/") else ""
        name = os.path.basename(rel) + ".o"
        found = glob.glob(os.path.join(root, "lab_targets", lab, "CMakeFiles", "*.dir", "**", name), recursive=True)
        return found[0] if len(found) == 1 else None

    def object_table(self, path):
        """parse_nm of an object file, and its bytes."""
        nm = subprocess.run(["nm", "-P", path], capture_output=True, text=True, timeout=120)
        if nm.returncode != 0:
            raise OSError(f"nm {path}: {nm.stderr.strip()[-200:]}")
        with open(path, "rb") as f:
            return symbols.parse_nm(nm.stdout), f.read()

    def demangler(self, names):
        names = sorted(names)
        run = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True, timeout=120)
        readable = run.stdout.split("\n") if run.returncode == 0 else names
        table = dict(zip(names, readable))
        return lambda n: table.get(n, n)

    def vet_objects(self, ws, outcome, broken):
        """The allow-list on what was compiled (labgrade/symbols.py): for each region file with a
        region taken, its object against the base's. Marks the taken regions of a refused file
        and returns the refused files."""
        refused = []
        for rel, rs in self.regions.items():
            taken = [r for r in rs if r.id in outcome and regions_mod.is_taken(outcome[r.id])]
            if not taken or taken[0].lab in broken:
                continue
            mine, base = self.object_of(ws.build, rel), self.object_of(self.base.build, rel)
            try:
                if not mine or not base:
                    raise OSError(f"no object file for {rel}")
                spliced, spliced_bytes = self.object_table(mine)
                if rel not in self.base_objects:
                    self.base_objects[rel] = self.object_table(base)
                base_syms, base_bytes = self.base_objects[rel]
                problems = symbols.check(spliced, base_syms, self.demangler(set(spliced) | set(base_syms)),
                                         spliced_bytes, base_bytes, taken[0].lab)
            except (OSError, subprocess.SubprocessError) as e:
                problems = [f"its compiled code cannot be checked ({e})"]
            if problems:
                refused.append(rel)
                why = "; ".join(problems[:3]) + (f" (and {len(problems) - 3} more)" if len(problems) > 3 else "")
                for r in taken:
                    outcome[r.id] = regions_mod.outcome(regions_mod.REJECTED, f"the compiled {os.path.basename(rel)} {why}")
        return refused

    def grade_one(self, path, out, env=None):
        """Grades the submission at `path` into `out` (results.json, junit per lab, feedback).
        Raises submission.Unreadable for what cannot be read; everything after that is the
        submission's own result. Its sandbox runs as a uid of its own (Sandbox.own_uid)."""
        if not self.box:
            return self._grade_one(path, out, env, None)
        with self.box.own_uid() as box:
            return self._grade_one(path, out, env, box)

    def _grade_one(self, path, out, env, box):
        start = time.time()
        deadline = start + self.limits.submission_s
        wanted = [rel for rel, rs in self.regions.items() if any(r.lab in self.labs for r in rs)]
        files = submission.read(path, wanted)
        scratch = tempfile.mkdtemp(prefix="sub_", dir=self.work)
        os.chmod(scratch, 0o711)
        ws = Workspace(scratch, box, {**(env or {}), **self.seed_env()}, group=self.memory_group())
        stack = contextlib.ExitStack()
        try:
            watch = stack.enter_context(self.memory_watch(ws, box))
            outcome, changed = self.spliced(files, self.base.src)
            # Nothing that differs from the base (every lab left as handed out, or every region
            # refused by the region check): the base's build and the base's results, nothing copied,
            # built or run. Timed runs (measure) need a build of their own.
            as_base = not changed and self.base_results is not None and not self.measure
            jobs = self.submission_jobs or self.jobs
            refused = []
            if as_base:
                phases = {"copy_s": 0.0, "build_s": 0.0}
                broken = {}
            else:
                if box:  # the base tree and build, at the same /grade paths: only spliced files rebuild
                    shutil.copytree(self.base.src, ws.src, symlinks=True)
                    shutil.copytree(self.base.build, ws.build, symlinks=True)
                    shutil.copytree(self.base.tools, ws.tools, symlinks=True)
                    os.makedirs(ws.out)
                else:
                    self.make_tree(ws)
                for rel, text in changed.items():
                    with open(os.path.join(ws.src, rel), "w", encoding="utf-8") as f:
                        f.write(text)
                if box:
                    box.prepare_writable(ws.build, ws.out)
                phases = {"copy_s": time.time() - start}
                mark = time.time()
                broken, _ = self.build(ws, self.labs, max(1, min(self.limits.build_s, deadline - time.time())), jobs)
                refused = self.vet_objects(ws, outcome, broken)
                if refused:  # those files back to the base's (their regions not taken), and built again
                    for rel in refused:
                        shutil.copyfile(os.path.join(self.base.src, rel), os.path.join(ws.src, rel))
                    broken, _ = self.build(ws, self.labs, max(1, min(self.limits.build_s, deadline - time.time())), jobs)
                phases["build_s"] = time.time() - mark
            mark = time.time()
            tests = []
            runnable = [lab for lab in self.labs if lab not in broken]
            for lab in broken:
                tests += [t.entry("failed", f"{lab} does not compile:\n{broken[lab]}") for t in self.listed if t.lab == lab]
            # a lab whose region files are the base's, byte for byte (left as handed out, or every
            # region refused): its build is the base's, so are its results, taken from the base's run
            differs = set(changed) - set(refused)
            reused = [lab for lab in runnable if self.base_results is not None and self.unchanged(lab, differs)]
            if reused:
                cases, timed_out = self.base_results
                tests += results.score([t for t in self.listed if t.lab in reused],
                                       {n: tuple(c) for n, c in cases.items()}, timed_out)
            runnable = [lab for lab in runnable if lab not in reused]
            remaining = deadline - time.time()
            if runnable and remaining <= 1:
                tests += [t.entry("failed", "failed: the submission passed its limit of "
                                            f"{self.limits.submission_s:g} s") for t in self.listed if t.lab in runnable]
            elif runnable:
                limit = min(self.limits.lab_tests_s * len(runnable), remaining)
                cases, timed_out, over = self.run_lab_tests(ws, runnable, limit, jobs)
                missing = f"failed: the tests passed their limit of {limit:g} s" if over else "failed: did not run"
                tests += results.score([t for t in self.listed if t.lab in runnable], cases, timed_out, missing)
                if os.path.exists(os.path.join(ws.out, "junit.xml")):
                    os.makedirs(out, exist_ok=True)
                    shutil.copyfile(os.path.join(ws.out, "junit.xml"), os.path.join(out, "junit.xml"))
                    results.mark_timeouts(os.path.join(out, "junit.xml"), timed_out)
            phases["tests_s"] = time.time() - mark
            order = {lab: i for i, lab in enumerate(self.labs)}
            tests.sort(key=lambda t: order.get(t["tags"][0], len(order)) if t.get("tags") else len(order))
            feedback = [f"{rid}: {regions_mod.describe(o)}" for rid, o in sorted(outcome.items())]
            killed = ws.group.oom_kills() if ws.group else 0
            if killed:
                feedback.append(f"memory: the submission's processes together passed {self.limits.memory_bytes / GiB:g} GiB; "
                                f"the kernel ended {killed} of them")
            if watch and watch.kills:
                feedback.append(f"memory: the submission's processes together passed {self.limits.memory_bytes / GiB:g} GiB; "
                                f"the grader stopped them ({watch.kills} time(s))")
            if self.run_regex() is not None:
                feedback.append("run: the tests that grade a task or gate a lab; the smoke and compute-sanitizer "
                                "runs earn nothing and were not run (the grader's --all-tests runs them)")
            if reused:
                feedback.append(f"left as handed out (the handout's results, not run again): {', '.join(reused)}")
            data = results.results_json(tests, self.points, time.time() - start,
                                        {"not_compiling": sorted(broken), "regions": outcome, "reused": reused,
                                         "test_seed": self.test_seed, "all_tests": self.run_regex() is None,
                                         "phases": {k: round(v, 1) for k, v in phases.items()}})
            if self.measure:
                built = [lab for lab in self.labs if lab not in broken]
                with self.gpu_use(alone=True):  # timed runs: no other submission's tests on the GPU meanwhile
                    data["extra_data"]["leaderboard"] = leaderboard.measure(ws, built, data["extra_data"]["tasks"], deadline)
            data["output"] = "\n".join(feedback + [data["output"]])
            os.makedirs(out, exist_ok=True)
            with open(os.path.join(out, "results.json"), "w") as f:
                json.dump(data, f, indent=2)
            return data, broken, outcome
        finally:
            stack.close()
            if box and box.lease:
                left = reap_uid(box.uid)  # nothing the submission started outlives its grading
                if left:
                    self.log(f"grade_submission: processes {', '.join(map(str, left))} of sandbox uid {box.uid} would not end")
            if ws.group:
                ws.group.remove()
                self.made_groups.remove(ws.group)
            if self.keep:
                self.log(f"grade_submission: work folder kept: {scratch}")
            elif not remove_tree(scratch):
                self.log(f"grade_submission: could not remove the work folder {scratch}")

    def cleanup(self):
        """Everything the grader made goes: the base's uid lease (its processes reaped first),
        every memory group, the work folder. Returns "" or what is left behind."""
        processes = self.box.close() if self.box else ""
        for group in list(self.made_groups):  # the base's too when it failed to build
            group.remove()
        if self.keep or remove_tree(self.work):
            return processes
        left = []
        for dirpath, dirs, files in os.walk(self.work):
            left += [os.path.join(dirpath, n) for n in dirs + files]
        return "; ".join(filter(None, [processes, f"{self.work} ({len(left)} entries left, first: {', '.join(sorted(left)[:5])})"]))


class SlotPool:
    """The GPU slots of a batch: `per_gpu` submissions at a time on each of `gpus` GPUs. slot()
    hands out the GPU with the fewest submissions on it (the lowest number among equals) and
    takes it back when the grading ends, however it ends."""

    def __init__(self, gpus, per_gpu):
        self.gpus, self.per_gpu = gpus, per_gpu
        self.busy = [0] * gpus
        self.cond = threading.Condition()

    @contextlib.contextmanager
    def slot(self):
        with self.cond:
            while min(self.busy) >= self.per_gpu:
                self.cond.wait()
            gpu = self.busy.index(min(self.busy))
            self.busy[gpu] += 1
        try:
            yield gpu
        finally:
            with self.cond:
                self.busy[gpu] -= 1
                self.cond.notify_all()


def safe_name(entry, used):
    """A results-folder name for a batch entry: its base name without the archive suffix, with only
    [A-Za-z0-9._-], never '.', '..' or a name taken before."""
    name = entry
    for ext in (".tar.gz", ".tgz", ".tar", ".zip"):
        if name.endswith(ext):
            name = name[: -len(ext)]
            break
    name = NAME_OK.sub("_", name).lstrip(".") or "submission"
    if name in used:
        name = NAME_OK.sub("_", entry).lstrip(".") or "submission"
    base, k = name, 2
    while name in used:
        name, k = f"{base}-{k}", k + 1
    used.add(name)
    return name


class Summary:
    """summary.csv, written row by row with the csv module (a name with a comma stays one cell)."""

    FIELDS = ["submission", "score", "max_score", "status", "not_compiling", "regions_rejected", "seconds"]

    def __init__(self, path):
        self.path = path
        self.lock = threading.Lock()
        with open(path, "w", newline="") as f:
            csv.writer(f).writerow(self.FIELDS)

    def add(self, row):
        with self.lock, open(self.path, "a", newline="") as f:
            csv.writer(f).writerow([row.get(k, "") for k in self.FIELDS])

    def finish(self):
        """Rewrites the file with its rows in submission order (they were written as each
        finished; with several graded at once that is not the order of the folder)."""
        with self.lock:
            with open(self.path, newline="") as f:
                rows = list(csv.reader(f))
            tmp = self.path + ".sorted"
            with open(tmp, "w", newline="") as f:
                csv.writer(f).writerows(rows[:1] + sorted(rows[1:], key=lambda r: r[0]))
            os.replace(tmp, self.path)
