"""Scores: the points table, ctest's JUnit report, Gradescope's results.json and the tables
printed per lab and per task."""
import fnmatch
import json
import os
import xml.etree.ElementTree as ET

HIDDEN_LABEL = "hidden"  # tests with this ctest label are hidden from students on Gradescope
NOT_A_LAB = ("cpu", "gpu", "smoke", "sanitize", HIDDEN_LABEL)


def load_points(path):
    """The points table; raises ValueError with a one-line reason."""
    try:
        with open(path) as f:
            table = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        raise ValueError(f"cannot read points table {path}: {e}") from e
    try:
        return check_table(table)
    except ValueError as e:
        raise ValueError(f"points table {path}: {e}") from e


def lab_of(labels, known_labs, name=""):
    if not labels:  # a test this build does not know (a report from another machine): its name
        prefix = name.split(".")[0]
        if prefix in known_labs:
            return prefix
    for label in labels:
        if label in known_labs:
            return label
    for label in labels:
        if label not in NOT_A_LAB:
            return label
    return "other"


def task_tests(table):
    """{task: [patterns]} of the points table's "tasks" section ({task: {"points", "tests"}})."""
    return {task: entry["tests"] for task, entry in table.get("tasks", {}).items()}


def task_points(table):
    """{task: points} of the points table's "tasks" section."""
    return {task: float(entry["points"]) for task, entry in table.get("tasks", {}).items()}


def task_shares(names, table):
    """{test name: {task: points}}: each task's points split evenly among the tests of `names` that
    grade it (its patterns). A test that grades no task is not in the map: it earns nothing."""
    shares, points = {}, task_points(table)
    for task, patterns in task_tests(table).items():
        mine = [n for n in names if any(fnmatch.fnmatchcase(n, p) for p in patterns)]
        for n in mine:
            shares.setdefault(n, {})[task] = points[task] / len(mine)
    return shares


def is_gate(name, table):
    """A test that must pass for its lab's tasks to count (it builds, --help works), not a source
    of points: the points table's "gates" patterns."""
    return any(fnmatch.fnmatchcase(name, p) for p in table.get("gates", []))


def check_table(table):
    """The points table's shape; raises ValueError with a one-line reason."""
    tasks = table.get("tasks")
    if not isinstance(tasks, dict) or not tasks:
        raise ValueError("the points table has no \"tasks\" section")
    for task, entry in tasks.items():
        if not isinstance(entry, dict) or not isinstance(entry.get("tests"), list) or not entry["tests"]:
            raise ValueError(f"task {task}: needs a list of test patterns in \"tests\"")
        points = entry.get("points")
        if isinstance(points, bool) or not isinstance(points, (int, float)) or not points > 0:
            raise ValueError(f"task {task}: \"points\" must be a positive number")
    if not isinstance(table.get("gates", []), list):
        raise ValueError("\"gates\" must be a list of test patterns")
    return table


class Listed:
    """One test of the fixed list: its name, lab, maximum (its shares of the tasks it grades),
    visibility, and whether it is a gate of its lab."""

    def __init__(self, name, lab, max_score, hidden, gate=False):
        self.name, self.lab, self.max_score, self.hidden, self.gate = name, lab, max_score, hidden, gate

    def entry(self, status, output, timed_out_s=None, seconds=None):
        """A results.json test entry. Gradescope knows passed and failed only: a test that did not
        run (status skipped) or ran past its limit also says so in fields of its extra_data
        (skipped: true, timed_out_s: N), which the counts and the summaries read; a test that ran
        says how long it took (seconds, from ctest's report: where a class's grading time goes)."""
        e = {"name": self.name, "score": self.max_score if status == "passed" else 0.0,
             "max_score": self.max_score, "status": "passed" if status == "passed" else "failed",
             "output": "" if status == "passed" else output, "tags": [self.lab]}
        extra = {}
        if status == "skipped":
            extra["skipped"] = True
        if timed_out_s is not None:
            extra = {"timed_out_s": timed_out_s}
        if seconds is not None:
            extra["seconds"] = round(float(seconds), 3)
        if self.gate:
            extra["gate"] = True
        if extra:
            e["extra_data"] = extra
        if self.hidden:
            e["visibility"] = "hidden"
        return e


def fixed_list(labels, table, labs=None):
    """[Listed] for ctest's {name: labels}, keeping the labs in `labs` (all when None). A task's
    points are split among all the tests of the listing that grade it."""
    known = set(table.get("labs", [])) | {t.split(".")[0] for t in table.get("tasks", {})}
    shares = task_shares(list(labels), table)
    out = []
    for name, lbl in labels.items():
        lab = lab_of(lbl, known, name)
        if labs is None or lab in labs:
            out.append(Listed(name, lab, sum(shares.get(name, {}).values()), HIDDEN_LABEL in lbl, is_gate(name, table)))
    return out


def _junit_root(path):
    try:
        return ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        raise ValueError(f"cannot read JUnit report {path}: {e}") from e


