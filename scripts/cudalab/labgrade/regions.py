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
    for n, line in enumerate(compiler_lines(text), 1):
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
ALLOWED_DIRECTIVE = re.compile(r"^#\s*pragma\s+unroll(\s*\(?\s*\d*\s*\)?)?\s*$")
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
# Libraries that already hold a finished answer to a course task, in every region: CUB's block,
# warp and device reductions, scans and histograms (scan, reduction and histogram include CUB for
# the yardstick they measure against, so a body in those files could call it without an
# #include), Thrust, CUTLASS and CuTe, the WMMA API (an FP32 task done on TF32 Tensor Cores), and
# cuBLAS with the other math libraries. And the algorithms, standard or cooperative groups', that
# do a whole reduction or scan in one call. No task's solution names any of them: a region writes
# the algorithm it is graded on.
DENIED_LIBRARIES = frozenset("cub thrust cutlass cute nvcuda".split())
DENIED_LIBRARY_PREFIXES = ("cublas", "cusparse", "cufft", "cusolver", "curand", "cudnn", "nvjpeg", "npp")
DENIED_ALGORITHMS = frozenset("""
    reduce inclusive_scan exclusive_scan accumulate partial_sum transform_reduce
    transform_inclusive_scan transform_exclusive_scan
""".split())
# Names a region may not use because the suite already computes that task's answer with them: a
# body that calls the lab's own calculator does none of the work (occupancy.calculator is the
# notes' exercise 74, graded against common/occupancy_calc's compute()). A key is a region id or
# a lab (every region of it).
WARP_REDUCE = frozenset("__reduce_add_sync __reduce_min_sync __reduce_max_sync".split())  # sm_80's one-instruction warp sums
DENIED_IN_REGION = {
    "occupancy.calculator": frozenset({"compute", "spec_from_attributes"}),
    "device_query.residency": frozenset({"compute", "spec_from_attributes"}),
    "transfers.issue_chunk": frozenset({"run_overlap", "end_to_end_ms", "time_alone", "run_unified"}),
    "reduction": WARP_REDUCE,             # the tasks are the shared-memory tree and the shuffle ladder
    "mem_spaces.warp_atomic": WARP_REDUCE,  # the task is the shuffle sum before one atomic per warp
}


def denied_in(region_id):
    """The names a region may not use beyond DENIED: its own entry and its lab's."""
    if not region_id:
        return frozenset()
    return DENIED_IN_REGION.get(region_id, frozenset()) | DENIED_IN_REGION.get(region_id.split(".")[0], frozenset())
MAX_BODY_BYTES = 256 << 10  # a region is a function body; the largest solution is a few KiB
ENCODING_PREFIX = re.compile(r"(?:u8|u|U|L)$")
TRIGRAPH = re.compile(r"\?\?[=/'()!<>-]")
SPLICE = re.compile(r"\\[ \t\f\v]*\n")
CLOSES = {")": "(", "]": "[", "}": "{"}
IDENT_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_$")
IDENT = IDENT_START | frozenset("0123456789")
PUNCT = frozenset("{}[]()<>;:,.?*&|^~!=+-/%#")


