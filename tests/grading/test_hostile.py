#!/usr/bin/env python3
"""The grader against hostile submissions (docs/grading-security.md), on the CPU:
  - region bodies that try to leave their function, the harness or the sandbox are refused;
  - archives and folders that are corrupt, encrypted, oversized, linked outside or full of
    Finder litter are read safely (or called unreadable, for that submission only);
  - the sandbox hides the suite, writes nowhere but its scratch folder, has no network, ends
    every process it started, and holds its limits on time, memory, file size, processes, disk;
  - a batch of hostile submissions and the handout, graded end to end in sandboxes: none earns a
    point on a task, a never-ending one only times out its own tests, and summary.csv survives a
    submission named like it.
Exit 77 (reported by ctest as skipped) where no sandbox can start; CUDALAB_REQUIRE_SANDBOX=1 makes
that a failure instead. Builds use one GPU architecture (CUDALAB_HANDOUT_ARCH, default 75-real).
"""
import csv
import fnmatch
import glob
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
import unittest
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
from cudalab.labgrade import baselines, ctest, grader, regions, submission, suite, symbols  # noqa: E402
from cudalab.labgrade import leaderboard, sandbox as sandbox_mod  # noqa: E402
from cudalab.labgrade.sandbox import BUILD, Limits, MemoryGroup, MemoryWatch, Sandbox, UidLease, blocked_folder  # noqa: E402
import hostile  # noqa: E402
import shared_base  # noqa: E402
from cudalab import lab_manifest  # noqa: E402

ARCH = os.environ.get("CUDALAB_HANDOUT_ARCH", "75-real")
JOBS = str(os.cpu_count() or 2)
WANTED = ["labs/vec_add/vec_add.cu", "labs/device_query/device_query.cu"]


class RegionBodies(unittest.TestCase):
    def test_every_rejected_attack_is_refused_with_a_reason(self):
        for name, ((_, _), body, expect) in hostile.ATTACKS.items():
            problems = regions.check_body(body.split("\n"))
            if expect == "rejected":
                self.assertTrue(problems, name)
            else:
                self.assertEqual(problems, [], name)

    def test_every_solution_is_accepted(self):
        for rs in suite.find_regions().values():
            for r in rs:
                self.assertEqual(regions.check_body(r.solution, r.id), [], r.id)

    def test_a_region_may_not_call_the_suites_own_answer(self):
        # exercise 74 is graded against common/occupancy_calc's compute(): a body that calls it
        # does none of the work, however it spells the call; other regions may use the name
        body = ["  const auto c = cudalab::occupancy::compute(gpu, k);", "  r.resident_blocks = c.resident_blocks;"]
        self.assertTrue(any("compute" in p for p in regions.check_body(body, "occupancy.calculator")))
        aliased = ["  const auto f = &occ::compute;", "  r.resident_blocks = f(gpu, k).resident_blocks;"]
        self.assertTrue(regions.check_body(aliased, "occupancy.calculator"))
        self.assertEqual(regions.check_body(body, "vec_add.naive"), [])
        self.assertEqual(regions.check_body(["  r.compute = 1;"], "occupancy.calculator"), [])  # a member

    def test_a_region_may_not_call_a_library_that_solves_its_task(self):
        # scan, reduction and histogram include CUB for their yardstick, so a body there could
        # call it without an #include; the same for the algorithms that do a reduction or scan
        cheats = {
            "reduction.smem": ["  using R = cub::BlockReduce<T, 256>;", "  __shared__ typename R::TempStorage t;",
                               "  const T s = R(t).Sum(in[blockIdx.x * 256 + threadIdx.x]);"],
            "reduction.warp_shuffle": ["  T v = cg::reduce(warp, x, cg::plus<T>());"],
            "scan.kogge_stone": ["  incl = cooperative_groups::inclusive_scan(tile, x);"],
            "scan.brent_kung": ["  thrust::exclusive_scan(thrust::device, s, s + 2 * B, s);"],
            "histogram.shared_private": ["  cub::BlockHistogram<int, 256, 4, 256> h(tmp);"],
            "sort.radix_count": ["  cub::BlockRadixRank<256, 4, false> r;"],
            "sort.bitonic_pairs": ["  thrust::sort(thrust::device, s, s + 2048);"],
            "matmul.smem_tile": ["  nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 8, float> acc;"],
            "hello.vec_add_raw": ["  cublasSaxpy(h, n, &one, x, 1, y, 1);"],
            "occupancy.calculator": ["  r.resident_blocks = std::accumulate(v.begin(), v.end(), 0);"],
            "device_query.residency": ["  const auto c = cudalab::occupancy::compute(gpu, k);"],
            "transfers.issue_chunk": ["  end_to_end_ms(p.a, p.b, p.c, p.d_a, p.d_b, p.d_c, p.n);"],
            "mem_spaces.warp_atomic": ["  const int s = __reduce_add_sync(0xffffffffu, v);"],
            "reduction.single_pass": ["  v = __reduce_add_sync(0xffffffffu, v);"],
        }
        for rid, body in cheats.items():
            self.assertTrue(regions.check_body(body, rid), rid)
        # the same words as members, or the warp intrinsic outside the labs that teach its loop
        self.assertEqual(regions.check_body(["  x.cub = t.reduce;", "  p->cublas_handle = 0;"], "reduction.smem"), [])
        self.assertEqual(regions.check_body(["  const int s = __reduce_add_sync(0xffffffffu, v);"], "vec_add.naive"), [])
        self.assertEqual(regions.check_body(["  end_to_end_ms(0);"], "vec_add.naive"), [])

    def test_every_task_has_a_baseline_the_region_check_takes(self):
        # scripts/grade_baseline.py grades these on a GPU (each must score 0); here: one of each
        # kind per task, or None with the reason in baselines.py, and none refused before it is
        # compiled (a refused body would score 0 without testing the tests)
        with open(os.path.join(ROOT, "grading", "points.json")) as f:
            tasks = set(json.load(f)["tasks"])
        self.assertEqual(set(baselines.BODIES), tasks)
        for kind in baselines.ALL_KINDS:
            chosen = baselines.bodies(kind)
            # the three kinds cover every task (one may be its own answer); an extra kind, some
            self.assertGreaterEqual(len(chosen), len(tasks) - 1 if kind in baselines.KINDS else 1, kind)
            self.assertLessEqual(set(chosen), tasks, kind)
            for rid, body in chosen.items():
                self.assertEqual(regions.check_body(body, rid), [], (rid, kind))

    def test_the_check_is_linear_in_the_length_of_a_body(self):
        body = ["  (void)(1" + "'1" * 120000 + ");"]  # 240 kB on one line, under the size bound
        start = time.time()
        self.assertEqual(regions.check_body(body), [])
        self.assertLess(time.time() - start, 5)

    def test_lines_end_where_the_compiler_ends_them(self):
        pristine = "int f() {\n  // STUDENT-BEGIN(x.a): t\n  // TASK: t\n  return 0;\n  // STUDENT-END(x.a)\n}\n"
        rs = regions.parse("f.cpp", pristine)
        for eol in ("\r", "\r\n"):
            sneaky = pristine.replace("return 0;", f"// a comment{eol}  return 1;{eol}}}{eol}int evil() {{")
            text, outcome = regions.splice(pristine, rs, sneaky, "f.cpp")
            self.assertEqual(outcome["x.a"]["outcome"], "rejected", (eol, outcome))
            self.assertEqual(text, pristine)
        windows = pristine.replace("\n", "\r\n").replace("return 0;", "return 2;")  # an honest CR LF file
        text, outcome = regions.splice(pristine, rs, windows, "f.cpp")
        self.assertEqual(outcome, {"x.a": {"outcome": "taken", "why": None}})
        self.assertIn("return 2;", text)
        self.assertNotIn("\r", text)

    def test_splice_takes_only_region_bodies(self):
        pristine = "int f() {\n  // STUDENT-BEGIN(x.a): t\n  // TASK: t\n  // HINT: h\n  return 0;\n  // STUDENT-END(x.a)\n}\n"
        rs = regions.parse("f.cpp", pristine)
        student = pristine.replace("return 0;", "return 42;").replace("int f()", "int f_renamed()") + "int extra;\n"
        text, outcome = regions.splice(pristine, rs, student, "f.cpp")
        self.assertEqual(outcome, {"x.a": {"outcome": "taken", "why": None}})
        self.assertIn("return 42;", text)
        self.assertIn("int f() {", text)          # outside the region: the pristine file's
        self.assertNotIn("extra", text)
        bad = pristine.replace("return 0;", "return 0;\n}\nint g() {")
        text, outcome = regions.splice(pristine, rs, bad, "f.cpp")
        self.assertEqual(outcome["x.a"]["outcome"], "rejected", outcome)
        self.assertIn("closes a bracket the region did not open", outcome["x.a"]["why"])
        self.assertEqual(text, pristine)
        text, outcome = regions.splice(pristine, rs, "no markers at all", "f.cpp")
        self.assertEqual(outcome["x.a"], {"outcome": "not_taken", "why": "the region is missing from the submitted file"})
        self.assertEqual(regions.describe(outcome["x.a"]), "not taken: the region is missing from the submitted file")

    def test_an_outcome_is_a_field_with_its_reason(self):
        self.assertEqual(regions.outcome("taken"), {"outcome": "taken", "why": None})
        self.assertEqual(regions.describe(regions.outcome("rejected", "line 3: 'exit'")), "rejected: line 3: 'exit'")
        for bad in (("taken", "why"), ("rejected", None), ("not_taken", None), ("rejected: x", "y")):
            with self.assertRaises(ValueError, msg=bad):
                regions.outcome(*bad)


