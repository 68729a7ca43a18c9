#!/usr/bin/env python3
"""docs/notes-map.md is the notes' map: every section a lab README's 对应讲义 line or an errata row
cites is a section of the map, titled as the notes title it, in the file the citation names; every
lab a row of the map names cites that row's section in its 对应讲义 line; the semester order holds
every lab of labs/manifest.json once; the list of what the suite does not cover names sections of
the map; and the map's sections are the notes' own (each title is a line of its notes file, and
each heading the notes mark is a row, checked where CUDALAB_NOTES_DIR names the folder of the notes)."""
import os
import re
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
NOTES = os.environ.get("CUDALAB_NOTES_DIR", "")  # the folder of the four notes files, where you have them

from cudalab import lab_manifest  # noqa: E402

LABS = [lab["name"] for lab in lab_manifest.load()]


def strip(title):
    """A title or citation without its trailing remark in full-width parentheses and its list numbers."""
    title = title.replace("\xa0", " ").strip()
    title = title.split(" —— ")[0]  # a program's subtitle
    title = re.sub(r"（[^（）]*）$", "", title).strip()
    title = re.sub(r"(\s#\d+)+$", "", title).strip()
    return title


def split_outside_parentheses(text, sep):
    parts, depth, cur = [], 0, ""
    for ch in text:
        depth += {"（": 1, "）": -1}.get(ch, 0)
        if ch == sep and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    return parts + [cur]


def map_text():
    with open(os.path.join(ROOT, "docs", "notes-map.md"), encoding="utf-8") as f:
        return f.read()


def load_rows():
    """[(notes file, section title, covered-by cell)] in the map's order."""
    rows, current = [], None
    for line in map_text().split("\n"):
        m = re.match(r"^## (\S+\.txt)$", line)
        if m:
            current = m.group(1)
        elif line.startswith("## "):
            current = None
        elif current and line.startswith("| ") and not line.startswith(("| section", "|---")):
            title, covered = line[2:].rstrip(" |").split(" | ", 1)
            rows.append((current, title.strip(), covered))
    return rows


def load_map():
    """{notes file: [section title, ...]} in the map's order."""
    sections = {}
    for f, title, _ in load_rows():
        sections.setdefault(f, []).append(title)
    return sections


def labs_named(cell):
    """The labs a covered-by cell names (a lab's name as a word, outside `code`)."""
    prose = re.sub(r"`[^`]*`", "", cell)
    return [lab for lab in LABS if re.search(rf"(?<![\w/.-]){re.escape(lab)}(?![\w/-])", prose)]


def section_list(heading):
    """The "- " items of the map's section `heading` (## level)."""
    items, inside = [], False
    for line in map_text().split("\n"):
        if line.startswith("## "):
            inside = line[3:].strip() == heading
        elif inside and line.startswith("- "):
            items.append(line[2:])
    return items


MAP = load_map()
STRIPPED = {f: {strip(t) for t in titles} for f, titles in MAP.items()}


def readme_citations():
    """{lab: {(notes file, stripped section)}} from every lab README's 对应讲义 line."""
    out = {}
    for lab in LABS:
        with open(os.path.join(ROOT, "labs", lab, "README.md"), encoding="utf-8") as f:
            lines = [l for l in f.read().split("\n") if l.startswith("对应讲义: ")]
        out[lab] = {(notes, strip(cited)) for line in lines for notes, cited in citations(line[len("对应讲义: "):])}
    return out


def marked_headings(name, text):
    """The headings a notes file marks as such: a line ending in a pilcrow (the execution note), or
    a short numbered line of Chinese text ("3. 核函数的调用方式", the intro note)."""
    out = []
    for line in text.split("\n"):
        line = line.replace("\xa0", " ").strip()
        if line.endswith("¶"):
            out.append(line[:-1].strip().strip("`"))
        elif (name.startswith("cuda-intro") and re.match(r"^\d+\.\s*\S", line) and len(line) <= 40
              and re.search(r"[\u4e00-\u9fff]", line) and not line.endswith(("：", "。", "；"))):
            out.append(line)
    return out


def citations(line):
    """[(file, cited section)] of a 对应讲义 line; a group without "file ·" continues the last file."""
    out, current = [], None
    for group in split_outside_parentheses(line, "；"):
        if " · " in group:
            current, group = group.split(" · ", 1)
        for item in split_outside_parentheses(group, "、"):
            if item.strip():
                out.append((current.strip(), item.strip()))
    return out


