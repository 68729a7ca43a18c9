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
