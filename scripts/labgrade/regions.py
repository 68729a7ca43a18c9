"""The student-region convention (docs/student-regions.md): the one parser of the format, used
by the handout generator, the grader and (through `scripts/student_regions.py --json`) the C++
region test.

A region:
    // STUDENT-BEGIN(<lab>.<name>): <title>
    // TASK: ...            (continued on following // lines)
    // HINT: ...
    // STUB: <code>         (optional, repeatable)
    <solution lines>
    // STUDENT-END(<lab>.<name>)

A submission is graded by splicing: each region's body is taken from the student's file and put
into the pristine (solution-free) file, after `check_body` has accepted it. Nothing outside the
regions is ever taken from a student.
"""
import os
import re

BEGIN = re.compile(r"^(\s*)// STUDENT-BEGIN\(([a-z0-9_.]+)\): (\S.*)$")
END = re.compile(r"^\s*// STUDENT-END\(([a-z0-9_.]+)\)\s*$")
SOURCE_SUFFIXES = (".cu", ".cuh", ".cpp", ".hpp")
TODO = "// TODO: your code here"


class Region:
    def __init__(self, path, rid, title, indent, begin):
        self.path, self.id, self.title, self.indent, self.begin = path, rid, title, indent, begin
        self.header = []    # TASK / HINT / STUB comment lines, verbatim (kept in a handout, so
                            # a handout stubbed again stays the same)
        self.stub = []      # code from STUB lines
        self.solution = []  # the body: every line after the header, verbatim
        self.end = None

    @property
    def lab(self):
        return self.id.split(".")[0]

    def as_dict(self):
        text = "\n".join(self.header)
        return {"id": self.id, "lab": self.lab, "path": self.path, "title": self.title, "begin": self.begin,
                "end": self.end, "has_task": "// TASK:" in text, "has_hint": "// HINT:" in text,
                "has_body": any(line.strip() for line in self.solution), "stub": self.stub}


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
                cur.header.append(line)
            elif in_header and stripped.startswith("//"):
                cur.header.append(line)
            else:
                in_header = False
                cur.solution.append(line)
    if cur:
        raise ValueError(f"{path}: region {cur.id} is never closed")
    seen = set()
    for r in regions:
        if r.id in seen:
            raise ValueError(f"{path}:{r.begin}: region {r.id} appears twice")
        seen.add(r.id)
    return regions


def find_regions(root, files):
    """{relative path: [Region]} for every source file among `files` (outside tests/) holding regions."""
    found = {}
    for rel in files:
        if not rel.endswith(SOURCE_SUFFIXES) or rel.startswith("tests/"):
            continue
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            text = f.read()
        if "STUDENT-BEGIN" in text:
            found[rel] = parse(rel, text)
    return found


def rewrite(text, regions, bodies):
    """`text` with the body of every region whose id is in `bodies` replaced by bodies[id] (a list
    of lines); the BEGIN line, the TASK/HINT header and the END line stay as they are."""
    lines = text.split("\n")
    out, i = [], 0
    by_begin = {r.begin: r for r in regions if r.id in bodies}
    while i < len(lines):
        r = by_begin.get(i + 1)
        if r:
            out.append(lines[i])
            out.extend(r.header)
            out.extend(bodies[r.id])
            out.append(lines[r.end - 1])
            i = r.end
            continue
        out.append(lines[i])
        i += 1
    return "\n".join(out)


def stub_body(region):
    return [region.indent + s for s in region.stub] + [region.indent + TODO]


def stub_text(text, regions, chosen):
    """`text` with every region whose id is in `chosen` replaced by its stub."""
    return rewrite(text, regions, {r.id: stub_body(r) for r in regions if r.id in chosen})


# ---- what a submitted body may contain -----------------------------------------------------------
# A body is spliced into a function of the pristine file, so it must stay inside that function
# (balanced brackets that never close what the body did not open), bring no preprocessor lines
# (no #include of the tests or the solutions, no macros that rewrite the file) and call nothing
# that controls the process, touches the file system, the environment or the terminal. The
# sandbox is the second wall; this check is the first, and its message tells the student why.
ALLOWED_DIRECTIVE = re.compile(r"^\s*#\s*pragma\s+unroll(\s*\(?\s*\d*\s*\)?)?\s*$")
DENIED = frozenset("""
    exit _exit _Exit quick_exit abort atexit at_quick_exit terminate set_terminate
    setjmp longjmp sigsetjmp siglongjmp signal sigaction raise kill killpg pthread_kill
    fork vfork clone execl execlp execle execv execvp execve execvpe fexecve system popen pclose
    posix_spawn posix_spawnp ptrace prctl syscall dlopen dlsym dlmopen
    fopen freopen fdopen fclose open openat creat close dup dup2 dup3 read write pread pwrite
    unlink unlinkat remove rename renameat mkdir mkdirat rmdir chdir fchdir chroot chmod fchmod
    chown lchown symlink link truncate ftruncate mmap munmap mprotect opendir readdir scandir
    filesystem fstream ifstream ofstream basic_fstream basic_ifstream basic_ofstream filebuf FILE
    stdin stdout stderr printf fprintf dprintf vprintf vfprintf puts fputs putchar putc fputc
    fwrite perror cout cerr clog wcout wcerr wclog getenv secure_getenv setenv unsetenv putenv
    environ sleep usleep nanosleep sleep_for sleep_until thread jthread async socket connect
    asm __asm __asm__ _Pragma __attribute__ __declspec extern namespace
""".split())
DENIED_PREFIXES = ("__builtin_",)
RAW_STRING = re.compile(r"(?<![A-Za-z0-9_])(?:u8|u|U|L)?R\"")
DIGRAPH_OR_TRIGRAPH = re.compile(r"<%|%>|%:|\?\?[=/'()!<>-]")
CLOSES = {")": "(", "]": "[", "}": "{"}