BASE_OBJECT = """
#include <cstdio>
namespace cudalab { template <typename T> bool check_exact(const T* a, const T* b, int n) {
  for (int i = 0; i < n; ++i) if (a[i] != b[i]) return false; return true; } }
template <typename T> T twice(T x) { return x + x; }
int student_function(int n) { return twice(n); }
"""


class CompiledObjects(unittest.TestCase):
    """The allow-list on what was compiled (labgrade/symbols.py), on objects g++ builds here: the
    definitions and calls a hostile region would need are refused, whatever the source looked like."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="hostile_objects_")
        cls.base = cls.table(BASE_OBJECT)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    @classmethod
    def table(cls, source):
        src, obj = os.path.join(cls.tmp, "f.cpp"), os.path.join(cls.tmp, f"f{len(source)}.o")
        with open(src, "w") as f:
            f.write(source)
        subprocess.run([os.environ.get("CXX", "c++"), "-std=c++17", "-O2", "-c", src, "-o", obj], check=True)
        nm = subprocess.run(["nm", "-P", obj], capture_output=True, text=True, check=True).stdout
        with open(obj, "rb") as f:
            return symbols.parse_nm(nm), f.read()

    def problems(self, source):
        mine, mine_bytes = self.table(source)
        names = sorted(set(mine) | set(self.base[0]))
        readable = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True).stdout.split("\n")
        table = dict(zip(names, readable))
        return symbols.check(mine, self.base[0], lambda n: table.get(n, n), mine_bytes, self.base[1])

    def test_the_base_and_an_honest_body_pass(self):
        self.assertEqual(self.problems(BASE_OBJECT), [])
        honest = BASE_OBJECT.replace("return twice(n);", "int s = 0; for (int i = 0; i < n; ++i) s += twice(i) * 2; "
                                     "static int calls = 0; ++calls; return s + calls + [](int k) { return k * 3; }(n);")
        self.assertEqual(self.problems(honest), [])

    def test_definitions_a_region_cannot_have_made(self):
        cases = {
            "a libc function replaced": "extern \"C\" int puts(const char*) { return 0; }",
            "the checker specialised": "namespace cudalab { template <> bool check_exact<float>(const float*, const float*, int)"
                                       " { return true; } }",
            "the checker specialised inline": "namespace cudalab { template <> inline bool check_exact<int>(const int*, "
                                              "const int*, int) { return true; } }\nbool (*keep)(const int*, const int*, int)"
                                              " = cudalab::check_exact<int>;",
            "the timer redefined": "extern \"C\" int cudaEventElapsedTime(float* ms, void*, void*) { *ms = 1; return 0; }",
            "a constructor at namespace scope": "int evil_global = std::puts(\"x\");",
        }
        for what, code in cases.items():
            problems = self.problems(BASE_OBJECT + code + "\n")
            self.assertTrue(problems, what)

    def test_calls_off_the_list_are_refused(self):
        # glibc inlines fputc_unlocked: what is left to refuse is the FILE it writes to (stdout)
        for call in ("std::puts(\"[       OK ] X\");", "std::fflush(nullptr);", "::fputc_unlocked('x', stdout);",
                     "struct Late { ~Late() { std::fputs(\"[  PASSED  ]\", nullptr); } }; static Late late; (void)late;"):
            source = BASE_OBJECT.replace("return twice(n);", call + " return twice(n);")
            problems = self.problems(source)
            self.assertTrue(any("refers to" in p for p in problems), (call, problems))

    def test_device_code_may_not_print(self):
        base = {"_Z1fv": "T"}
        self.assertEqual(symbols.check(base, base, str, b"...code...", b"...code..."), [])
        self.assertTrue(symbols.check(base, base, str, b"..vprintf..", b"...code..."))
        self.assertTrue(symbols.check(base, base, str, b"__assertfail", b"...code..."))
        self.assertEqual(symbols.check(base, base, str, b"..vprintf..", b"..vprintf.."), [])  # the lab's own (hello)


class Archives(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="hostile_archives_")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def path(self, name):
        return os.path.join(self.tmp, name)

    def read(self, name):
        with open(self.path(name), "rb") as f:
            return f.read()

    def write(self, name, data):
        with open(self.path(name), "wb") as f:
            f.write(data)

    def test_finder_litter_backslashes_and_depth(self):
        with zipfile.ZipFile(self.path("mac.zip"), "w") as z:
            z.writestr("__MACOSX/hw/labs/vec_add/._vec_add.cu", b"resource fork")
            z.writestr("hw/.DS_Store", b"x")
            z.writestr("hw/labs/vec_add/vec_add.cu", b"mine")
            z.writestr("deep\\er\\device_query.cu", b"windows")
        got = submission.read(self.path("mac.zip"), WANTED)
        self.assertEqual(got, {"labs/vec_add/vec_add.cu": b"mine", "labs/device_query/device_query.cu": b"windows"})

    def test_a_name_found_twice_by_its_file_name_alone_is_not_guessed(self):
        with zipfile.ZipFile(self.path("two.zip"), "w") as z:
            z.writestr("a/vec_add.cu", b"1")
            z.writestr("b/vec_add.cu", b"2")
        self.assertEqual(submission.read(self.path("two.zip"), WANTED), {})

    def test_symlinks_are_not_followed(self):
        info = zipfile.ZipInfo("labs/vec_add/vec_add.cu")
        info.external_attr = (0o120777 << 16)  # a symbolic link entry
        with zipfile.ZipFile(self.path("link.zip"), "w") as z:
            z.writestr(info, "/work/main/labs/vec_add/vec_add.cu")
        self.assertEqual(submission.read(self.path("link.zip"), WANTED), {})
        with tarfile.open(self.path("link.tar"), "w") as t:
            m = tarfile.TarInfo("labs/vec_add/vec_add.cu")
            m.type, m.linkname = tarfile.SYMTYPE, os.path.join(ROOT, "labs/vec_add/vec_add.cu")
            t.addfile(m)
        self.assertEqual(submission.read(self.path("link.tar"), WANTED), {})
        folder = self.path("folder")
        os.makedirs(os.path.join(folder, "labs", "vec_add"))
        os.symlink(os.path.join(ROOT, "labs", "vec_add", "vec_add.cu"), os.path.join(folder, "labs", "vec_add", "vec_add.cu"))
        self.assertEqual(submission.read(folder, WANTED), {})

    def test_unreadable_archives(self):
        with zipfile.ZipFile(self.path("enc.zip"), "w") as z:
            z.writestr("labs/vec_add/vec_add.cu", b"secret")
        data = bytearray(self.read("enc.zip"))
        for sig in (b"PK\x03\x04", b"PK\x01\x02"):  # set the 'encrypted' flag in both headers
            i = data.find(sig)
            off = 6 if sig == b"PK\x03\x04" else 8
            data[i + off] |= 1
        self.write("enc.zip", bytes(data))
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w:gz") as t:
            payload = os.urandom(200000)
            m = tarfile.TarInfo("labs/vec_add/vec_add.cu")
            m.size = len(payload)
            t.addfile(m, io.BytesIO(payload))
        self.write("trunc.tar.gz", buf.getvalue()[: len(buf.getvalue()) // 2])
        with zipfile.ZipFile(self.path("deflate.zip"), "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("labs/vec_add/vec_add.cu", b"int x;\n" * 5000)
        data = bytearray(self.read("deflate.zip"))
        for k in range(60, 120):
            data[k] ^= 0x5A  # corrupt the compressed stream
        self.write("deflate.zip", bytes(data))
        with zipfile.ZipFile(self.path("bomb.zip"), "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("labs/vec_add/vec_add.cu", b"\0" * (64 << 20))  # 64 MB of zeros, 64 KB zipped
        self.write("text.zip", b"not an archive")
        for name in ("enc.zip", "trunc.tar.gz", "deflate.zip", "bomb.zip", "text.zip"):
            with self.assertRaises(submission.Unreadable, msg=name):
                submission.read(self.path(name), WANTED)


class SandboxWalls(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="hostile_sandbox_")
        os.chmod(cls.tmp, 0o711)
        cls.secret = os.path.join(cls.tmp, "results")
        os.makedirs(cls.secret)
        limits = Limits(cpu_s=20, memory_bytes=512 << 20, file_bytes=1 << 20, processes=64, disk_bytes=8 << 20)
        cls.box, why = Sandbox.find(hidden=[ROOT, cls.secret], limits=limits)
        assert cls.box, why
        cls.build = os.path.join(cls.tmp, "build")
        os.makedirs(cls.build)
        cls.box.prepare_writable(cls.build)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def run_in(self, script, timeout=30, watch=None, group=None):
        cmd = self.box.command(["python3", "-c", script], build=self.build)
        preexec = self.box.preexec if not group else (lambda: (group.join(), self.box.preexec()))
        return ctest.run_bounded(cmd, timeout, preexec_fn=preexec, watch=watch)

    def test_a_tree_the_submission_uid_cannot_reach_is_refused_with_the_folder(self):
        # a grading folder under a 0700 folder (mktemp -d, a private home): the sandbox's uid cannot
        # pass through it, and bubblewrap would fail later with a bare "Permission denied"
        if not self.box.drop_to_nobody:
            self.skipTest("the sandbox runs as this user: every folder it can enter, the grader can")
        closed = os.path.join(self.tmp, "closed")
        os.makedirs(closed)
        os.chmod(closed, 0o700)
        os.makedirs(os.path.join(closed, "work"))
        g = grader.Grader({}, [], self.box, 1, Limits(), work=os.path.join(closed, "work"))
        ws = grader.Workspace(os.path.join(g.work, "base"), self.box)
        with self.assertRaises(grader.GradingError) as caught:
            g.make_tree(ws)
        self.assertIn(f"{closed} is mode 0700", str(caught.exception))
        self.assertFalse(os.path.exists(ws.src))  # refused before anything was written
        os.chmod(closed, 0o711)
        self.assertIsNone(blocked_folder(ws.root, self.box.uid))

    def test_a_memory_group_bounds_the_processes_together(self):
        # three processes of 64 MiB each: under the per-process limit (512 MiB) all three live;
        # in a group of 96 MiB for the whole sandbox the kernel ends at least one
        script = ("import os, time\nkids = []\nfor k in range(3):\n    pid = os.fork()\n    if pid == 0:\n"
                  "        b = b'x' * (64 << 20)\n        time.sleep(2)\n        os._exit(0)\n    kids.append(pid)\n"
                  "codes = [os.waitpid(p, 0)[1] for p in kids]\nprint('killed', sum(os.WIFSIGNALED(c) for c in codes))\n")
        alone = self.run_in(script, timeout=30)
        self.assertEqual(alone.stdout.split(), ["killed", "0"], alone.stderr)
        group, why = MemoryGroup.create(f"labgrade-test-{os.getpid()}", 96 << 20)
        if not group:
            self.skipTest(f"no memory group on this host: {why}")
        try:
            together = self.run_in(script, timeout=30, group=group)
            self.assertGreaterEqual(group.oom_kills(), 1, together.stdout + together.stderr)
            self.assertNotEqual(together.stdout.split(), ["killed", "0"])
        finally:
            group.remove()
        self.assertFalse(os.path.exists(group.path))

    def test_a_memory_watch_stops_a_submission_and_not_its_neighbour(self):
        # where no control group bounds a submission (the H200 host), the grader adds up the
        # resident memory of its uid's processes: three processes of 100 MB each, under the
        # per-process limit, pass a 200 MB watch together; the neighbour of its own uid lives on
        if not self.box.lease:
            self.skipTest(f"the watch needs a uid per submission ({self.box.mode})")
        hog = ("import os, time\nfor k in range(2):\n    if os.fork() == 0:\n        break\n"
               "b = bytearray(100 << 20)\nfor i in range(0, len(b), 4096): b[i] = 1\ntime.sleep(20)\nprint('survived')")
        neighbour = "b = bytearray(150 << 20)\nfor i in range(0, len(b), 4096): b[i] = 1\nimport time; time.sleep(3); print('ok')"
        with self.box.own_uid() as a, self.box.own_uid() as b:
            a.prepare_writable(self.build)
            with MemoryWatch(a.uid, 200 << 20) as watch:
                started = time.time()
                other = subprocess.Popen(b.command(["python3", "-c", neighbour], build=self.build), preexec_fn=b.preexec,
                                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                r = ctest.run_bounded(a.command(["python3", "-c", hog], build=self.build), 60, preexec_fn=a.preexec)
                out, err = other.communicate(timeout=60)
            self.assertGreaterEqual(watch.kills, 1)
            self.assertNotIn("survived", r.stdout)
            self.assertLess(time.time() - started, 15)  # stopped, not timed out
            self.assertEqual(out.split(), ["ok"], err)
        self.box.prepare_writable(self.build)

    def test_the_suite_and_results_are_not_visible(self):
        r = self.run_in(f"import os; print(os.path.exists({os.path.join(ROOT, 'labs')!r}), "
                        f"os.path.exists({self.secret!r}) and os.listdir({self.secret!r}))")
        self.assertEqual(r.stdout.split(), ["False", "False"], r.stderr)

    def test_writes_stay_in_the_scratch_folder(self):
        r = self.run_in("import os\n"
                        "for p in ['/usr/owned', '/etc/owned', '/grade/owned']:\n"
                        "    try:\n        open(p, 'w'); print('wrote', p)\n"
                        "    except OSError as e: print('refused', e.errno)\n"
                        f"open('{BUILD}/mine', 'w').write('ok')")
        self.assertNotIn("wrote", r.stdout, r.stderr)
        self.assertTrue(os.path.exists(os.path.join(self.build, "mine")), r.stderr)

    def test_no_network(self):
        r = self.run_in("import socket\ns = socket.socket()\ns.settimeout(3)\n"
                        "try:\n    s.connect(('1.1.1.1', 53)); print('connected')\n"
                        "except OSError as e: print('refused', e.errno)")
        self.assertIn("refused", r.stdout, r.stderr)

    def test_no_process_outlives_the_sandbox(self):
        marker = f"sleep {700 + os.getpid() % 97}"
        r = self.run_in(f"import subprocess, os; subprocess.Popen(['sh', '-c', 'exec {marker}'], start_new_session=True); print('left')")
        self.assertIn("left", r.stdout, r.stderr)
        time.sleep(1)
        ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
        self.assertNotIn(marker, ps)

    def test_a_fork_bomb_does_not_reach_a_submission_beside_it(self):
        # RLIMIT_NPROC counts the processes of a uid on the whole host: two submissions graded
        # side by side must not share one, or one's fork bomb stops the other's compiler
        if not self.box.lease:
            self.skipTest(f"the sandbox does not drop to a uid of its own here ({self.box.mode})")
        bomb = ("import os, time\nn = 0\ntry:\n    while n < 500:\n        if os.fork() == 0:\n"
                "            time.sleep(8)\n            os._exit(0)\n        n += 1\n"
                "except OSError:\n    print('bomb stopped at', n, flush=True)\ntime.sleep(8)")
        neighbour = ("import os\nkids = []\nfor k in range(20):\n    pid = os.fork()\n    if pid == 0:\n"
                     "        os._exit(0)\n    kids.append(pid)\nfor p in kids: os.waitpid(p, 0)\n"
                     "print('uid', os.getuid(), 'forked', len(kids))")
        with self.box.own_uid() as a, self.box.own_uid() as b:
            self.assertNotEqual(a.uid, b.uid)
            self.assertNotIn(self.box.uid, (a.uid, b.uid))
            a.prepare_writable(self.build)
            started = subprocess.Popen(a.command(["python3", "-c", bomb], build=self.build), preexec_fn=a.preexec,
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            try:
                self.assertIn("bomb stopped at", started.stdout.readline())  # a's processes are at its limit now
                r = ctest.run_bounded(b.command(["python3", "-c", neighbour], build=self.build), 30, preexec_fn=b.preexec)
                self.assertEqual(r.stdout.split(), ["uid", str(b.uid), "forked", "20"], r.stderr)
            finally:
                started.kill()
                started.communicate()  # reaps it and closes its pipes
        self.box.prepare_writable(self.build)

    def test_uid_leases_are_exclusive_and_skip_uids_in_use(self):
        if os.geteuid() != 0:
            self.skipTest("uid leases are for a grader running as root")
        base = 0x7A7A0000
        folder = tempfile.mkdtemp(prefix="hostile_leases_")
        sleeper = subprocess.Popen(["sleep", "30"], preexec_fn=lambda: (os.setgid(base), os.setuid(base)))
        try:
            os.chmod(folder, 0o700)
            time.sleep(0.2)
            first = UidLease.claim(base=base, count=3, folder=folder)  # base runs `sleep`: skipped
            second = UidLease.claim(base=base, count=3, folder=folder)
            self.assertEqual((first.uid, second.uid), (base + 1, base + 2))
            with self.assertRaises(OSError):
                UidLease.claim(base=base, count=3, folder=folder)
            first.release()
            self.assertEqual(UidLease.claim(base=base, count=3, folder=folder).uid, base + 1)
            second.release()
            os.chmod(folder, 0o733)  # a folder others may write to is refused
            with self.assertRaises(OSError):
                UidLease.claim(base=base + 10, count=1, folder=folder)
        finally:
            sleeper.kill()
            sleeper.wait()
            shutil.rmtree(folder, ignore_errors=True)

    def test_a_uid_goes_back_with_no_zombie_of_it_left(self):
        """A sandbox's process that was killed but never waited for (subprocess.run leaves its
        child so when an interrupt stops it) is a zombie of the grader's: it still runs as the uid
        until the grader reaps it. reap_uid reaps it, at once, instead of waiting its 10 s and
        giving the uid back with the zombie still on it."""
        if os.geteuid() != 0:
            self.skipTest("uid leases are for a grader running as root")
        uid = 0x7A7A0100
        child = subprocess.Popen(["sleep", "30"], preexec_fn=lambda: (os.setgid(uid), os.setuid(uid)))
        os.kill(child.pid, signal.SIGKILL)
        deadline = time.time() + 10
        while sandbox_mod._parent_and_state(child.pid)[1] != "Z" and time.time() < deadline:
            time.sleep(0.02)
        self.assertEqual(sandbox_mod._parent_and_state(child.pid), (os.getpid(), "Z"))
        self.assertIn(uid, sandbox_mod._uids_in_use())
        start = time.time()
        self.assertEqual(sandbox_mod.reap_uid(uid, timeout_s=5), [])
        self.assertLess(time.time() - start, 2)
        self.assertNotIn(uid, sandbox_mod._uids_in_use())
        self.assertEqual(sandbox_mod._parent_and_state(child.pid), (None, None))
        child.wait()  # its Popen finds it reaped already, and does not raise

    def test_an_interrupt_while_probing_gives_the_uid_back_with_nothing_on_it(self):
        """Sandbox.find's probe runs as the uid it leased; an interrupt there (subprocess.run then
        kills the probe and returns without waiting for it) gives that uid back, reaped."""
        if os.geteuid() != 0:
            self.skipTest("uid leases are for a grader running as root")
        import types
        base, started = 0x7A7A0200, []

        def interrupted_run(cmd, preexec_fn=None, **kwargs):
            started.append(subprocess.Popen(["sleep", "30"], preexec_fn=preexec_fn))  # as the leased uid
            os.kill(started[-1].pid, signal.SIGKILL)  # subprocess.run's way out of a KeyboardInterrupt
            raise KeyboardInterrupt
        saved = sandbox_mod.UID_BASE, sandbox_mod.UID_COUNT, sandbox_mod.subprocess
        sandbox_mod.UID_BASE, sandbox_mod.UID_COUNT = base, 4
        sandbox_mod.subprocess = types.SimpleNamespace(run=interrupted_run, SubprocessError=subprocess.SubprocessError)
        try:
            with self.assertRaises(KeyboardInterrupt):
                Sandbox.find()
        finally:
            sandbox_mod.UID_BASE, sandbox_mod.UID_COUNT, sandbox_mod.subprocess = saved
        self.assertEqual(len(started), 1)
        self.assertEqual({base + i for i in range(4)} & sandbox_mod._uids_in_use(), set())
        lease = UidLease.claim(base=base, count=4)
        self.assertEqual(lease.uid, base)  # given back: the first of the pool again
        lease.release()
        started[0].wait()

    def test_limits(self):
        r = self.run_in("b = bytearray(1 << 30)")  # 1 GiB against 512 MiB
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("MemoryError", r.stderr)
        r = self.run_in(f"open('{BUILD}/big', 'wb').write(b'x' * (4 << 20))")  # 4 MiB against 1 MiB
        self.assertNotEqual(r.returncode, 0)
        r = self.run_in("import os, time\nn = 0\ntry:\n    while n < 500:\n        if os.fork() == 0:\n"
                        "            time.sleep(5)\n            os._exit(0)\n        n += 1\n"
                        "except OSError:\n    print('stopped at', n)")
        self.assertIn("stopped at", r.stdout, r.stderr)
        start = time.time()
        r = self.run_in("while True: pass", timeout=3)
        self.assertTrue(r.timed_out)
        self.assertLess(time.time() - start, 10)
        r = self.run_in(f"import os\nfor k in range(100): open(f'{BUILD}/f{{k}}', 'wb').write(b'x' * 1000000)\n"
                        "import time; time.sleep(30)", timeout=60, watch=(self.build, 8 << 20))
        self.assertTrue(r.over_disk, r.stderr)


class Bounds(unittest.TestCase):
    """The grader's limits fit the host it runs on: memory, devices, time (docs/grading-security.md)."""

    def test_memory_defaults_come_from_the_host_and_limits_past_it_are_refused(self):
        reserve, share = sandbox_mod.memory_budget(24 * sandbox_mod.GiB, 1)
        self.assertEqual(reserve, 4 * sandbox_mod.GiB)                 # 15% of 24 GiB is less than 4
        self.assertEqual(share, 20 * sandbox_mod.GiB)
        reserve, share = sandbox_mod.memory_budget(128 * sandbox_mod.GiB, 4)
        self.assertEqual(reserve, int(0.15 * 128 * sandbox_mod.GiB))
        self.assertAlmostEqual(4 * share + reserve, 128 * sandbox_mod.GiB, delta=4)
        host = sandbox_mod.host_memory_bytes()
        self.assertGreater(host, 0)
        grade = os.path.join(ROOT, "scripts", "grade_submission.py")
        for bad in (["--memory-gib", str(2 * host / sandbox_mod.GiB)],
                    ["--submission-memory-gib", str(host / sandbox_mod.GiB)],
                    ["--batch", "--per-gpu", "4", "--submission-memory-gib", str(0.3 * host / sandbox_mod.GiB)]):
            run = subprocess.run([sys.executable, grade, ROOT] + bad, capture_output=True, text=True, timeout=60)
            self.assertEqual(run.returncode, 2, (bad, run.stderr))
            self.assertEqual(len(run.stderr.strip().splitlines()), 1, run.stderr)
            self.assertIn("this host has", run.stderr)

    def test_a_gpu_slot_sees_only_its_own_gpu(self):
        dev = tempfile.mkdtemp(prefix="hostile_dev_")
        try:
            names = ["nvidia0", "nvidia1", "nvidia2", "nvidia3", "nvidiactl", "nvidia-uvm", "nvidia-uvm-tools",
                     "nvidia-modeset", "nvidia-caps"]
            for n in names:
                open(os.path.join(dev, n), "w").close()
            # minors in PCI order need not be 0, 1, 2, 3: slot 1 is the GPU whose node is nvidia3
            table = [(2, "GPU-aaaa"), (3, "GPU-bbbb"), (0, "GPU-cccc"), (1, "GPU-dddd")]
            nodes = [os.path.basename(p) for p in sandbox_mod.gpu_device_nodes(1, dev=dev, table=table)]
            self.assertEqual(sorted(nodes), ["nvidia-caps", "nvidia-modeset", "nvidia-uvm", "nvidia-uvm-tools", "nvidia3",
                                             "nvidiactl"])
            self.assertEqual(len(sandbox_mod.gpu_device_nodes(None, dev=dev, table=table)), len(names))  # no slot: all
            self.assertNotIn("nvidia0", [os.path.basename(p) for p in sandbox_mod.gpu_device_nodes(7, dev=dev, table=table)])
            # the bubblewrap command line of a submission given slot 1: only its node, its GPU by UUID
            real_nodes, real_table = sandbox_mod.gpu_device_nodes, sandbox_mod.gpu_table
            sandbox_mod.gpu_device_nodes = lambda gpu=None: real_nodes(gpu, dev=dev, table=table)
            sandbox_mod.gpu_table = lambda: table
            try:
                box = Sandbox("bwrap", False)
                cmd = box.command(["true"], build="/tmp", env={"CUDA_VISIBLE_DEVICES": "1"})
                bound = [cmd[i + 1] for i, a in enumerate(cmd) if a == "--dev-bind"]
                self.assertIn(os.path.join(dev, "nvidia3"), bound)
                self.assertFalse([b for b in bound if b.endswith(("nvidia0", "nvidia1", "nvidia2"))], bound)
                env = {cmd[i + 1]: cmd[i + 2] for i, a in enumerate(cmd) if a == "--setenv"}
                self.assertEqual(env["CUDA_VISIBLE_DEVICES"], "GPU-bbbb")
                # the nested sandbox of each test binds what the outer one was given, no more
                self.assertIn("--dev-bind-try", box.launcher_script())
                self.assertNotIn("--dev-bind ", box.launcher_script())
            finally:
                sandbox_mod.gpu_device_nodes, sandbox_mod.gpu_table = real_nodes, real_table
        finally:
            shutil.rmtree(dev, ignore_errors=True)

    def test_the_slot_pool_keeps_k_per_gpu_and_uses_every_gpu(self):
        import threading
        from cudalab.labgrade import grader
        pool = grader.SlotPool(gpus=3, per_gpu=2)
        lock, now, most, used = threading.Lock(), [0, 0, 0], [0, 0, 0], set()
        full = threading.Event()  # set once all 6 slots are held at the same time

        def job(k):
            with pool.slot() as gpu:
                with lock:
                    now[gpu] += 1
                    most[gpu] = max(most[gpu], now[gpu])
                    used.add(gpu)
                    if sum(now) == 6:
                        full.set()
                # the first jobs keep their slots until every slot is taken, however slowly
                # the threads start on a loaded machine (a sleep alone made this test flaky)
                full.wait(timeout=30)
                time.sleep(0.02)
                with lock:
                    now[gpu] -= 1
                if k % 5 == 0:
                    raise RuntimeError("a grading that fails gives its slot back")
        threads = [threading.Thread(target=lambda k=k: self.assertRaises(RuntimeError, job, k) if k % 5 == 0 else job(k))
                   for k in range(30)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(used, {0, 1, 2})
        self.assertEqual(most, [2, 2, 2])
        self.assertEqual(pool.busy, [0, 0, 0])

    def test_a_timed_run_has_the_gpu_alone(self):
        # submissions graded at once share the GPU for their tests; a leaderboard run waits for
        # the tests running now, and tests that come while it waits wait for it
        import threading
        from cudalab.labgrade import grader
        g = grader.Grader({}, [], None, 1, grader.Limits())
        log = []

        def tests(k, delay=0.0):
            time.sleep(delay)
            with g.gpu_use():
                log.append(f"tests {k} start")
                time.sleep(0.15)
                log.append(f"tests {k} end")

        def board():
            time.sleep(0.05)
            with g.gpu_use(alone=True):
                log.append("timed start")
                time.sleep(0.1)
                log.append("timed end")
        threads = [threading.Thread(target=tests, args=(k,)) for k in range(3)]
        threads += [threading.Thread(target=board), threading.Thread(target=tests, args=(9, 0.1))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        g.cleanup()
        timed = log.index("timed start")
        self.assertEqual(sorted(log[:timed]), sorted([f"tests {k} {e}" for k in range(3) for e in ("start", "end")]))
        self.assertEqual(log[timed:], ["timed start", "timed end", "tests 9 start", "tests 9 end"])

    def test_a_slot_reaches_the_command_with_or_without_a_sandbox(self):
        from cudalab.labgrade import grader
        env = {"CUDA_VISIBLE_DEVICES": "1", "CUDA_DEVICE_ORDER": "PCI_BUS_ID"}
        plain = grader.Workspace(tempfile.gettempdir(), None, env)
        r = plain.run(["sh", "-c", "echo $CUDA_VISIBLE_DEVICES $CUDA_DEVICE_ORDER"], 30)
        self.assertEqual(r.stdout.split(), ["1", "PCI_BUS_ID"])  # --unsafe-no-sandbox: set in its own environment
        cmd = Sandbox("bwrap", False).command(["true"], build="/tmp", env=env)
        values = {cmd[i + 1]: cmd[i + 2] for i, a in enumerate(cmd) if a == "--setenv"}
        self.assertEqual(values["CUDA_DEVICE_ORDER"], "PCI_BUS_ID")
        self.assertIn("CUDA_VISIBLE_DEVICES", values)  # the slot, or its GPU's UUID where the host has one

    def test_leaderboard_runs_count_against_the_submission_deadline(self):
        class NeverRun:
            def run(self, *a, **k):
                raise AssertionError("a leaderboard run after the submission's deadline")
        tasks = {"vec_add.naive": {"tests": 1, "passed": 1}}
        self.assertEqual(leaderboard.measure(NeverRun(), ["vec_add"], tasks, deadline=time.time() - 1), {})

    def test_leaderboard_believes_only_what_physics_allows(self):
        data = {"copy_ceiling_gbps": 4000, "peak_gbps": 4800}

        def row(gbps, correct=True, suspect=False, baseline=False):
            return {"gbps": gbps, "correct": correct, "suspect": suspect, "baseline": baseline}
        self.assertTrue(leaderboard.believable(row(4100), data))
        self.assertFalse(leaderboard.believable(row(4500), data))                 # 1.125 x copy
        self.assertFalse(leaderboard.believable(row(4100, suspect=True), data))
        self.assertFalse(leaderboard.believable(row(1000, correct=False), data))
        self.assertFalse(leaderboard.believable(row(1000, baseline=True), data))  # CUB is no submission's kernel
        self.assertFalse(leaderboard.believable(row(1000, correct="yes"), data))  # a verdict is a boolean
        self.assertFalse(leaderboard.believable({"gbps": 1000, "correct": True}, data))  # no suspect field: no rank
        self.assertFalse(leaderboard.believable(row("fast"), data))
        self.assertFalse(leaderboard.believable(row(None), data))                 # a wrong row's null speed
        self.assertFalse(leaderboard.believable(row(5000), {"copy_ceiling_gbps": 5000, "peak_gbps": 4800}))
        self.assertFalse(leaderboard.believable(row(1000), {"copy_gbps": 5000}))  # the old key: not a report of this schema

    def test_leaderboard_sizes_are_drawn_per_run_from_the_manifest(self):
        runs = lab_manifest.leaderboard_runs()
        self.assertEqual(sorted(runs), ["histogram", "matmul", "reduction", "rgba_split", "scan", "vec_add"])
        spec, tasks = runs["vec_add"]
        drawn = {leaderboard.draw_args(spec)[0] for _ in range(20)}
        self.assertGreater(len(drawn), 1)  # not the same size every run
        for size in drawn:
            self.assertLessEqual(abs(int(size) - (1 << 26)), 1 << 22)
        self.assertEqual(leaderboard.draw_args(["7", {"around": 10, "spread": 0}]), ["7", "10", "--json"])
        self.assertIn("vec_add.naive", tasks)


# The hostile submissions graded end to end, in two tests side by side: those refused by the
# region check or the allow-list (the others are refused by the same checks: RegionBodies), on
# the shared base; and the one that never ends (HostileLoop), on a base of device_query alone
# with short limits, so that each of its cases that hangs costs little (every one of device_query's
# cases is over in well under a second when it does not hang).
BATCH = ("exit_early", "close_the_function", "lone_cr_closes_the_function", "prints_through_an_unlisted_call")
LOOP = ("host_loop_forever",)
LOOP_ARGS = [shared_base.cmake_args(3, 5, 10), "--jobs", JOBS]


def make_hostile_batch(tmp, names, base_args, handout_too=True, labs=("device_query", "vec_add")):
    """A batch folder under tmp: the handout (handout_too), the hostile submissions `names` of
    device_query (each also adds a test of its own) and an archive named like the summary. Returns
    the grade_submission command that grades it into tmp/out with `base_args` (the shared base's
    grader_args(), or options that build a base of its own)."""
    handout = os.path.join(tmp, "handout")
    gen = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "handout.py"), "--out", handout,
                          "--labs"] + list(labs), capture_output=True, text=True)
    if gen.returncode != 0:
        raise RuntimeError(gen.stderr)
    batch = os.path.join(tmp, "subs")
    os.makedirs(batch)
    if handout_too:
        shutil.copytree(handout, os.path.join(batch, "handout"))
        with zipfile.ZipFile(os.path.join(batch, "summary.csv"), "w") as z:  # named like the summary
            z.writestr("x.txt", "x")
    found = suite.find_regions(handout)
    for name, ((rel, rid), body, _) in list(hostile.ATTACKS.items()) + list(hostile.COMPILED_ATTACKS.items()):
        if name not in names:
            continue
        with open(os.path.join(handout, rel), encoding="utf-8") as f:
            text = f.read()
        text = regions.rewrite(text, found[rel], {rid: body.split("\n")})
        # host code outside the region does the work: never taken
        text = text.replace("ResidencyReport r{};", "ResidencyReport r{}; r.resident_blocks = 8;")
        with zipfile.ZipFile(os.path.join(batch, f"{name}.zip"), "w") as z:
            z.writestr(f"{name}/{rel}", text)
            z.writestr(f"{name}/tests/device_query/extra_test.cpp", "TEST(Added, Passes) {}\n")
    return [sys.executable, os.path.join(ROOT, "scripts", "grade_submission.py"), batch, "--batch",
            "--labs"] + list(labs) + ["--out", os.path.join(tmp, "out")] + base_args