def compiler_lines(text):
    """`text` split into lines as the compiler splits it: at CR LF, a lone CR and LF."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def tokens(text):
    """The tokens of a region body as the C++ compiler's translation phases 1-3 see them:
    (kind, text, line) with kind "ident", "number", "literal", "punct" or "directive"; and the
    problems found on the way (what the check refuses outright). Comments are dropped. Linear in
    the length of the text (a region of one very long line costs no more than many short ones)."""
    problems, out = [], []
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if TRIGRAPH.search(text):
        problems.append(f"line {text[:TRIGRAPH.search(text).start()].count(chr(10)) + 1}: a trigraph")
    m = SPLICE.search(text)
    if m:
        problems.append(f"line {text[:m.start()].count(chr(10)) + 1}: a line continuation (backslash at the end of a line)")
    i, n, line, at_line_start = 0, len(text), 1, True
    while i < n:
        c = text[i]
        if c == "\n":
            line, at_line_start, i = line + 1, True, i + 1
            continue
        if c in " \t\f\v":
            i += 1
            continue
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            if j < 0:
                problems.append(f"line {line}: a /* comment is not closed")
                break
            line += text.count("\n", i, j)
            i = j + 2
            continue
        first_on_line, at_line_start = at_line_start, False
        if c == "#" and first_on_line:
            j = text.find("\n", i)
            j = n if j < 0 else j
            directive = text[i:j]
            code = directive.split("//")[0].split("/*")[0].rstrip()
            if not ALLOWED_DIRECTIVE.match(code):
                problems.append(f"line {line}: a preprocessor line ('{code[:40]}'); only '#pragma unroll' is allowed")
            out.append(("directive", code, line))
            i = j
            continue
        if c in IDENT_START:
            j = i + 1
            while j < n and text[j] in IDENT:
                j += 1
            word = text[i:j]
            if j < n and text[j] in "\"'" and ENCODING_PREFIX.match(word):
                i = j  # an encoding prefix: the literal follows
                out.append(("prefix", word, line))
                continue
            if word.endswith("R") and j < n and text[j] == '"' and ENCODING_PREFIX.match(word[:-1] or "u8") \
                    and word in ("R", "u8R", "uR", "UR", "LR"):
                problems.append(f"line {line}: a raw string literal")
                j2 = text.find('"', j + 1)
                i = n if j2 < 0 else j2 + 1
                continue
            out.append(("ident", word, line))
            i = j
            continue
        if c.isdigit() or (c == "." and i + 1 < n and text[i + 1].isdigit()):
            j = i + 1  # a pp-number: digits, letters, '.', digit separators, exponent signs
            while j < n:
                d = text[j]
                if d in IDENT or d == ".":
                    j += 1
                elif d == "'" and j + 1 < n and text[j + 1] in IDENT:
                    j += 2
                elif d in "+-" and text[j - 1] in "eEpP":
                    j += 1
                else:
                    break
            out.append(("number", text[i:j], line))
            i = j
            continue
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            if j >= n or text[j] != c:
                problems.append(f"line {line}: a {'string' if c == chr(34) else 'character'} literal is not closed on its line")
                j = text.find("\n", i)
                i = n if j < 0 else j
                continue
            out.append(("literal", text[i:j + 1], line))
            i = j + 1
            continue
        if c == "\\":
            problems.append(f"line {line}: a backslash outside a literal (a line splice or a universal character name)")
            i += 1
            continue
        if ord(c) > 127 or (ord(c) < 32):
            problems.append(f"line {line}: the character U+{ord(c):04X} outside a comment or literal")
            i += 1
            continue
        if c == "<" and text.startswith("<%", i) or c == "%" and text.startswith("%>", i) \
                or c == "%" and text.startswith("%:", i) or c == ":" and text.startswith(":>", i):
            problems.append(f"line {line}: a digraph ('{text[i:i + 2]}')")
            i += 2
            continue
        if text.startswith("<:", i):
            if text.startswith("<::", i) and not text.startswith(("<:::", "<::>"), i):
                out.append(("punct", "<", line))  # C++11: '<::' is '<' then '::' (vector<::T>)
                i += 1
                continue
            problems.append(f"line {line}: a digraph ('<:')")
            i += 2
            continue
        if text.startswith("->", i) or text.startswith("::", i):
            out.append(("punct", text[i:i + 2], line))
            i += 2
            continue
        if c in PUNCT:
            if c == "#":
                problems.append(f"line {line}: '#' outside a preprocessor line")
            out.append(("punct", c, line))
            i += 1
            continue
        problems.append(f"line {line}: the character '{c}' outside a comment or literal")
        i += 1
    return out, problems


def check_body(lines, region_id=None):
    """The reasons a submitted region body is refused; an empty list when it may be spliced. The
    body is read as the compiler reads it (`tokens`): the same line breaks, comments, literals,
    digit separators and digraphs, so what is checked is what is compiled. With `region_id`, the
    names that region or its lab may not use (DENIED_IN_REGION) are refused too; in every region,
    the libraries and algorithms that hold a task's answer (DENIED_LIBRARIES, DENIED_ALGORITHMS)."""
    own = denied_in(region_id)
    text = "\n".join(lines)
    if len(text.encode("utf-8", "replace")) > MAX_BODY_BYTES:
        return [f"the region is {len(text.encode('utf-8', 'replace'))} bytes; a region may hold {MAX_BODY_BYTES}"]
    toks, problems = tokens(text)
    stack, previous = [], None
    for kind, value, n in toks:
        if kind == "ident":
            member = previous is not None and previous[0] == "punct" and previous[1] in (".", "->")
            if not member and (value in DENIED or value.startswith(DENIED_PREFIXES)):
                problems.append(f"line {n}: '{value}' is not allowed in a student region")
            elif not member and (value in DENIED_LIBRARIES or value.startswith(DENIED_LIBRARY_PREFIXES)):
                problems.append(f"line {n}: '{value}' is a library that already solves the course's tasks; "
                                "write the algorithm yourself")
            elif not member and (value in own or value in DENIED_ALGORITHMS):
                problems.append(f"line {n}: '{value}' computes this task's answer for you; write it yourself")
        elif kind == "punct":
            if value in "([{":
                stack.append((value, n))
            elif value in CLOSES:
                if not stack or stack[-1][0] != CLOSES[value]:
                    problems.append(f"line {n}: '{value}' closes a bracket the region did not open "
                                    "(a region stays inside its function)")
                    return problems
                stack.pop()
        previous = (kind, value)
    if stack:
        problems.append(f"line {stack[-1][1]}: '{stack[-1][0]}' is opened and never closed")
    return problems