def parse_junit(path):
    """{name: (status, output, seconds)} with status passed | failed | skipped. Raises ValueError."""
    root = _junit_root(path)
    cases = {}
    for case in root.iter("testcase"):
        name = case.get("name")
        out = (case.findtext("system-out") or "").strip()
        try:
            seconds = float(case.get("time", "0"))
        except ValueError:
            seconds = 0.0
        if case.find("skipped") is not None or case.get("status") in ("notrun", "disabled"):
            reason = case.find("skipped").get("message", "") if case.find("skipped") is not None else ""
            status = "skipped"
            out = f"skipped: {reason}\n{out}".strip()
        elif case.find("failure") is not None or case.get("status") == "fail":
            status = "failed"
            failure = case.find("failure")
            message = failure.get("message", "") if failure is not None else ""
            out = f"{message}\n{out}".strip()
        else:
            status = "passed"
        cases[name] = (status, out[-4000:], seconds)  # keep the end, where failures are printed
    return cases


def mark_timeouts(path, timed_out):
    """Rewrites the JUnit report at `path` so each test in `timed_out` ({name: seconds}) carries
    the failure message "timed out after N s" (ctest's own report leaves the message empty)."""
    if not timed_out or not os.path.exists(path):
        return
    tree = ET.parse(path)
    for case in tree.getroot().iter("testcase"):
        if case.get("name") in timed_out:
            failure = case.find("failure")
            if failure is None:
                failure = ET.SubElement(case, "failure")
            failure.set("message", f"timed out after {timed_out[case.get('name')]:g} s")
    tree.write(path, encoding="UTF-8", xml_declaration=True)


BATCH_LABEL = "gtest_batch"  # a ctest test that runs a whole GoogleTest binary (CUDALAB_GTEST_BATCH)


def timed_out_cases(path):
    """{case: seconds} of the cases of a JUnit report (scripts/gtest_batch.py's) that carry the
    attribute timed_out_s: ran past their limit."""
    out = {}
    for case in _junit_root(path).iter("testcase"):
        try:
            if case.get("timed_out_s") is not None:
                out[case.get("name")] = float(case.get("timed_out_s"))
        except ValueError:
            continue
    return out


def expand_batches(labels, cases, build_dir):
    """With CUDALAB_GTEST_BATCH, a GoogleTest binary is one ctest test whose cases are reported in
    <build>/gtest-batch/<name>.xml: replaces each such test in `labels` ({name: labels}) and `cases`
    (parse_junit's) by its cases. Returns {case: seconds} of the cases that timed out."""
    timed_out = {}
    for name, lbl in list(labels.items()):
        if BATCH_LABEL not in lbl:
            continue
        path = os.path.join(build_dir, "gtest-batch", f"{name}.xml")
        if not os.path.exists(path):
            continue
        sub = parse_junit(path)
        hung = timed_out_cases(path)
        del labels[name]
        cases.pop(name, None)
        for case, result in sub.items():
            labels[case] = [x for x in lbl if x != BATCH_LABEL]
            cases[case] = result
            if result[0] == "failed" and case in hung:
                timed_out[case] = hung[case]
    return timed_out


def expand_listing(labels, list_cases, keep=lambda lbl: True):
    """Replaces each GoogleTest binary run as one test (BATCH_LABEL) in `labels` ({name: labels},
    ctest's listing) whose labels `keep` accepts by its cases, listed by list_cases(name) -> [case
    name]; returns {binary: labels} of those replaced."""
    batches = {}
    for name, lbl in list(labels.items()):
        if BATCH_LABEL in lbl and keep(lbl):
            cases = list_cases(name)
            del labels[name]
            labels.update({case: [x for x in lbl if x != BATCH_LABEL] for case in cases})
            batches[name] = lbl
    return batches


def run_and_collect(build_dir, junit, labels_regex, jobs, test_timeout, wall_timeout, batch_labels, runner=None,
                    extra=(), seen_as=None):
    """The one ctest -> JUnit -> cases pipeline of both graders (scripts/grade.py, grader.Grader):
    runs ctest writing `junit`, reads its cases, and replaces each GoogleTest binary run as one
    test by its own cases (in `batch_labels`, {name: labels}, too: expand_batches). Returns (the ctest run,
    {case: (status, output, seconds)}, {case: limit} of those that ran past their limit). An
    unreadable report gives no cases: every listed test then fails as not run. `seen_as`: (the
    build folder, the report) as this process reads them, when ctest runs in a sandbox that sees
    them at other paths (build_dir and junit are ctest's)."""
    from . import ctest
    run, timed_out = ctest.run_tests(build_dir, junit, labels_regex, jobs, test_timeout, wall_timeout,
                                     runner=runner, extra=extra)
    read_build, read_junit = seen_as or (build_dir, junit)
    try:
        cases = parse_junit(read_junit)
    except ValueError:
        return run, {}, timed_out
    if batch_labels:
        try:
            timed_out.update(expand_batches(batch_labels, cases, read_build))
        except ValueError:
            pass  # an unreadable batch report: its cases did not run
    return run, cases, timed_out


