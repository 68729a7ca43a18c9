#!/usr/bin/env python3
"""Run every case of one GoogleTest binary in as few processes as possible, with a time limit per
case, and write one JUnit report with a result per case.

  scripts/gtest_batch.py --junit OUT.xml --timeout 120 [--launcher CMD] -- BINARY [gtest args]
  scripts/gtest_batch.py --list [--launcher CMD] -- BINARY       # the case names, one per line
  scripts/gtest_batch.py --single [--launcher CMD] -- BINARY --gtest_filter=CASE   # ctest's per-case run

Verdicts come from the verdict channel, never from what the binary prints: a pipe named in
CUDALAB_VERDICT_FD that the suite's test main (tests/support/verdict_main.cpp) writes one START and
one END line per case to. A case that printed "[       OK ]" but sent no END line failed; a process
that exits 0 before its cases ran passed nothing.

A GPU test binary pays for its CUDA context once instead of once per case (ctest's one process per
case spends seconds per case on a busy GPU). A case that runs past --timeout is killed with its
process, reported "timed out after N s", and the remaining cases go on in new processes, four at
once (CUDALAB_GTEST_BATCH_JOBS; 1: one after another), each taking its share in turn, so that code
that hangs in every case costs a few limits and not one limit per case; a case that crashes its
process is reported failed and the rest go on in a new process. The build option
CUDALAB_GTEST_BATCH=ON registers one ctest test per binary that runs through this script.

Exit codes: 0 every case passed (some may be skipped), 1 some case failed or timed out, 2 usage
error, 3 the binary cannot be run or listed, 77 every case was skipped (a GPU binary on a machine
without a GPU: ctest reports the test skipped, SKIP_RETURN_CODE 77, with the reason printed).
"""
import concurrent.futures
import os
import re
import select
import shlex
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

from cudalab import script_cli

def fail(code, message):
    script_cli.fail("gtest_batch", code, message)


RUN = re.compile(r"^\[ RUN      \] (\S+)")  # stdout: only to file what a case printed under its name
VERDICT = re.compile(r"^(START|END) (\S+)(?: (passed|failed|skipped))?$")
VERDICT_ENV = "CUDALAB_VERDICT_FD"  # read by tests/support/verdict_main.cpp
JOBS_ENV = "CUDALAB_GTEST_BATCH_JOBS"


