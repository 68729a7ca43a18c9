"""ctest, run by the grader: the test list, and a run bounded in time whose timeouts are known."""
import json
import os
import re
import signal
import subprocess
import threading
import time

STOP = threading.Event()  # set by the grader's SIGINT/SIGTERM handler: every bounded run ends now


class Stopped(BaseException):
    """A bounded run was ended because the grader is stopping (not the submission's doing): it is
    a BaseException so that no `except Exception` records it as the submission's result."""


TIMEOUT_LINE = re.compile(r"Test\s+#\d+: (\S+) \.*\s*\*\*\*Timeout\s+([\d.]+) sec")


def list_tests(build_dir, runner=None, timeout=300):
    """ctest's {name: labels}. Raises RuntimeError if ctest cannot list them. `runner(cmd, timeout)`
    runs the command (a sandbox's); plain run_bounded by default."""
    runner = runner or run_bounded
    try:
        proc = runner(["ctest", "--test-dir", build_dir, "--show-only=json-v1"], timeout, keep_bytes=None)
    except OSError as e:
        raise RuntimeError(f"cannot run ctest: {e}") from e
    if proc.returncode != 0:
        raise RuntimeError(f"cannot list the tests in {build_dir}: {(proc.stderr or proc.stdout).strip()[:1500]}")
    try:  # discovery may print before the JSON document: it starts at the first line that is "{"
        start = re.search(r"^\{\s*$", proc.stdout, re.M)
        tests = json.JSONDecoder().raw_decode(proc.stdout[start.start() if start else 0:])[0].get("tests", [])
    except json.JSONDecodeError as e:
        raise RuntimeError(f"ctest's test list is not JSON: {e}") from e
    labels = {}
    for test in tests:
        names = []
        for prop in test.get("properties", []):
            if prop.get("name") == "LABELS":
                names = prop.get("value", [])
        labels[test["name"]] = names
    return labels


class Bounded:
    def __init__(self, returncode, stdout, stderr, timed_out):
        self.returncode, self.stdout, self.stderr, self.timed_out = returncode, stdout, stderr, timed_out


def folder_bytes(top):
    total = 0
    for dirpath, _, names in os.walk(top):
        for n in names:
            try:
                total += os.lstat(os.path.join(dirpath, n)).st_blocks * 512
            except OSError:
                pass
    return total


def _kill_group(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def run_bounded(cmd, timeout, preexec_fn=None, watch=None, keep_bytes=1 << 20, pass_fds=()):
    """Runs cmd in its own process group; past `timeout` seconds, or once the folder watch[0]
    holds more than watch[1] bytes (checked every 2 s), the whole group is killed.
    Output is kept to its last keep_bytes per stream (all of it for None); .timed_out / .over_disk say why it was killed."""
    next_disk_check = [time.time() + 2.0]

    def start():
        if preexec_fn:
            preexec_fn()  # it makes the session itself
        else:
            os.setsid()
    if STOP.is_set():
        raise Stopped()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=start, pass_fds=pass_fds)
    deadline = time.time() + (timeout or 1e9)
    timed_out = over_disk = False
    out = err = b""
    try:
        while True:
            step = min(0.5, max(0.01, deadline - time.time()))
            try:
                out, err = proc.communicate(timeout=step)
                break
            except subprocess.TimeoutExpired:
                pass
            if STOP.is_set():
                raise Stopped()
            if time.time() >= deadline:
                timed_out = True
            elif watch and watch[1] and time.time() >= next_disk_check[0]:
                next_disk_check[0] = time.time() + 2.0
                over_disk = folder_bytes(watch[0]) > watch[1]
            if timed_out or over_disk:
                _kill_group(proc)
                out, err = proc.communicate()
                break
    except BaseException:  # stopping (or any error here): nothing it started outlives it
        _kill_group(proc)
        proc.communicate()
        raise
    dec = lambda b: (b if keep_bytes is None else b[-keep_bytes:]).decode("utf-8", "replace")  # noqa: E731
    result = Bounded(proc.returncode, dec(out), dec(err), timed_out)
    result.over_disk = over_disk
    if over_disk:
        result.stderr += f"\nstopped: the folder passed its limit of {watch[1]} bytes"
    return result


def run_tests(build_dir, junit, labels_regex=None, jobs=1, test_timeout=None, wall_timeout=None,
              runner=None, extra=()):
    """Runs ctest writing `junit`; returns (Bounded, {test name: seconds limit} of the tests that
    timed out)."""
    cmd = ["ctest", "--test-dir", build_dir, "--output-junit", junit, "-j", str(jobs)]
    if labels_regex:
        cmd += ["-L", labels_regex]
    if test_timeout:
        cmd += ["--timeout", str(test_timeout)]
    cmd += list(extra)
    proc = (runner or run_bounded)(cmd, wall_timeout)
    return proc, {m.group(1): float(m.group(2)) for m in TIMEOUT_LINE.finditer(proc.stdout)}
