#!/usr/bin/env python3
"""Run every case of one GoogleTest binary in as few processes as possible, with a time limit per
case, and write one JUnit report with a result per case.

  scripts/gtest_batch.py --junit OUT.xml --timeout 120 [--launcher CMD] -- BINARY [gtest args]
  scripts/gtest_batch.py --list [--launcher CMD] -- BINARY       # the case names, one per line

A GPU test binary pays for its CUDA context once instead of once per case (ctest's one process per
case spends seconds per case on a busy GPU). A case that runs past --timeout is killed with its
process, reported "timed out after N s", and the remaining cases go on in a new process; a case
that crashes its process is reported failed and the rest go on too. The build option
CUDALAB_GTEST_BATCH=ON registers one ctest test per binary that runs through this script.

Exit codes: 0 every case passed (some may be skipped), 1 some case failed or timed out, 2 usage
error, 3 the binary cannot be run or listed, 77 every case was skipped (a GPU binary on a machine
without a GPU: ctest reports the test skipped, SKIP_RETURN_CODE 77, with the reason printed).
"""
import os
import re
import shlex
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import script_cli  # noqa: E402

RUN = re.compile(r"^\[ RUN      \] (\S+)")
DONE = re.compile(r"^\[ +(OK|FAILED|SKIPPED) +\] ([^\s,]+)(,| \(|$)")


def fail(code, message):
    script_cli.fail("gtest_batch", code, message)


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


def run_some(command, cases, timeout, out_lines):
    """Runs `cases` in one process until it ends or a case passes `timeout`.
    Returns ({case: (status, its output, seconds)} of the cases that finished, the case that timed
    out or crashed or None, whether that one timed out)."""
    proc = subprocess.Popen(command + ["--gtest_filter=" + ":".join(cases)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    os.set_blocking(proc.stdout.fileno(), False)
    current, started, buf, done, lines_of_case = None, time.time(), b"", {}, []
    timed_out = False
    while True:
        chunk = proc.stdout.read()
        if chunk:
            buf += chunk
            *lines, buf = buf.split(b"\n")
            for raw in lines:
                line = raw.decode("utf-8", "replace")
                out_lines.append(line)
                m = RUN.match(line)
                if m:
                    current, started, lines_of_case = m.group(1), time.time(), []
                    continue
                m = DONE.match(line)
                if m and m.group(2) == current:
                    status = {"OK": "passed", "FAILED": "failed", "SKIPPED": "skipped"}[m.group(1)]
                    done[current] = (status, "\n".join(lines_of_case)[-2000:], time.time() - started)
                    current = None
                elif current:
                    lines_of_case.append(line)
        if proc.poll() is not None and not chunk:
            break
        if current and time.time() - started > timeout:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            timed_out = True
            break
        if not chunk:
            time.sleep(0.01)
    return done, current, timed_out


def write_junit(path, results):
    suite = ET.Element("testsuite", name="gtest_batch", tests=str(len(results)),
                       failures=str(sum(r[0] == "failed" for r in results.values())),
                       skipped=str(sum(r[0] == "skipped" for r in results.values())))
    for name, (status, message, seconds) in results.items():
        case = ET.SubElement(suite, "testcase", name=name, classname=name, time=f"{seconds:.3f}",
                             status={"passed": "run", "failed": "fail", "skipped": "notrun"}[status])
        if status == "failed":
            ET.SubElement(case, "failure", message=message)
        elif status == "skipped":
            ET.SubElement(case, "skipped", message=message)
    ET.ElementTree(suite).write(path, encoding="UTF-8", xml_declaration=True)


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
    args = ap.parse_args(argv[:split])
    rest = argv[split + 1:]
    if not rest:
        fail(2, "give the binary after --")
    if args.timeout <= 0:
        fail(2, "--timeout must be positive")
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
    results, remaining, out_lines, processes = {}, list(cases), [], 0
    while remaining:
        processes += 1
        done, stuck, timed_out = run_some(command, remaining, args.timeout, out_lines)
        results.update(done)
        if stuck:
            results[stuck] = ("failed", f"timed out after {args.timeout:g} s" if timed_out
                              else "the process ended during this case (crash or exit)", args.timeout if timed_out else 0.0)
        left = [c for c in remaining if c not in results]
        if len(left) == len(remaining):  # no progress: the process cannot start its cases
            for c in left:
                results[c] = ("failed", "did not run: " + " | ".join(out_lines[-5:]), 0.0)
            break
        remaining = left
    ordered = {c: results[c] for c in cases}
    write_junit(args.junit, ordered)
    bad = [c for c, r in ordered.items() if r[0] == "failed"]
    print(f"gtest_batch: {len(cases)} cases in {processes} process(es): "
          f"{sum(r[0] == 'passed' for r in ordered.values())} passed, {len(bad)} failed, "
          f"{sum(r[0] == 'skipped' for r in ordered.values())} skipped")
    for c in bad[:20]:
        print(f"  FAILED {c}: {ordered[c][1].splitlines()[0] if ordered[c][1] else ''}")
    if bad:
        return 1
    if ordered and all(r[0] == "skipped" for r in ordered.values()):
        reason = next((r[1] for r in ordered.values() if r[1]), "")
        print(f"gtest_batch: every case skipped{': ' + ' '.join(reason.split()) if reason else ''}")
        return 77
    return 0


if __name__ == "__main__":
    sys.exit(main())
