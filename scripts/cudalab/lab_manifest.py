"""labs/manifest.json, the one list of the labs: each lab's name, its one-line idea (the README's
labs table), the student's command (run), its benchmark runs (scripts/bench.py) and its profile arguments and Nsight Compute
metrics (scripts/profile.py). CMake adds labs/<name>/ for every entry (labs/CMakeLists.txt)."""
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PATH = os.path.join(ROOT, "labs", "manifest.json")


def load(path=PATH):
    """The labs, in manifest order: a list of dicts with name, idea, bench ({run: args}) and
    optionally profile ({args, metrics}). Raises ValueError on a malformed manifest."""
    with open(path, encoding="utf-8") as f:
        labs = json.load(f)["labs"]
    seen, runs = set(), set()
    for lab in labs:
        name = lab.get("name")
        if not isinstance(name, str) or not name.isidentifier() or name in seen:
            raise ValueError(f"{path}: bad or repeated lab name {name!r}")
        seen.add(name)
        if not isinstance(lab.get("idea"), str) or not lab["idea"]:
            raise ValueError(f"{path}: {name} has no idea line")
        run = lab.get("run", f"./labs/{name}")
        if not isinstance(run, str) or not (run == f"./labs/{name}" or run.startswith(f"./labs/{name} ")):
            raise ValueError(f"{path}: {name}: run must be ./labs/{name} [arguments]")
        for run, args in lab.get("bench", {}).items():
            if run in runs or not all(isinstance(a, str) for a in args):
                raise ValueError(f"{path}: {name}: bad or repeated bench run {run!r}")
            runs.add(run)
        prof = lab.get("profile")
        if prof is not None and (not prof.get("metrics") or not isinstance(prof.get("args"), list)):
            raise ValueError(f"{path}: {name}: profile needs args and metrics")
        if not isinstance(lab.get("timed", True), bool):
            raise ValueError(f"{path}: {name}: timed is true or false")
        if not isinstance(lab.get("recorded", True), bool):
            raise ValueError(f"{path}: {name}: recorded is true or false")
        if lab.get("recorded") is False and "leaderboard" in lab:
            raise ValueError(f"{path}: {name}: a lab not yet recorded has no leaderboard run")
        board = lab.get("leaderboard")
        if board is not None:
            args, tasks = board.get("args"), board.get("tasks")
            if not isinstance(args, list) or not all(isinstance(a, str) or _is_draw(a) for a in args):
                raise ValueError(f"{path}: {name}: leaderboard args are strings or {{around, spread}} sizes")
            if not isinstance(tasks, dict) or not tasks or not all(
                    isinstance(v, list) and v and all(isinstance(x, str) for x in v) for v in tasks.values()):
                raise ValueError(f"{path}: {name}: leaderboard tasks map each task to its variants")
    return labs


def _is_draw(a):
    return (isinstance(a, dict) and set(a) == {"around", "spread"} and all(isinstance(a[k], int) for k in a)
            and 0 <= a["spread"] < a["around"])


def timed(lab):
    """Whether a lab takes the timing options (--repeat, --warmup): hello, device_query and latency
    time nothing repeatedly and refuse them, as every lab refuses an option it does not have."""
    return lab.get("timed", True)


def recorded(lab):
    """Whether a lab's --json report has been recorded on the reference GPU (tests/data/reports).
    A new lab written where no GPU was at hand is `recorded: false` until its first run there: it
    is built and tested like every lab, but carries no graded task and no leaderboard run."""
    return lab.get("recorded", True)


def mark_recorded(names, path=PATH):
    """Removes `recorded: false` from the labs `names` in the manifest at `path` (their reports are
    recorded now); returns the labs whose mark was removed. The file keeps its layout (json.dump,
    indent 2, as written)."""
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    marked = []
    for lab in doc["labs"]:
        if lab["name"] in names and lab.get("recorded") is False:
            del lab["recorded"]
            marked.append(lab["name"])
    if marked:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=2, ensure_ascii=False)
            f.write("\n")
    return marked


def leaderboard_runs(labs=None):
    """{lab: (args, {task: [variants]})} of the labs the leaderboard measures; each args entry a
    string or {"around": c, "spread": s} (a size the grader draws per run in [c - s, c + s])."""
    return {lab["name"]: (lab["leaderboard"]["args"], lab["leaderboard"]["tasks"]) for lab in (labs or load())
            if lab.get("leaderboard")}


def bench_runs(labs=None):
    """[(run name, [lab, args..., "--json"])] for scripts/bench.py."""
    return [(run, [lab["name"]] + args + ["--json"]) for lab in (labs or load())
            for run, args in lab.get("bench", {}).items()]


def profiles(labs=None):
    """{lab: (default args, metrics)} of the labs that have a profile entry."""
    return {lab["name"]: (lab["profile"]["args"], lab["profile"]["metrics"]) for lab in (labs or load())
            if lab.get("profile")}