class NotesMap(unittest.TestCase):
    def test_the_map_has_the_four_notes(self):
        self.assertEqual(sorted(MAP), ["cuda-intro-vecadd-reduction.txt", "execution-model-and-performance.txt",
                                       "hardware-and-execution-model.txt", "lecture2-programming-model.txt"])
        for f, titles in MAP.items():
            self.assertGreaterEqual(len(titles), 5, f)

    @unittest.skipUnless(NOTES and os.path.isdir(NOTES), "CUDALAB_NOTES_DIR does not name the notes' folder")
    def test_every_title_is_a_line_of_its_notes(self):
        for f, titles in MAP.items():
            with open(os.path.join(NOTES, f), encoding="utf-8") as fh:
                lines = {re.sub(r"¶$", "", line.replace("\xa0", " ").strip()) for line in fh}
            # the notes number their sub-sections ("1. CUDA 程序的..."); the map leaves those numbers out
            unnumbered = {re.sub(r"^\d+\.\s*", "", line) for line in lines} | {strip(line) for line in lines}
            for t in titles:
                self.assertTrue(t in lines or t in unnumbered or strip(t) in lines, f"{f}: {t!r} is not a line of the notes")

    def test_every_readme_cites_sections_of_the_map(self):
        for lab in sorted(os.listdir(os.path.join(ROOT, "labs"))):
            path = os.path.join(ROOT, "labs", lab, "README.md")
            if not os.path.isfile(path):
                continue
            with open(path, encoding="utf-8") as f:
                lines = [l for l in f.read().split("\n") if l.startswith("对应讲义: ")]
            self.assertEqual(len(lines), 1, lab)
            for notes, cited in citations(lines[0][len("对应讲义: "):]):
                self.assertIn(notes, MAP, f"{lab}: {notes}")
                self.assertIn(strip(cited), STRIPPED[notes], f"labs/{lab}/README.md cites {cited!r} of {notes}")

    def test_every_errata_row_about_the_notes_names_a_section_of_the_map(self):
        every = set().union(*STRIPPED.values())
        with open(os.path.join(ROOT, "docs", "errata.md"), encoding="utf-8") as f:
            rows = [l.split(" | ") for l in f.read().split("\n") if re.match(r"^\| \d+ \|", l)]
        self.assertGreater(len(rows), 20)
        for row in rows:
            where = row[1].strip()
            if where.startswith(("`", "READMEs")):
                continue  # about the suite's own text, not the notes
            for part in split_outside_parentheses(where, "、"):
                section = strip(re.split(r", | \(", part)[0])
                self.assertIn(section, every, f"errata row {row[0].strip('| ')} names {part!r}")


# The notes' questions a lab poses as an exercise, by the tag its README item starts with:
# "N. (自测 Q3) ...". The exercises 73 and 74 are graded tasks instead (NOTES_TASKS).
NOTES_QUESTIONS = ["自测 Q1", "自测 Q2", "自测 Q3", "自测 Q4", "自测 Q5", "思考题 Q1", "思考题 Q2", "思考题 Q3",
                   "讲义：24 个 warp", "练习 74"]
NOTES_TASKS = {"练习 73": "vec_add.grid_stride", "练习 74": "occupancy.calculator"}


def exercise_items(text):
    """The numbered items of a README's "## Exercises" section, each with its continuation lines."""
    m = re.search(r"^## Exercises.*$", text, re.M)
    if not m:
        return []
    section = re.split(r"^## ", text[m.end():], maxsplit=1, flags=re.M)[0]
    return [item.strip() for item in re.split(r"^(?=\d+\. )", section, flags=re.M) if re.match(r"\d+\. ", item)]


def gtest_names():
    """Suite.Name of every TEST / TEST_F / TEST_P in tests/."""
    names = set()
    for folder, _, files in os.walk(os.path.join(ROOT, "tests")):
        for name in files:
            if name.endswith((".cpp", ".cu")):
                with open(os.path.join(folder, name), encoding="utf-8") as f:
                    for suite, test in re.findall(r"\bTEST(?:_F|_P)?\(\s*(\w+)\s*,\s*(\w+)\s*\)", f.read()):
                        names.add(f"{suite}.{test}")
    return names


