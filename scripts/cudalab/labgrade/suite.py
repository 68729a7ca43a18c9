"""The suite's own files, and the trees made from them: the student handout, and the grading
tree (the handout with every region stubbed: the tests and the build, no solutions)."""
import os
import re
import shutil
import subprocess

from . import regions as regions_mod

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

# Folders of the suite's sources: a new file there that git does not ignore belongs to the suite
# even before it is committed. Anything else untracked (a handout or grading output written in
# the checkout, a student's archive) is left out.
SUITE_DIRS = ("cmake", "common", "labs", "tests", "scripts", "grading", "docs", ".ci", ".github")

# Instructor-only material, never in a handout or a grading tree: the region guide (it quotes a
# solution), compiler and profiler output of the solutions, reports, the handout's own test.
LEFT_OUT = (re.compile(r"^docs/student-regions\.md$"), re.compile(r"^labs/[^/]+/evidence/"),
            re.compile(r"^docs/reports/"), re.compile(r"^tests/grading/test_handout\.py$"))
DETAILS = re.compile(r"\s*<details>.*?</details>", re.S)


def tracked_files(root=ROOT):
    """The suite's files: in a git checkout the tracked ones plus new files under SUITE_DIRS
    that git does not ignore; outside one (a handout), every file but build folders."""
    def listing(*extra):
        out = subprocess.run(["git", "-C", root, "ls-files"] + list(extra), capture_output=True, text=True)
        return [f for f in out.stdout.split("\n") if f] if out.returncode == 0 else None
    try:
        tracked = listing()
        if tracked:
            new = [f for f in listing("--others", "--exclude-standard") or [] if f.split("/")[0] in SUITE_DIRS]
            return sorted({f for f in tracked + new if os.path.isfile(os.path.join(root, f))})
    except OSError:
        pass  # no git on this machine
    files = []
    for dirpath, dirnames, names in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(("build", "."))]
        for n in names:
            files.append(os.path.relpath(os.path.join(dirpath, n), root))
    return sorted(files)


def find_regions(root=ROOT):
    return regions_mod.find_regions(root, tracked_files(root))


def copy_tree(root, dest):
    """Copies the suite's files (tracked_files) from root to dest."""
    for rel in tracked_files(root):
        target = os.path.join(dest, rel)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copy2(os.path.join(root, rel), target)


def write_handout(root, out, chosen, regions):
    """Writes the student tree: chosen regions stubbed, the answers (<details> blocks) of every
    README*.md and instructor material left out. Returns the number of files written."""
    written = 0
    for rel in tracked_files(root):
        if any(p.search(rel) for p in LEFT_OUT):
            continue
        src = os.path.join(root, rel)
        dst = os.path.join(out, rel)
        os.makedirs(os.path.dirname(dst) or out, exist_ok=True)
        if rel in regions:
            with open(src, encoding="utf-8") as f:
                text = f.read()
            with open(dst, "w", encoding="utf-8") as f:
                f.write(regions_mod.stub_text(text, regions[rel], chosen))
        elif re.match(r"README[^/]*\.md$", os.path.basename(rel)):  # README.md, README.zh-CN.md, anywhere
            with open(src, encoding="utf-8") as f:
                text = f.read()
            with open(dst, "w", encoding="utf-8") as f:
                f.write(DETAILS.sub("", text))
        else:
            shutil.copy2(src, dst)
        written += 1
    return written


def write_grading_tree(root, out):
    """The tree a submission is graded in: the handout with every region stubbed, so it holds the
    tests and the build but no solution. Returns its regions ({path: [Region]}, parsed from the
    stubbed files, which is what splicing works on)."""
    regions = find_regions(root)
    write_handout(root, out, {r.id for rs in regions.values() for r in rs}, regions)
    return parse_regions(out, regions)


def parse_regions(tree, rels):
    """{path: [Region]} of the files `rels` as they are in `tree` (a grading tree's stubbed files)."""
    parsed = {}
    for rel in rels:
        with open(os.path.join(tree, rel), encoding="utf-8") as f:
            parsed[rel] = regions_mod.parse(rel, f.read())
    return parsed


def one_arch(args, arch):
    """Compiler arguments with their GPU architectures replaced by `arch` (e.g. "75-real", "90",
    "native"); a file built for an architecture of its own (sm_90a) keeps its flags."""
    if any("90a" in a for a in args):
        return args
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
            continue
        if a in ("-gencode", "-arch", "--gpu-architecture", "--generate-code"):
            skip = True
            continue
        if a.startswith(("--generate-code=", "-gencode=", "-arch=", "--gpu-architecture=")):
            continue
        out.append(a)
    arch = arch.split("-")[0]
    out.append("-arch=native" if arch == "native" else f"--generate-code=arch=compute_{arch},code=[sm_{arch}]")
    return out


def region_compile_jobs(build, tree, rels, arch, objects):
    """The suite's own compile commands (build/compile_commands.json) of the files `rels`, turned
    on the copy of the suite at `tree` (its file, its include folders) for one architecture, each
    writing its object under `objects`: [(rel, directory, argv)]. Raises ValueError for a file the
    build does not compile. A tree that differs from the suite only in those files (a handout, a
    submission) then compiles without a second build of the suite."""
    import json
    import shlex
    with open(os.path.join(build, "compile_commands.json")) as f:
        commands = json.load(f)
    jobs = []
    for rel in sorted(rels):
        source = os.path.realpath(os.path.join(ROOT, rel))
        mine = [c for c in commands if os.path.realpath(os.path.join(c["directory"], c["file"])) == source]
        if not mine:
            raise ValueError(f"{rel}: not compiled by the suite's build")
        for k, c in enumerate(mine):
            args = shlex.split(c["command"]) if "command" in c else list(c["arguments"])
            args = [os.path.join(tree, rel) if os.path.realpath(os.path.join(c["directory"], a)) == source
                    else a for a in args]
            args = [a.replace("-I" + ROOT, "-I" + tree, 1) if a.startswith("-I" + ROOT) and not a.startswith("-I" + build)
                    else a for a in args]
            o = args.index("-o")
            args[o + 1] = os.path.join(objects, f"{rel.replace('/', '_')}.{k}.o")
            jobs.append((rel, c["directory"], one_arch(args, arch)))
    return jobs


def compile_jobs(jobs, workers, nice=0):
    """Runs region_compile_jobs' commands, `workers` at a time; returns [(rel, log)] of those that
    failed."""
    import concurrent.futures

    def one(job):
        rel, cwd, args = job
        run = subprocess.run((["nice", "-n", str(nice)] if nice else []) + args, cwd=cwd, capture_output=True, text=True)
        return rel, run.returncode, (run.stdout + run.stderr)[-1500:]
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        return [(rel, log) for rel, rc, log in pool.map(one, jobs) if rc != 0]