def list_cases(command):
    """The binary's case names (Suite.Case), as --gtest_list_tests prints them."""
    proc = subprocess.run(command + ["--gtest_list_tests"], capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        raise OSError(f"--gtest_list_tests exited {proc.returncode}: {proc.stderr.strip()[-300:]}")
    cases, suite = [], None
    for line in proc.stdout.splitlines():
        if not line.strip() or line.startswith("Running main()"):
            continue
        name = line.split("#")[0].strip()
        if not line.startswith(" "):
            suite = name
        elif suite:
            cases.append(suite + name)
    return cases


def run_some(command, cases, timeout, out_lines, gtest_args=None):
    """Runs `cases` in one process until it ends or a case passes `timeout`.
    Returns ({case: (status, its output, seconds)} of the cases that finished, the case that timed
    out or crashed or None, whether that one timed out).

    Which case runs and how it ended come from the verdict channel alone: a pipe whose write end
    the process finds in CUDALAB_VERDICT_FD, written by the suite's test main (START / END lines).
    What the process prints on stdout is kept as each case's output, never read as a verdict: the
    student's code runs in that process and could print anything."""
    read_fd, write_fd = os.pipe()
    env = dict(os.environ, **{VERDICT_ENV: str(write_fd)})
    args = gtest_args if gtest_args is not None else ["--gtest_filter=" + ":".join(cases)]
    try:
        proc = subprocess.Popen(command + args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                start_new_session=True, pass_fds=(write_fd,), env=env)
    finally:
        os.close(write_fd)
    streams = {proc.stdout.fileno(): b"", read_fd: b""}
    for fd in streams:
        os.set_blocking(fd, False)
    done, timed_out, open_fds = {}, False, set(streams)
    state = {"current": None, "started": time.time(), "printing": None}
    printed = {}  # case: the lines stdout shows under its "[ RUN ]" line (messages, never verdicts)

    def take(fd):
        """Reads what `fd` holds now; False at its end."""
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            return True
        if not chunk:
            open_fds.discard(fd)
            return False
        streams[fd] += chunk
        *lines, streams[fd] = streams[fd].split(b"\n")
        for raw in lines:
            line = raw.decode("utf-8", "replace")
            if fd != read_fd:
                out_lines.append(line)
                m = RUN.match(line)
                if m:
                    state["printing"] = m.group(1)
                elif state["printing"]:
                    printed.setdefault(state["printing"], []).append(line)
                continue
            m = VERDICT.match(line)
            if not m:
                continue
            if m.group(1) == "START" and m.group(3) is None:
                state.update(current=m.group(2), started=time.time())
            elif m.group(1) == "END" and m.group(2) == state["current"] and m.group(3):
                case = state["current"]
                done[case] = (m.group(3), "\n".join(printed.get(case, []))[-2000:], time.time() - state["started"])
                state["current"] = None
        return True

    while open_fds:
        ready, _, _ = select.select(list(open_fds), [], [], 0.05)
        for fd in sorted(ready, key=lambda f: f == read_fd):  # stdout first
            if fd in open_fds:
                take(fd)
        current, started = state["current"], state["started"]
        if current and time.time() - started > timeout:
            os.killpg(proc.pid, signal.SIGKILL)
            timed_out = True
            break
        if not ready and proc.poll() is not None and not open_fds - {read_fd}:
            break  # the process is gone and its output read: a child holding the pipe does not stall us
    proc.wait()
    os.close(read_fd)
    done = {c: (status, "\n".join(printed.get(c, []))[-2000:], sec) for c, (status, _, sec) in done.items()}
    return done, state["current"], timed_out


def run_one(command, gtest_args):
    """--single (ctest's one process per case, --per-case): runs the case(s) ctest asked for through
    the verdict channel and exits 0 only when each case that ran reported passed or skipped on it
    and at least one ran; a skipped case prints GoogleTest's SKIPPED marker for ctest. The listing
    ctest asks for passes through unchanged."""
    if any(a.startswith("--gtest_list_tests") for a in gtest_args):
        os.execvp(command[0], command + gtest_args)
    lines = []
    done, stuck, _ = run_some(command, [], 1e9, lines, gtest_args)
    print("\n".join(lines))
    if stuck:
        print(f"gtest_batch: {stuck} started and never reported an end (crash or exit)")
        return 1
    if not done:
        print("gtest_batch: no case reported a result on the verdict channel")
        return 1
    bad = [c for c, r in done.items() if r[0] == "failed"]
    if bad:
        print(f"gtest_batch: failed: {' '.join(bad)}")
        return 1
    if all(r[0] == "skipped" for r in done.values()):
        print("[  SKIPPED ] (verdict channel)")
    return 0


def write_junit(path, results, timed_out=()):
    """The JUnit report of the cases; a case in `timed_out` carries its limit as the attribute
    timed_out_s (scripts/cudalab/labgrade/results.py reads it: a status is a field, not a message)."""
    suite = ET.Element("testsuite", name="gtest_batch", tests=str(len(results)),
                       failures=str(sum(r[0] == "failed" for r in results.values())),
                       skipped=str(sum(r[0] == "skipped" for r in results.values())))
    for name, (status, message, seconds) in results.items():
        case = ET.SubElement(suite, "testcase", name=name, classname=name, time=f"{seconds:.3f}",
                             status={"passed": "run", "failed": "fail", "skipped": "notrun"}[status])
        if name in timed_out:
            case.set("timed_out_s", f"{seconds:g}")
        if status == "failed":
            ET.SubElement(case, "failure", message=message)
        elif status == "skipped":
            ET.SubElement(case, "skipped", message=message)
    ET.ElementTree(suite).write(path, encoding="UTF-8", xml_declaration=True)


def hung_jobs():
    """Processes at once for the cases after one hung (CUDALAB_GTEST_BATCH_JOBS, default 4)."""
    try:
        return max(1, int(os.environ.get(JOBS_ENV, "4")))
    except ValueError:
        return 1


def run_in_turn(command, cases, timeout, out_lines, hand_over=False):
    """Runs `cases` one process after another: a new process after a case that hangs or crashes
    takes the cases left. Returns ({case: (status, output, seconds)}, the cases left when a case
    hung and hand_over is set (for the caller to run side by side), processes, {cases that hung})."""
    results, remaining, processes, hung = {}, list(cases), 0, set()
    while remaining:
        processes += 1
        done, stuck, timed_out = run_some(command, remaining, timeout, out_lines)
        results.update(done)
        if stuck and timed_out:
            hung.add(stuck)
        if stuck:
            results[stuck] = ("failed", f"timed out after {timeout:g} s" if timed_out
                              else "the process ended during this case (crash or exit)", timeout if timed_out else 0.0)
        left = [c for c in remaining if c not in results]
        if len(left) == len(remaining):  # no progress: the process cannot start its cases
            for c in left:
                results[c] = ("failed", "did not run: " + " | ".join(out_lines[-5:]), 0.0)
            break
        remaining = left
        if stuck and timed_out and hand_over and len(left) > 1:
            return results, left, processes, hung
    return results, [], processes, hung


def main():
    argv = sys.argv[1:]
    if "--" not in argv:
        fail(2, "give the binary after --")
    split = argv.index("--")
    ap = script_cli.Parser(prog="gtest_batch", description="Run a GoogleTest binary's cases with per-case limits.")
    ap.add_argument("--junit")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--launcher", default="", help="command every process starts through (the grader's sandbox)")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--single", action="store_true", help="one ctest case: the verdict channel decides the exit status")
    args = ap.parse_args(argv[:split])
    rest = argv[split + 1:]
    if not rest:
        fail(2, "give the binary after --")
    if args.timeout <= 0:
        fail(2, "--timeout must be positive")
    if args.single:
        return run_one(shlex.split(args.launcher) + rest[:1], rest[1:])
    if not args.list and not args.junit:
        fail(2, "--junit is required (or --list)")
    command = shlex.split(args.launcher) + rest
    try:
        cases = list_cases(command)
    except (OSError, subprocess.SubprocessError) as e:
        fail(3, f"cannot list the cases of {rest[0]}: {e}")
    if args.list:
        print("\n".join(cases))
        return 0
    if not cases:
        fail(3, f"{rest[0]} lists no cases")
    out_lines = []
    results, left, processes, hung = run_in_turn(command, cases, args.timeout, out_lines, hand_over=hung_jobs() > 1)
    if left:  # a case hung: the others may too, so the rest run side by side, each share in turn
        shares = [left[i::hung_jobs()] for i in range(min(hung_jobs(), len(left)))]
        with concurrent.futures.ThreadPoolExecutor(len(shares)) as pool:
            for done, _, count, stuck in pool.map(lambda s: run_in_turn(command, s, args.timeout, out_lines), shares):
                results.update(done)
                processes += count
                hung |= stuck
    ordered = {c: results[c] for c in cases}
    write_junit(args.junit, ordered, hung)
    bad = [c for c, r in ordered.items() if r[0] == "failed"]
    print(f"gtest_batch: {len(cases)} cases in {processes} process(es): "
          f"{sum(r[0] == 'passed' for r in ordered.values())} passed, {len(bad)} failed, "
          f"{sum(r[0] == 'skipped' for r in ordered.values())} skipped")
    for c in bad[:20]:  # the first lines of each failure's message (ctest --output-on-failure shows them)
        lines = ordered[c][1].splitlines() if ordered[c][1] else [""]
        print(f"  FAILED {c}: {lines[0]}")
        for line in lines[1:12]:
            print(f"    {line}")
    if bad:
        return 1
    if ordered and all(r[0] == "skipped" for r in ordered.values()):
        reason = next((r[1] for r in ordered.values() if r[1]), "")
        print(f"gtest_batch: every case skipped{': ' + ' '.join(reason.split()) if reason else ''}")
        return 77
    return 0


if __name__ == "__main__":
    sys.exit(main())