def grade_hostile(test, names, base_args, handout_too=True, labs=("device_query", "vec_add")):
    """Grades the batch; checks what every submission of it must get (no task point, no test of
    its own, the same maximum) and returns ({name: summary row}, out folder)."""
    test.tmp = tmp = tempfile.mkdtemp(prefix="hostile_batch_")
    test.addCleanup(shutil.rmtree, tmp, True)
    run = subprocess.run(make_hostile_batch(tmp, names, base_args, handout_too, labs), capture_output=True, text=True)
    out = os.path.join(tmp, "out")
    test.assertEqual(run.returncode, 0, run.stderr + run.stdout[-3000:])
    with open(os.path.join(out, "summary.csv"), newline="") as f:
        rows = {r["submission"]: r for r in csv.DictReader(f)}
    test.assertEqual(sorted(rows), sorted(list(names) + (["handout", "summary.csv"] if handout_too else [])))
    for name, row in rows.items():
        with open(os.path.join(out, "submissions", name, "results.json")) as f:
            data = json.load(f)
        tasks = data["extra_data"]["tasks"]
        test.assertEqual([t for t, s in tasks.items() if s["score"] > 0], [], name)
        test.assertNotIn("Added.Passes", {t["name"] for t in data["tests"]}, name)
        test.assertEqual(float(row["max_score"]), data["extra_data"]["max_score"], name)
    maxima = {row["max_score"] for row in rows.values()}
    test.assertEqual(len(maxima), 1, maxima)  # the same maximum for every submission
    return rows, out