def score(listed, cases, timed_out=None, missing_output="failed: did not run"):
    """results.json entries for the fixed list: a test of the list that the report lacks failed;
    a test of the report that the list lacks is ignored. `timed_out` maps names to their limit.
    Where a gate of a lab failed (it did not build, --help failed), none of the lab's tests earns
    points, and each says which gate failed."""
    timed_out = timed_out or {}
    tests = []
    for t in listed:
        ran = t.name in cases
        status, output, seconds = cases.get(t.name, ("failed", missing_output, 0.0))
        if t.name in timed_out:
            output = f"failed: timed out after {timed_out[t.name]:g} s\n{output}".strip()
            tests.append(t.entry("failed", output, timed_out[t.name], seconds if ran else None))
        else:
            tests.append(t.entry(status, output, seconds=seconds if ran else None))
    closed = gates_failed(tests)
    for t in tests:
        gate = ", ".join(closed.get(t["tags"][0], []))
        if gate and t["max_score"] > 0 and t["status"] == "passed":
            t.update(score=0.0, status="failed",
                     output=f"failed: the lab's gate {gate} failed, so its tasks earn nothing")
    return tests


def is_skipped(test):
    """A results.json entry for a test that did not run (extra_data.skipped)."""
    return test["status"] != "passed" and bool(test.get("extra_data", {}).get("skipped"))


def is_timed_out(test):
    """A results.json entry for a test that ran past its limit (extra_data.timed_out_s)."""
    return test.get("extra_data", {}).get("timed_out_s") is not None


def task_summary(tests, table):
    """{task id: {"tests", "passed", "skipped", "score", "max_score"}} for every task of the points
    table's "tasks" section: its points split evenly among the entries of `tests` that grade it,
    each passed one earning its share; a task none of `tests` belongs to has 0 of 0."""
    shares = task_shares([t["name"] for t in tests], table)
    summary = {}
    for task, points in task_points(table).items():
        mine = [t for t in tests if task in shares.get(t["name"], {})]
        summary[task] = {"tests": len(mine), "passed": sum(t["status"] == "passed" for t in mine),
                         "skipped": sum(is_skipped(t) for t in mine),
                         "score": round(sum(shares[t["name"]][task] for t in mine if t["status"] == "passed"), 3),
                         "max_score": round(points if mine else 0.0, 3)}
    return summary


def gates_failed(tests):
    """{lab: [its gates that failed]}: the labs whose tasks earn nothing (a gate that did not run
    for want of a GPU closes nothing)."""
    out = {}
    for t in tests:
        if t.get("extra_data", {}).get("gate") and t["status"] != "passed" and not is_skipped(t):
            out.setdefault(t["tags"][0], []).append(t["name"])
    return out


def results_json(tests, table, elapsed, extra=None):
    skipped = sum(is_skipped(t) for t in tests)
    timed_out = sum(is_timed_out(t) for t in tests)
    tasks = task_summary(tests, table)
    data = {"score": round(sum(s["score"] for s in tasks.values()), 3),
            "execution_time": round(elapsed, 1),
            "output": f"{len(tests)} tests; {skipped} skipped (not run); {timed_out} timed out",
            "tests": tests,
            "extra_data": {"skipped": skipped, "timed_out": timed_out,
                           "max_score": round(sum(s["max_score"] for s in tasks.values()), 3),
                           "gates_failed": gates_failed(tests),
                           "tasks": {k: v for k, v in tasks.items() if v["tests"]}}}
    data["extra_data"].update(extra or {})
    return data


def print_tasks(tasks):
    if not tasks:
        return
    print(f"{'task':<28} {'score':>9} {'max':>9} {'passed':>7} {'skipped':>8} {'tests':>7}")
    for task, s in tasks.items():
        print(f"{task:<28} {s['score']:>9.1f} {s['max_score']:>9.1f} {s['passed']:>7} {s.get('skipped', 0):>8} {s['tests']:>7}")


def print_labs(tests, notes=None):
    """The score table per lab of results.json entries; `notes` adds a remark per lab (a lab whose
    gate failed says so)."""
    notes = dict(notes or {})
    for lab, gates in gates_failed(tests).items():
        notes.setdefault(lab, f"gate failed: {gates[0]}")
    per_lab = {}
    for t in tests:
        s = per_lab.setdefault(t["tags"][0] if t.get("tags") else "other", [0.0, 0.0, 0, 0, 0])
        s[0] += t["score"]
        s[1] += t["max_score"]
        s[2 if t["status"] == "passed" else 4 if is_skipped(t) else 3] += 1
    for lab in notes:
        per_lab.setdefault(lab, [0.0, 0.0, 0, 0, 0])
    note_head = "  note" if notes else ""
    print(f"{'lab':<16} {'score':>9} {'max':>9} {'passed':>7} {'failed':>7} {'skipped':>8}{note_head}")
    for lab in sorted(per_lab):
        score_, max_score, passed, failed, skipped = per_lab[lab]
        note = f"  {notes[lab]}" if lab in notes else ""
        print(f"{lab:<16} {score_:>9.1f} {max_score:>9.1f} {passed:>7} {failed:>7} {skipped:>8}{note}")
    print(f"{'total':<16} {sum(s[0] for s in per_lab.values()):>9.1f} {sum(s[1] for s in per_lab.values()):>9.1f}")
