#!/usr/bin/env python3
"""docs/notes-map.md is the notes' map: every section a lab README's 对应讲义 line or an errata row
cites is a section of the map, titled as the notes title it, in the file the citation names; and
the map's sections are the notes' own (each title is a line of its notes file, checked where
CUDALAB_NOTES_DIR names the folder of the notes)."""
import os
import re
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
NOTES = os.environ.get("CUDALAB_NOTES_DIR", "")  # the folder of the four notes files, where you have them


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


def load_map():
    """{notes file: [section title, ...]} in the map's order."""
    with open(os.path.join(ROOT, "docs", "notes-map.md"), encoding="utf-8") as f:
        text = f.read()
    sections, current = {}, None
    for line in text.split("\n"):
        m = re.match(r"^## (\S+\.txt)$", line)
        if m:
            current = m.group(1)
            sections[current] = []
        elif current and line.startswith("| ") and not line.startswith(("| section", "|---")):
            sections[current].append(line.split(" | ")[0][2:].strip())
    return sections


MAP = load_map()
STRIPPED = {f: {strip(t) for t in titles} for f, titles in MAP.items()}


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


if __name__ == "__main__":
    unittest.main()
