"""The student-region convention (docs/student-regions.md), shared by the handout generator
and the submission grader.

A region:
    // STUDENT-BEGIN(<lab>.<name>): <title>
    // TASK: ...            (continued on following // lines)
    // HINT: ...
    // STUB: <code>         (optional, repeatable)
    <solution lines>
    // STUDENT-END(<lab>.<name>)
"""
import os
import re
import shutil
import subprocess

BEGIN = re.compile(r"^(\s*)// STUDENT-BEGIN\(([a-z0-9_.]+)\): (\S.*)$")
END = re.compile(r"^\s*// STUDENT-END\(([a-z0-9_.]+)\)\s*$")
SOURCE_SUFFIXES = (".cu", ".cuh", ".cpp", ".hpp")


class Region:
    def __init__(self, path, rid, title, indent, begin):
        self.path, self.id, self.title, self.indent, self.begin = path, rid, title, indent, begin
        self.header = []    # TASK / HINT comment lines, verbatim
        self.stub = []      # code from STUB lines
        self.solution = []  # solution lines, verbatim
        self.end = None

    @property
    def lab(self):
        return self.id.split(".")[0]


def parse(path, text):
    """Regions of one file, in order. Raises ValueError on a malformed file."""
    regions, cur, in_header = [], None, False
    for n, line in enumerate(text.split("\n"), 1):
        m = BEGIN.match(line)
        if m:
            if cur:
                raise ValueError(f"{path}:{n}: STUDENT-BEGIN inside region {cur.id}")
            cur = Region(path, m.group(2), m.group(3), m.group(1), n)
            in_header = True
            continue
        m = END.match(line)
        if m:
            if not cur or m.group(1) != cur.id:
                raise ValueError(f"{path}:{n}: STUDENT-END({m.group(1)}) does not close an open region")
            cur.end = n
            regions.append(cur)
            cur = None
            continue
        if "STUDENT-BEGIN" in line or "STUDENT-END" in line:
            raise ValueError(f"{path}:{n}: malformed student marker")
        if cur:
            stripped = line.strip()
            if in_header and stripped.startswith("// STUB:"):
                cur.stub.append(stripped[len("// STUB:"):].strip())
            elif in_header and stripped.startswith("//"):
                cur.header.append(line)
            else:
                in_header = False
                cur.solution.append(line)
    if cur:
        raise ValueError(f"{path}: region {cur.id} is never closed")
    return regions


# Folders of the suite's sources: a new file there that git does not ignore belongs to the suite
# even before it is committed. Anything else untracked (a handout or grading output written in
# the checkout, a student's archive) is left out.
SUITE_DIRS = ("cmake", "common", "labs", "tests", "scripts", "grading", "docs", ".ci", ".github")


def tracked_files(root):
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


def copy_tree(root, dest):
    """Copies the suite's files (tracked_files) from root to dest."""
    for rel in tracked_files(root):
        target = os.path.join(dest, rel)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copy2(os.path.join(root, rel), target)


def find_regions(root, files=None):
    """{relative path: [Region]} for every source file holding regions."""
    found = {}
    for rel in files if files is not None else tracked_files(root):
        if not rel.endswith(SOURCE_SUFFIXES) or rel.startswith("tests/"):
            continue
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            text = f.read()
        if "STUDENT-BEGIN" in text:
            found[rel] = parse(rel, text)
    return found


def stub_text(text, regions, chosen):
    """`text` with every region whose id is in `chosen` replaced by its stub."""
    lines = text.split("\n")
    out, i = [], 0
    by_begin = {r.begin: r for r in regions if r.id in chosen}
    while i < len(lines):
        n = i + 1
        if n in by_begin:
            r = by_begin[n]
            out.append(lines[i])
            out.extend(r.header)
            out.extend(r.indent + s for s in r.stub)
            out.append(r.indent + "// TODO: your code here")
            out.append(lines[r.end - 1])
            i = r.end
            continue
        out.append(lines[i])
        i += 1
    return "\n".join(out)
