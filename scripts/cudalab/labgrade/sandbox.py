"""Sandboxes for untrusted builds and tests (docs/grading-security.md), with bubblewrap.

Every command that compiles or runs student code runs in a sandbox that sees:
  - the system read-only (/usr, /etc, /opt and the folders the toolchain lives in), with the
    suite's own checkout, the submissions and the results hidden under empty folders;
  - /grade/src (read-only) and /grade/build, the one submission's scratch folders;
  - a fresh /dev with only the NVIDIA device nodes added (with a GPU slot, --gpus: only that GPU's
    node and the control nodes), its own /proc, a small /tmp;
  - no network, its own PID namespace (every process dies with the sandbox), no environment
    from the grader but PATH and the CUDA device selection;
  - limits on CPU time, memory, file size, open files and processes (setrlimit), and where the
    host allows it a control group that bounds the memory of all of one submission's processes
    together (MemoryGroup).
When the grader runs as root, the sandbox drops to a uid of its own before entering (UidLease: one
of LABGRADE_UID_COUNT uids from LABGRADE_UID_BASE, no account's, leased with a lock while one
submission is graded; uid 65534, nobody, where no lease can be had), so the process limit
applies and root-only files stay unreadable. The process limit (RLIMIT_NPROC) counts every
process of the uid on the host: with a uid per submission, a fork bomb in one submission cannot
stop another submission graded beside it (--gpus, or several Slurm jobs on one node) from
starting its compiler. Where the kernel refuses an
unprivileged user namespace it falls back to bwrap's own --unshare-user --uid 65534 as root
(the process limit then does not apply; the time limits and the PID namespace still end
everything).

Test processes run one sandbox deeper: ctest (the grader's own code) runs in the outer sandbox
and writes its report where no test can reach; each test runs through `launcher()`, a nested
sandbox that sees /grade/src and /grade/build read-only, without the test sources, and not the
report.
"""
import contextlib
import fcntl
import glob
import os
import resource
import stat
import shlex
import shutil
import signal
import subprocess
import tempfile
import threading
import time