class HostileBatch(unittest.TestCase):
    def test_batch(self):
        rows, out = grade_hostile(self, BATCH, shared_base.grader_args())
        self.assertEqual(rows["summary.csv"]["status"], "graded")  # no regions in it: the stubs
        self.assertEqual(rows["exit_early"]["regions_rejected"], "device_query.residency")
        self.assertEqual(rows["close_the_function"]["regions_rejected"], "device_query.residency")
        self.assertEqual(rows["lone_cr_closes_the_function"]["regions_rejected"], "device_query.residency")
        # passes the region check, refused on what was compiled, and the feedback names the call
        self.assertEqual(rows["prints_through_an_unlisted_call"]["regions_rejected"], "device_query.residency")
        with open(os.path.join(out, "submissions", "prints_through_an_unlisted_call", "results.json")) as f:
            refused = json.load(f)["extra_data"]["regions"]["device_query.residency"]
        self.assertEqual(refused["outcome"], "rejected")
        self.assertIn("the compiled device_query.cu refers to 'fmt::", refused["why"])
        # a lab left as handed out, or whose regions were all refused, gets the base's results
        # without running again; a submission whose files all splice to the base's text (refused
        # by the region check) is not copied or built either, one refused only on what was
        # compiled was built
        for name in ("handout", "exit_early", "close_the_function", "prints_through_an_unlisted_call"):
            with open(os.path.join(out, "submissions", name, "results.json")) as f:
                extra = json.load(f)["extra_data"]
            self.assertIn("device_query", extra["reused"], name)
            if name == "prints_through_an_unlisted_call":
                self.assertGreater(extra["phases"]["build_s"], 0.0, name)
            else:
                self.assertEqual((extra["phases"]["copy_s"], extra["phases"]["build_s"]), (0.0, 0.0), name)