class Questions(unittest.TestCase):
    def test_every_question_of_the_notes_is_posed_with_the_tests_that_check_it(self):
        tests, posed = gtest_names(), {}
        for lab in LABS:
            with open(os.path.join(ROOT, "labs", lab, "README.md"), encoding="utf-8") as f:
                for item in exercise_items(f.read()):
                    tag = re.match(r"\d+\. \(([^)]+)\)", item)
                    if not tag:
                        continue
                    after = re.split(r"Checked\s+by", item, maxsplit=1)
                    checked = re.findall(r"`([A-Z]\w*\.[A-Z]\w*)`", after[1]) if len(after) == 2 else []
                    self.assertTrue(checked, f"{lab}: ({tag.group(1)}) names no test after 'Checked by'")
                    for t in checked:
                        self.assertIn(t, tests, f"{lab}: ({tag.group(1)}) names {t}, which is not a test")
                    posed.setdefault(tag.group(1), []).append(lab)
        self.assertEqual(sorted(set(NOTES_QUESTIONS) - set(posed)), [])
        self.assertEqual(sorted(t for t in posed if t not in NOTES_QUESTIONS), [])

    def test_the_notes_exercises_are_graded_tasks(self):
        import json
        with open(os.path.join(ROOT, "grading", "points.json"), encoding="utf-8") as f:
            tasks = json.load(f)["tasks"]
        for exercise, task in NOTES_TASKS.items():
            self.assertIn(task, tasks, exercise)
            self.assertGreater(tasks[task]["points"], 0, exercise)

    def test_the_exercise_parser_splits_items_and_ends_at_the_next_section(self):
        text = "## Exercises\n\n1. (自测 Q1) a\n   b `X.Y`\n2. c\n## Tests\n3. (自测 Q2) no\n"
        self.assertEqual(exercise_items(text), ["1. (自测 Q1) a\n   b `X.Y`", "2. c"])


class Rows(unittest.TestCase):
    def test_every_lab_a_row_names_cites_the_row(self):
        cited = readme_citations()
        missing = [f"labs/{lab}/README.md does not cite {title!r} of {f}"
                   for f, title, covered in load_rows() for lab in labs_named(covered)
                   if (f, strip(title)) not in cited[lab]]
        self.assertEqual(missing, [])

    def test_every_lab_is_in_some_row(self):
        named = {lab for _, _, covered in load_rows() for lab in labs_named(covered)}
        self.assertEqual(sorted(set(LABS) - named), [])

    def test_a_row_that_names_no_lab_would_be_found(self):
        # the lab names are found as words: latency is not latency_hiding, scan is not "scans"
        self.assertEqual(labs_named("latency_hiding (TLP)"), ["latency_hiding"])
        self.assertEqual(labs_named("latency, occupancy"), ["occupancy", "latency"])
        self.assertEqual(labs_named("`tile[32][33]` in common/scan.hpp, scans"), [])

    def test_the_semester_order_holds_every_lab_once(self):
        text = map_text()
        paragraph = text.split("## A suggested order for a semester", 1)[1].strip().split("\n\n")[0]
        chain = re.match(r"((?:[a-z_]+\s*→\s*)+[a-z_]+)", " ".join(paragraph.split()))
        self.assertIsNotNone(chain)
        order = [w.strip() for w in chain.group(1).split("→")]
        self.assertEqual(sorted(order), sorted(LABS))
        self.assertEqual(len(order), len(set(order)))

    def test_what_the_suite_does_not_cover_names_sections_of_the_map(self):
        items = section_list("What the suite does not cover")
        self.assertGreaterEqual(len(items), 3)
        for item in items:
            m = re.match(r"^(\S+\.txt) · (.+?): (.+)$", item)
            self.assertIsNotNone(m, item)
            notes, section, why = m.groups()
            self.assertIn(notes, MAP, item)
            self.assertIn(strip(section), STRIPPED[notes], item)
            self.assertGreater(len(why.split()), 5, item)  # says why, not just "not covered"

    @unittest.skipUnless(NOTES and os.path.isdir(NOTES), "CUDALAB_NOTES_DIR does not name the notes' folder")
    def test_every_heading_the_notes_mark_has_a_row(self):
        for f in MAP:
            with open(os.path.join(NOTES, f), encoding="utf-8") as fh:
                headings = marked_headings(f, fh.read())
            rows = {strip(t) for t in MAP[f]} | {re.sub(r"^\d+\.\s*", "", strip(t)) for t in MAP[f]}
            for h in headings:
                self.assertTrue(strip(h) in rows or re.sub(r"^\d+\.\s*", "", strip(h)) in rows,
                                f"{f}: the heading {h!r} has no row")

    def test_the_headings_rule_finds_the_marked_lines(self):
        text = "分支发散¶\n正文\n`__launch_bounds__`¶\n3. 核函数的调用方式\n1. 先做这一步：\nint x = 3.0;\n"
        self.assertEqual(marked_headings("execution-model-and-performance.txt", text), ["分支发散", "__launch_bounds__"])
        self.assertEqual(marked_headings("cuda-intro-vecadd-reduction.txt", text),
                         ["分支发散", "__launch_bounds__", "3. 核函数的调用方式"])


if __name__ == "__main__":
    unittest.main()