NOBODY = 65534
# The sandbox uids: unused by accounts and by systemd's dynamic and container ranges.
UID_BASE = int(os.environ.get("LABGRADE_UID_BASE", 0x7A000000))
UID_COUNT = int(os.environ.get("LABGRADE_UID_COUNT", 1024))
UID_LEASES = "/run/labgrade-uids"  # lock files, root's alone
GRADE = "/grade"
SRC, BUILD, OUT, TOOLS = GRADE + "/src", GRADE + "/build", GRADE + "/out", GRADE + "/tools"
SYSTEM = ("/usr", "/etc", "/opt", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32")
TOOLS_FOUND = ("cmake", "ctest", "ninja", "nvcc", "python3", "c++", "g++", "compute-sanitizer")
KEPT_ENV = ("PATH", "CUDA_VISIBLE_DEVICES", "CUDA_HOME", "CUDACXX", "LANG")
GiB = 1 << 30


class Limits:
    """Per-process resource limits inside a sandbox (setrlimit), and the scratch disk cap."""

    def __init__(self, cpu_s=900, memory_bytes=32 * GiB, file_bytes=2 * GiB, processes=512, open_files=4096,
                 tmp_bytes=4 * GiB, disk_bytes=8 * GiB):
        self.cpu_s, self.memory_bytes, self.file_bytes = cpu_s, memory_bytes, file_bytes
        self.processes, self.open_files, self.tmp_bytes, self.disk_bytes = processes, open_files, tmp_bytes, disk_bytes

    def apply(self, processes=True):
        resource.setrlimit(resource.RLIMIT_CPU, (self.cpu_s, self.cpu_s))
        # RLIMIT_DATA, not RLIMIT_AS: the CUDA driver reserves far more address space than it uses.
        resource.setrlimit(resource.RLIMIT_DATA, (self.memory_bytes, self.memory_bytes))
        resource.setrlimit(resource.RLIMIT_FSIZE, (self.file_bytes, self.file_bytes))
        resource.setrlimit(resource.RLIMIT_NOFILE, (self.open_files, self.open_files))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if processes:
            resource.setrlimit(resource.RLIMIT_NPROC, (self.processes, self.processes))


class MemoryGroup:
    """A control group that bounds the memory of everything one submission runs, together:
    RLIMIT_DATA bounds each process alone, so a build or test that starts many processes could
    still exhaust the host. cgroup v2 where the grader's own group delegates the memory
    controller, else cgroup v1's memory hierarchy (as root). Swap is bounded too, so the kernel
    kills (OOM) rather than swaps past the limit. `create` returns (group, None) or (None, why
    not); without a group the per-process limit is all there is, and the grader says so."""

    def __init__(self, path, version):
        self.path, self.version = path, version

    @staticmethod
    def _mounts():
        v2, v1 = None, None
        with open("/proc/self/mounts") as f:
            for line in f:
                parts = line.split()
                if len(parts) < 4:
                    continue
                if parts[2] == "cgroup2" and v2 is None:
                    v2 = parts[1]
                elif parts[2] == "cgroup" and "memory" in parts[3].split(",") and v1 is None:
                    v1 = parts[1]
        return v2, v1

    @staticmethod
    def _own_paths():
        paths = {}
        with open("/proc/self/cgroup") as f:
            for line in f:
                hid, controllers, path = line.rstrip("\n").split(":", 2)
                paths["v2" if hid == "0" and controllers == "" else controllers] = path
        return paths

    @classmethod
    def create(cls, name, memory_bytes):
        try:
            v2, v1 = cls._mounts()
            own = cls._own_paths()
        except OSError as e:
            return None, f"cannot read the control groups: {e}"
        reasons = []
        if v2 and "v2" in own:
            parent = os.path.join(v2, own["v2"].lstrip("/"))
            try:
                with open(os.path.join(parent, "cgroup.subtree_control")) as f:
                    delegated = "memory" in f.read().split()
                if not delegated:
                    reasons.append("cgroup v2: the memory controller is not delegated to the grader's group")
                else:
                    return cls._make(os.path.join(parent, name), 2, memory_bytes), None
            except OSError as e:
                reasons.append(f"cgroup v2: {e.strerror or e}")
        mem = next((p for c, p in own.items() if "memory" in c.split(",")), None)
        if v1 and mem is not None:
            try:
                return cls._make(os.path.join(v1, mem.lstrip("/"), name), 1, memory_bytes), None
            except OSError as e:
                reasons.append(f"cgroup v1: {e.strerror or e}")
        elif not reasons:
            reasons.append("no cgroup memory controller is mounted")
        return None, "; ".join(reasons)

    @classmethod
    def _make(cls, path, version, memory_bytes):
        os.mkdir(path)
        group = cls(path, version)
        try:
            if version == 2:
                group._write("memory.max", memory_bytes)
                group._write("memory.swap.max", 0, optional=True)
            else:
                group._write("memory.limit_in_bytes", memory_bytes)
                group._write("memory.memsw.limit_in_bytes", memory_bytes, optional=True)
        except OSError:
            group.remove()
            raise
        return group

    def _write(self, name, value, optional=False):
        target = os.path.join(self.path, name)
        if optional and not os.path.exists(target):
            return
        with open(target, "w") as f:
            f.write(str(value))

    def join(self):
        """In a child before exec: moves the calling process (and so all it starts) into the group."""
        self._write("cgroup.procs", os.getpid())

    def oom_kills(self):
        """How many processes the kernel killed for passing the group's limit."""
        name = "memory.events" if self.version == 2 else "memory.oom_control"
        try:
            with open(os.path.join(self.path, name)) as f:
                for line in f:
                    key, _, value = line.partition(" ")
                    if key == "oom_kill":
                        return int(value)
        except (OSError, ValueError):
            pass
        return 0

    def remove(self):
        """Removes the group once its processes are gone (best effort)."""
        for _ in range(50):
            try:
                os.rmdir(self.path)
                return
            except FileNotFoundError:
                return
            except OSError:
                time.sleep(0.1)


def host_memory_bytes(meminfo="/proc/meminfo"):
    """MemTotal of the host, in bytes (0 where /proc/meminfo cannot be read)."""
    try:
        with open(meminfo) as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def memory_budget(total_bytes, submissions_at_once):
    """(bytes the grader keeps for itself and the system, bytes each submission may take) on a host
    of `total_bytes` grading `submissions_at_once` submissions side by side: the reserve is 15% of
    the host or 4 GiB, whichever is more (the grader, ctest, the page cache of the builds), and the
    rest is shared equally."""
    reserve = max(4 * GiB, int(0.15 * total_bytes))
    return reserve, max(0, (total_bytes - reserve) // max(1, submissions_at_once))


class MemoryWatch:
    """Where no control group can bound a submission's memory (cgroup v2 without the memory
    controller delegated, as on the H200 host), the grader watches it: every `period_s` it adds up
    the resident memory of every process of the submission's own uid (UidLease: no one else runs as
    it) and past `limit_bytes` kills them all. The submission's build or tests then fail and its
    feedback says why; a neighbour, another uid, is not touched."""

    def __init__(self, uid, limit_bytes, period_s=0.25):
        self.uid, self.limit_bytes, self.period_s = uid, limit_bytes, period_s
        self.kills, self.peak_bytes = 0, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()

    def _processes(self):
        """{pid: resident bytes} of the uid's processes."""
        return {pid: rss for pid, (uid, rss) in processes().items() if uid == self.uid}

    def _run(self):
        while not self._stop.wait(self.period_s):
            procs = self._processes()
            total = sum(procs.values())
            self.peak_bytes = max(self.peak_bytes, total)
            if total > self.limit_bytes:
                self.kills += 1
                for pid in procs:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except OSError:
                        pass


def processes():
    """{pid: (real uid, resident bytes)} of every process on the host, from /proc (one that ends
    while it is read is left out)."""
    found = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/status") as f:
                uid, rss = None, 0
                for line in f:
                    if line.startswith("Uid:"):
                        uid = int(line.split()[1])
                    elif line.startswith("VmRSS:"):
                        rss = int(line.split()[1]) * 1024
        except (OSError, ValueError, IndexError):
            continue
        if uid is not None:
            found[int(pid)] = (uid, rss)
    return found


def _uids_in_use():
    """The real uids of every process on the host."""
    return {uid for uid, _ in processes().values()}


def _parent_and_state(pid):
    """(parent pid, state letter) of a process, or (None, None) once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()  # after the command name, which may hold spaces
        return int(fields[1]), fields[0]
    except (OSError, ValueError, IndexError):
        return None, None


def reap_uid(uid, timeout_s=10.0):
    """Kills every process that runs as `uid` and waits until none is left (at most timeout_s):
    what a sandbox started is gone before its uid goes back to the pool. A process of the uid that
    has ended but is still this process's child (a zombie: a sandbox whose Popen an interrupt left
    without its wait, as subprocess.run does on KeyboardInterrupt) is reaped here, or it would
    hold the uid until this process exits. Returns the pids still there at the end ([]: none)."""
    deadline, me = time.time() + timeout_s, os.getpid()
    while True:
        pids = [pid for pid, (owner, _) in processes().items() if owner == uid]
        if not pids or time.time() >= deadline:
            return pids
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
            parent, state = _parent_and_state(pid)
            if parent == me and state == "Z":
                try:
                    os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:
                    pass  # reaped meanwhile by its own Popen
        time.sleep(0.05)


class UidLease:
    """A uid no one else uses while it is held: the first of `count` uids from `base` whose lock
    file (in a folder only root may use) no other grader holds and that no process runs as. The
    lock is an flock, so a grader that dies gives its uids back with it."""

    def __init__(self, uid, fd):
        self.uid, self.fd = uid, fd

    @classmethod
    def claim(cls, base=None, count=None, folder=UID_LEASES):
        """A lease, or raises OSError with the reason there is none."""
        base = UID_BASE if base is None else base
        count = UID_COUNT if count is None else count
        try:
            os.mkdir(folder, 0o700)
        except FileExistsError:
            pass
        st = os.lstat(folder)
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != 0 or st.st_mode & 0o077:
            raise OSError(f"{folder} is not a folder that only root may use")
        busy = _uids_in_use()
        for uid in range(base, base + count):
            if uid in busy:
                continue  # processes of an earlier sandbox may still be on their way out
            fd = os.open(os.path.join(folder, str(uid)), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            return cls(uid, fd)
        raise OSError(f"all {count} sandbox uids from {base} are in use")

    def release(self):
        """Gives the uid back, once no process runs as it any more (reap_uid). Returns the pids
        that would not end ([]: none); the uid then stays out of the pool (claim() skips a uid
        that processes run as) until they are gone."""
        left = []
        if self.fd is not None:
            left = reap_uid(self.uid)
            os.close(self.fd)
            self.fd = None
        return left


CONTROL_NODES = ("nvidiactl", "nvidia-uvm", "nvidia-uvm-tools", "nvidia-modeset")


def gpu_table(proc_root="/proc/driver/nvidia/gpus"):
    """[(device minor, GPU UUID)] of the GPUs in PCI bus order (nvidia-smi's numbering, and CUDA's
    with CUDA_DEVICE_ORDER=PCI_BUS_ID): slot k is /dev/nvidia<minor> of the k-th."""
    table = []
    for bus in sorted(glob.glob(os.path.join(proc_root, "*"))):
        minor, uuid = None, None
        try:
            with open(os.path.join(bus, "information")) as f:
                for line in f:
                    key, _, value = line.partition(":")
                    if key.strip() == "Device Minor":
                        minor = int(value)
                    elif key.strip() == "GPU UUID":
                        uuid = value.strip()
        except (OSError, ValueError):
            continue
        if minor is not None:
            table.append((minor, uuid))
    return table


def gpu_device_nodes(gpu=None, dev="/dev", table=None):
    """The NVIDIA device nodes a sandbox gets: every /dev/nvidia* without a slot; with slot `gpu`,
    the control nodes (nvidiactl, nvidia-uvm, ...), /dev/nvidia-caps and only that GPU's own
    /dev/nvidia<minor>, so a submission cannot open a neighbour's GPU whatever its environment
    says. A slot with no GPU behind it gets no GPU node at all."""
    present = sorted(glob.glob(os.path.join(dev, "nvidia*")))
    if gpu is None:
        return present
    table = gpu_table() if table is None else table
    own = os.path.join(dev, f"nvidia{table[gpu][0]}") if 0 <= gpu < len(table) else None
    keep = {os.path.join(dev, n) for n in CONTROL_NODES} | {os.path.join(dev, "nvidia-caps")}
    return [p for p in present if p in keep or p == own]


def _open_to_all(path):
    """Whether every folder on the way to `path` lets any user through (uid 65534 can reach it)."""
    parts = os.path.realpath(path).split("/")
    for i in range(2, len(parts) + 1):
        try:
            if not os.stat("/".join(parts[:i]) or "/").st_mode & 0o001:
                return False
        except OSError:
            return False
    return True


def gpu_slot(env):
    """The GPU slot a sandbox's environment gives it (CUDA_VISIBLE_DEVICES of one whole number),
    or None: every GPU."""
    value = (env or {}).get("CUDA_VISIBLE_DEVICES", "")
    return int(value) if value.isdigit() else None


def _under(path, top):
    path, top = os.path.realpath(path), os.path.realpath(top)
    return path == top or path.startswith(top.rstrip("/") + "/")


def blocked_folder(path, uid):
    """The first folder on the way to `path` that `uid` may not enter (no search permission for
    it), as (folder, mode), or None. A sandbox that drops to a uid of its own reaches the grading
    tree through every folder above it: one made by `mktemp -d` (0700) or a home folder of 0700
    stops bubblewrap with "Can't find source path ...: Permission denied"."""
    cur = "/"
    for part in [p for p in os.path.realpath(path).split("/") if p]:
        cur = os.path.join(cur, part)
        try:
            st = os.stat(cur)
        except OSError:
            return None  # not made yet: what exists above it was checked
        allowed = st.st_mode & (0o100 if st.st_uid == uid else 0o001)
        if not allowed:
            return cur, stat.S_IMODE(st.st_mode)
    return None


class Sandbox:
    """A way to run commands in bubblewrap; `Sandbox.find()` picks the one this machine allows."""

    def __init__(self, bwrap, drop_to_nobody, hidden=(), limits=None, uid=NOBODY, lease=None):
        self.bwrap, self.drop_to_nobody = bwrap, drop_to_nobody
        self.hidden = [os.path.realpath(h) for h in hidden if h and os.path.realpath(h) != "/"]
        self.limits = limits or Limits()
        self.uid, self.lease = uid, lease  # the uid it drops to (as root), and its lease
        self.no_lease = None  # why it shares uid 65534, if it does

    @contextlib.contextmanager
    def own_uid(self):
        """A copy of this sandbox with a uid leased for the `with` block (grade one submission in
        it), or this sandbox itself when it does not drop to a uid of its own."""
        if not self.drop_to_nobody or not self.lease:
            yield self
            return
        lease = UidLease.claim()
        copy = Sandbox(self.bwrap, True, limits=self.limits, uid=lease.uid, lease=lease)
        copy.hidden = list(self.hidden)
        try:
            yield copy
        finally:
            copy.close()

    def close(self):
        """Gives its uid lease back; returns "" or the processes of its uid that would not end."""
        left = []
        if self.lease:
            left = self.lease.release()
            self.lease = None
        return f"processes {', '.join(map(str, left))} of sandbox uid {self.uid}" if left else ""

    @classmethod
    def find(cls, hidden=(), limits=None):
        """A working sandbox, or (None, the reason there is none)."""
        bwrap = shutil.which("bwrap")
        if not bwrap:
            return None, "bubblewrap (bwrap) is not installed (scripts/install-deps.sh --grading installs it)"
        reasons = []
        modes = [True, False] if os.geteuid() == 0 else [False]
        for drop in modes:
            box = cls(bwrap, drop, hidden, limits)
            if drop:
                try:
                    box.lease = UidLease.claim()
                    box.uid = box.lease.uid
                except OSError as e:
                    box.no_lease = str(e)
            with_tmp = tempfile.mkdtemp(prefix="sandbox_probe_")
            try:
                if drop:
                    os.chown(with_tmp, box.uid, box.uid)
                run = subprocess.run(box.command(["sh", "-c", f"echo ok > {BUILD}/probe"], build=with_tmp),
                                     preexec_fn=box.preexec, capture_output=True, text=True, timeout=60)
                if run.returncode == 0 and os.path.exists(os.path.join(with_tmp, "probe")):
                    return box, None
                reasons.append(run.stderr.strip().splitlines()[-1] if run.stderr.strip() else f"exit {run.returncode}")
            except (OSError, subprocess.SubprocessError) as e:
                reasons.append(str(e))
            except BaseException:  # stopped while probing: the uid goes back with nothing left on it
                box.close()  # (subprocess.run killed the probe but left it unreaped: reap_uid reaps it)
                raise
            finally:
                shutil.rmtree(with_tmp, ignore_errors=True)
            box.close()
        return None, "bubblewrap cannot start a sandbox here: " + "; ".join(reasons)

    @property
    def mode(self):
        if self.drop_to_nobody:
            if self.lease:
                return f"unprivileged, a uid of its own per submission (from {UID_BASE}; now {self.uid})"
            return f"unprivileged (uid 65534 outside and inside, shared: {self.no_lease})"
        return "unprivileged (your uid)" if os.geteuid() != 0 else "root with a user namespace (uid 65534 inside)"

    def preexec(self):
        """In the child before bwrap: a session of its own, the limits, and (as root) its own uid."""
        os.setsid()
        enforce_nproc = self.drop_to_nobody or os.geteuid() != 0
        self.limits.apply(processes=enforce_nproc)
        if self.drop_to_nobody:
            os.setgroups([])
            os.setgid(self.uid)
            os.setuid(self.uid)

    def system_args(self, shared_proc=False, gpu=None):
        """bwrap arguments for the read-only system, devices, /proc and /tmp. With `gpu` (a slot
        number, the CUDA_VISIBLE_DEVICES a submission was given) only that GPU's device node and
        the control nodes CUDA needs are in its /dev (gpu_device_nodes)."""
        # /tmp first: a fresh tmpfs that hides the host's /tmp (work folders live there), under
        # which a bwrap unpacked in /tmp can still be bound again below.
        args, bound = ["--size", str(self.limits.tmp_bytes), "--tmpfs", "/tmp"], []
        for d in SYSTEM:
            if os.path.islink(d):
                args += ["--symlink", os.readlink(d), d]
            elif os.path.isdir(d):
                args += ["--ro-bind", d, d]
                bound.append(d)
        for tool in TOOLS_FOUND + (self.bwrap,):
            exe = shutil.which(tool)
            if not exe:
                continue
            for p in {os.path.dirname(os.path.dirname(exe)), os.path.dirname(os.path.dirname(os.path.realpath(exe)))}:
                if p in ("/", "", "/tmp", "/home", "/root") or any(_under(p, b) for b in bound):
                    continue
                if self.drop_to_nobody and not _open_to_all(p):
                    continue  # uid 65534 cannot reach it (a toolchain under /root): the system's is used
                args += ["--ro-bind", p, p]
                bound.append(p)
        for h in self.hidden:  # the checkout, the submissions, the results: never visible
            if any(_under(h, b) for b in bound) and os.path.isdir(h):
                args += ["--tmpfs", h]
        args += ["--ro-bind-try", "/sys", "/sys"]
        args += ["--ro-bind", "/proc", "/proc"] if shared_proc else ["--proc", "/proc"]
        args += ["--dev", "/dev"]
        for node in gpu_device_nodes(gpu):
            args += ["--dev-bind", node, node]
        return args

    def env_args(self, env=None):
        args = ["--clearenv", "--setenv", "HOME", "/tmp", "--setenv", "TMPDIR", "/tmp"]
        values = {k: os.environ[k] for k in KEPT_ENV if k in os.environ}
        values.update(env or {})
        slot = gpu_slot(env)
        if slot is not None:  # the slot's GPU by its UUID: the same GPU however CUDA numbers what it can open
            table = gpu_table()
            if slot < len(table) and table[slot][1]:
                values["CUDA_VISIBLE_DEVICES"] = table[slot][1]
        for k, v in values.items():
            args += ["--setenv", k, v]
        return args

    def command(self, cmd, src=None, build=None, out=None, tools=None, build_writable=True, chdir=None, env=None):
        """The bwrap command line that runs `cmd` with the given host folders at /grade/*."""
        args = [self.bwrap, "--unshare-all", "--die-with-parent", "--new-session"]
        if os.geteuid() == 0 and not self.drop_to_nobody:
            args += ["--unshare-user", "--uid", str(NOBODY), "--gid", str(NOBODY)]
        args += self.system_args(gpu=gpu_slot(env)) + ["--dir", GRADE]
        if src:
            args += ["--ro-bind", src, SRC]
        if build:
            args += ["--bind" if build_writable else "--ro-bind", build, BUILD]
        if out:
            args += ["--bind", out, OUT]
        if tools:
            args += ["--ro-bind", tools, TOOLS]
        args += self.env_args(env) + ["--chdir", chdir or (BUILD if build else GRADE), "--remount-ro", "/"]
        return args + ["--"] + list(cmd)

    def launcher_script(self):
        """The nested sandbox each test runs in (a shell script to pass as CUDALAB_TEST_LAUNCHER):
        the system as outside, /grade/src and /grade/build read-only, no test sources, no report."""
        inner = [self.bwrap, "--unshare-all", "--die-with-parent", "--new-session"]
        system = self.system_args()
        if os.geteuid() == 0 and not self.drop_to_nobody:
            # As root, bwrap leaves parts of the outer /proc read-only, and the kernel then refuses
            # a fresh /proc one level down: the test shares ctest's PID namespace (it still cannot
            # trace or read ctest, which lives in the parent user namespace) and sees /proc read-only.
            inner = [self.bwrap, "--unshare-user", "--unshare-ipc", "--unshare-net", "--unshare-uts",
                     "--unshare-cgroup-try", "--die-with-parent", "--new-session"]
            system = self.system_args(shared_proc=True)
        inner = inner + [a if a != "--dev-bind" else "--dev-bind-try" for a in system]
        inner += ["--dir", GRADE, "--ro-bind", SRC, SRC, "--tmpfs", SRC + "/tests", "--ro-bind", BUILD, BUILD]
        quoted = " ".join(shlex.quote(a) for a in inner)
        # gtest discovery (CMake >= 3.30) has the test binary write its listing under CMakeFiles/:
        # those folders stay writable (nothing there runs again), the binaries do not.
        return ("#!/bin/sh\n# Runs one test in its own sandbox (see labgrade/sandbox.py).\n"
                "listing=''\n"
                f"for d in {BUILD}/lab_targets/*/CMakeFiles {BUILD}/tests/CMakeFiles; do\n"
                '  [ -d "$d" ] && listing="$listing --bind $d $d"\n'
                "done\n"
                f'exec {quoted} $listing --chdir "$PWD" --remount-ro / -- "$@"\n')

    def prepare_writable(self, *paths):
        """Hands folders the sandbox must write to over to its uid (when it drops to one)."""
        if not self.drop_to_nobody:
            return
        for top in paths:
            for dirpath, dirnames, filenames in os.walk(top):
                os.lchown(dirpath, self.uid, self.uid)
                for n in dirnames + filenames:
                    os.lchown(os.path.join(dirpath, n), self.uid, self.uid)