# What became of a submitted region (results.json extra_data.regions): a field, never a string
# that readers filter by its prefix.
TAKEN, NOT_TAKEN, REJECTED = "taken", "not_taken", "rejected"
OUTCOMES = (TAKEN, NOT_TAKEN, REJECTED)


def outcome(kind, why=None):
    """{"outcome": taken | not_taken (absent, unreadable) | rejected (refused by a check), "why":
    the reason (None when taken)}."""
    if kind not in OUTCOMES:
        raise ValueError(f"unknown region outcome {kind!r}")
    if (kind == TAKEN) != (why is None):
        raise ValueError("a region that is not taken says why; a taken one does not")
    return {"outcome": kind, "why": why}


def is_taken(o):
    return o.get("outcome") == TAKEN


def is_rejected(o):
    return o.get("outcome") == REJECTED


def describe(o):
    """The feedback line's words: "taken", or "not taken: <why>" / "rejected: <why>"."""
    return o["outcome"] if o["why"] is None else f"{o['outcome'].replace('_', ' ')}: {o['why']}"


def splice(pristine_text, pristine_regions, submitted_text, path):
    """The pristine file with each region's body taken from the submitted file, where the region
    exists there and its body passes check_body; every other region keeps its pristine body.
    Returns (text, {region id: outcome(...)})."""
    result = {}
    try:
        submitted = {r.id: r for r in parse(path, submitted_text)}
    except ValueError as e:
        return pristine_text, {r.id: outcome(NOT_TAKEN, f"the file's region markers are broken ({e})")
                               for r in pristine_regions}
    bodies = {}
    for r in pristine_regions:
        s = submitted.get(r.id)
        if s is None:
            result[r.id] = outcome(NOT_TAKEN, "the region is missing from the submitted file")
            continue
        problems = check_body(s.solution, r.id)
        if problems:
            result[r.id] = outcome(REJECTED, "; ".join(problems[:5]))
            continue
        bodies[r.id] = s.solution
        result[r.id] = outcome(TAKEN)
    return rewrite(pristine_text, pristine_regions, bodies), result