class HostileLoop(unittest.TestCase):
    def test_a_submission_that_never_ends_times_out_only_the_tests_that_run_it(self):
        rows, out = grade_hostile(self, LOOP, LOOP_ARGS, handout_too=False, labs=("device_query",))
        with open(os.path.join(out, "submissions", "host_loop_forever", "results.json")) as f:
            data = json.load(f)
        self.assertNotIn("device_query", data["extra_data"]["reused"])  # a lab that changed runs
        timed = {t["name"] for t in data["tests"] if t["output"].startswith("failed: timed out")}
        with open(os.path.join(ROOT, "grading", "points.json")) as f:
            residency = json.load(f)["tasks"]["device_query.residency"]["tests"]
        # the residency tests time out; on a GPU also the report of every device
        self.assertTrue([n for n in timed if any(fnmatch.fnmatchcase(n, p) for p in residency)], timed)
        # and only tests that reach the code that loops: --help and the bad arguments, which stop
        # before it, pass as usual, in the same ctest run
        passed = {t["name"] for t in data["tests"] if t["status"] == "passed"}
        self.assertIn("device_query.smoke.help", passed)
        for k in range(5):  # labs/device_query/CMakeLists.txt's BAD_ARGS (a sixth needs a GPU)
            self.assertIn(f"device_query.smoke.bad_args.{k}", passed)
        self.assertEqual(sorted(n for n in timed if n.startswith("device_query.smoke.")), [])