def _code_only(line, in_comment):
    """The line with comments, string and character literals blanked; and whether a /* comment is
    still open at its end."""
    out, i, n = [], 0, len(line)
    while i < n:
        c = line[i]
        if in_comment:
            j = line.find("*/", i)
            if j < 0:
                return "".join(out), True
            i, in_comment = j + 2, False
            out.append(" ")
            continue
        if line.startswith("//", i):
            break
        if line.startswith("/*", i):
            in_comment, i = True, i + 2
            continue
        if c == '"' or (c == "'" and not (i > 0 and (line[i - 1].isalnum() or line[i - 1] == "_")
                                          and not re.search(r"(?<![A-Za-z0-9_])(u8|u|U|L)$", line[:i]))):
            j = i + 1
            while j < n and line[j] != c:
                j += 2 if line[j] == "\\" else 1
            out.append(c + " " * (min(j, n) - i - 1) + c)
            i = j + 1
            continue
        out.append(c)
        i += 1
    return "".join(out), in_comment


def check_body(lines):
    """The reasons a submitted region body is refused; an empty list when it may be spliced."""
    problems, stack, in_comment = [], [], False
    for n, line in enumerate(lines, 1):
        if line.rstrip().endswith("\\"):
            problems.append(f"line {n}: a line continuation (backslash at the end of a line)")
        if RAW_STRING.search(line) and not in_comment:
            problems.append(f"line {n}: a raw string literal")
        code, in_comment = _code_only(line, in_comment)
        stripped = code.strip()
        if stripped.startswith("#"):
            if not ALLOWED_DIRECTIVE.match(line.split("//")[0]):
                problems.append(f"line {n}: a preprocessor line ('{stripped[:40]}'); only '#pragma unroll' is allowed")
            continue
        if DIGRAPH_OR_TRIGRAPH.search(code):
            problems.append(f"line {n}: a digraph or trigraph")
        for m in re.finditer(r"[A-Za-z_][A-Za-z0-9_]*", code):
            word = m.group(0)
            before = code[:m.start()].rstrip()
            if before.endswith(".") or before.endswith("->"):
                continue  # a member: out.write is the student's own struct, not ::write
            if word in DENIED or word.startswith(DENIED_PREFIXES):
                problems.append(f"line {n}: '{word}' is not allowed in a student region")
        for c in code:
            if c in "([{":
                stack.append(c)
            elif c in CLOSES:
                if not stack or stack[-1] != CLOSES[c]:
                    problems.append(f"line {n}: '{c}' closes a bracket the region did not open "
                                    "(a region stays inside its function)")
                    return problems
                stack.pop()
    if in_comment:
        problems.append("a /* comment is not closed")
    if stack:
        problems.append(f"'{stack[-1]}' is opened and never closed")
    return problems


def splice(pristine_text, pristine_regions, submitted_text, path):
    """The pristine file with each region's body taken from the submitted file, where the region
    exists there and its body passes check_body; every other region keeps its pristine body.
    Returns (text, {region id: "taken" | reason it was not})."""
    outcome = {}
    try:
        submitted = {r.id: r for r in parse(path, submitted_text)}
    except ValueError as e:
        return pristine_text, {r.id: f"not taken: the file's region markers are broken ({e})" for r in pristine_regions}
    bodies = {}
    for r in pristine_regions:
        s = submitted.get(r.id)
        if s is None:
            outcome[r.id] = "not taken: the region is missing from the submitted file"
            continue
        problems = check_body(s.solution)
        if problems:
            outcome[r.id] = "rejected: " + "; ".join(problems[:5])
            continue
        bodies[r.id] = s.solution
        outcome[r.id] = "taken"
    return rewrite(pristine_text, pristine_regions, bodies), outcome