def describe_processes(uids):
    """Each process running as one of `uids`: its pid, parent, state and command line."""
    lines = []
    for pid, (uid, _) in sandbox_mod.processes().items():
        if uid not in uids:
            continue
        try:
            with open(f"/proc/{pid}/status") as f:
                fields = dict(line.rstrip("\n").split(":\t", 1) for line in f if ":\t" in line)
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                args = f.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()
        except OSError:
            continue
        lines.append(f"pid {pid} uid {uid} parent {fields.get('PPid', '?')} state {fields.get('State', '?')}: {args[:200]}")
    return "; ".join(lines) or "none now"


class Leftovers(unittest.TestCase):
    """A batch interrupted at random points (SIGINT, SIGTERM) leaves no work folder, memory group,
    process or sandbox uid behind, on every way out."""

    def test_an_interrupted_batch_leaves_nothing_behind(self):
        import random
        import signal
        tmp = tempfile.mkdtemp(prefix="hostile_interrupt_")
        try:
            handout = os.path.join(tmp, "handout")
            subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "handout.py"), "--out", handout, "--labs",
                            "device_query"], check=True, capture_output=True)
            subs = os.path.join(tmp, "subs")
            os.makedirs(subs)
            for name in ("a", "b"):
                shutil.copytree(handout, os.path.join(subs, name))
            v2, v1 = MemoryGroup._mounts()
            own = MemoryGroup._own_paths()
            parents = [os.path.join(v2, own["v2"].lstrip("/"))] if v2 and "v2" in own else []
            parents += [os.path.join(v1, p.lstrip("/")) for c, p in own.items() if v1 and "memory" in c.split(",")]
            rng = random.Random()
            for k, (low, high, sig) in enumerate(((1, 6, signal.SIGINT), (0.5, 4, signal.SIGTERM), (4, 12, signal.SIGINT))):
                private = os.path.join(tmp, f"tmp{k}")
                os.makedirs(private)
                # a uid pool of its own: graders beside this test (ctest -j) lease from the default one
                pool = 0x7B000000 + 0x100 * k
                env = dict(os.environ, TMPDIR=private, LABGRADE_UID_BASE=str(pool), LABGRADE_UID_COUNT="64")
                # the first builds a base of its own (stopped while it builds); the others grade on
                # the shared one, every test run again, and are stopped while they build and test
                base = shared_base.grader_args() + ["--no-reuse"] if k else [
                    f"--cmake-args=-DCMAKE_CUDA_ARCHITECTURES={ARCH}", "--jobs", JOBS]
                p = subprocess.Popen([sys.executable, os.path.join(ROOT, "scripts", "grade_submission.py"), subs, "--batch",
                                      "--labs", "device_query", "--out", os.path.join(tmp, f"out{k}")] + base, env=env,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                delay = rng.uniform(low, high)
                try:
                    p.wait(timeout=delay)
                except subprocess.TimeoutExpired:
                    p.send_signal(sig)
                out, err = p.communicate(timeout=180)
                # A signal that lands while the interpreter itself starts, before the script's first
                # lines install its handlers (the site module's imports: past a second on a loaded
                # 2-core machine), is Python's: killed by it (-signal), or a KeyboardInterrupt in
                # the interpreter's own start-up, exit 1, with no frame of the grader in it.
                # Nothing had started, and the checks below still hold. Any later way out is the
                # grader's: 0 or 128 + signal.
                before_the_first_line = p.returncode == -sig or (
                    p.returncode == 1 and sig == signal.SIGINT and err.endswith("KeyboardInterrupt\n")
                    and "grade_submission" not in err and "cudalab" not in err)
                if not before_the_first_line:
                    self.assertIn(p.returncode, (0, 128 + sig), (delay, err[-2000:]))
                time.sleep(0.5)
                left = [os.path.relpath(os.path.join(d, n), private) for d, ds, fs in os.walk(private) for n in ds + fs]
                self.assertEqual(sorted(left)[:20], [], f"after {sig!r} at {delay:.1f} s ({len(left)} left): {err[-1000:]}")
                for parent in parents:
                    self.assertEqual(glob.glob(os.path.join(parent, f"labgrade-{p.pid}-*")), [], (delay, parent))
                # A process that has ended but waits for its parent to reap it (a zombie) runs no
                # code; once the grader has exited its parent is the host's init, which reaps it
                # when it gets to it: those are given a few seconds, a live process none.
                settle = time.time() + 5
                while True:
                    left = [uid for uid in sandbox_mod._uids_in_use() if pool <= uid < pool + 64]
                    states = {sandbox_mod._parent_and_state(pid)[1] for pid, (uid, _) in
                              sandbox_mod.processes().items() if uid in left}
                    if not left or states - {"Z", None} or time.time() > settle:
                        break
                    time.sleep(0.1)
                self.assertEqual(left, [], f"processes of sandbox uids after {sig!r} at {delay:.1f} s: "
                                 f"{describe_processes(left)}; {err[-1500:]}")
                ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
                self.assertNotIn(private, ps)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


class RequireGpu(unittest.TestCase):
    def test_a_node_without_a_gpu_stops_grading(self):
        if subprocess.run(["sh", "-c", "nvidia-smi -L"], capture_output=True).returncode == 0:
            self.skipTest("this machine has a GPU")
        tmp = tempfile.mkdtemp(prefix="require_gpu_")
        try:
            run = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "grade_submission.py"), ROOT,
                                  "--labs", "device_query", "--require-gpu", "--out", os.path.join(tmp, "out")]
                                 + shared_base.grader_args(),
                                 capture_output=True, text=True)
            self.assertEqual(run.returncode, 4, run.stderr)
            self.assertEqual(len(run.stderr.strip().splitlines()), 1, run.stderr)
            self.assertIn("no usable GPU", run.stderr)
            self.assertFalse(os.path.exists(os.path.join(tmp, "out", "results.json")))  # nothing scored 0
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    box, why = Sandbox.find()
    if not box:
        if os.environ.get("CUDALAB_REQUIRE_SANDBOX") == "1":
            print(f"no sandbox: {why}")
            sys.exit(1)
        print(f"CUDALAB_SKIPPED: no sandbox can start here: {why}")
        sys.exit(77)
    unittest.main()
