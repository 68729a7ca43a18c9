#!/usr/bin/env python3
"""docs/errata.md comes from the tests: every test it names as a proof exists in tests/, every
NotesErrata test is named there, every lab output it cites is a file that holds the quoted line,
and the root README and the READMEs of the labs it touches link to it."""
import glob
import os
import re
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ERRATA = os.path.join(ROOT, "docs", "errata.md")
TEST_DEF = re.compile(r"\bTEST(?:_F|_P)?\(\s*(\w+)\s*,\s*(\w+)\s*\)")
CITED = re.compile(r"`([A-Z]\w*)\.([A-Z]\w*)`")
OUTPUT = re.compile(r'lab output: `([^`]+)`, "([^"]+)"')


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def defined_tests():
    tests = set()
    for path in glob.glob(os.path.join(ROOT, "tests", "**", "*.c*"), recursive=True):
        if not path.endswith((".cpp", ".cu", ".cuh", ".cc")):  # not a compiled cache (*.cpython-*.pyc)
            continue
        tests.update(TEST_DEF.findall(read(path)))
    return tests


class Errata(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.text = read(ERRATA)
        cls.rows = [l for l in cls.text.splitlines() if re.match(r"^\| \d+ \|", l)]

    def test_rows_are_numbered_in_order_and_each_has_a_proof(self):
        numbers = [int(r.split("|")[1]) for r in self.rows]
        self.assertEqual(numbers, list(range(1, len(numbers) + 1)))
        for r in self.rows:
            proof = r.rstrip("|").split("|")[-1]
            self.assertTrue(CITED.search(proof) or "lab output:" in proof or "**pending**" in proof, r)

    def test_every_cited_report_exists(self):
        for report in re.findall(r"`(docs/reports/[^`]+)`", self.text):
            self.assertTrue(os.path.isfile(os.path.join(ROOT, report)), report)

    def test_every_cited_test_exists(self):
        cited = set(CITED.findall(self.text))
        self.assertTrue(cited)
        self.assertEqual(sorted(cited - defined_tests()), [])

    def test_every_errata_test_is_cited(self):
        ours = {t for t in defined_tests() if t[0] == "NotesErrata"}
        self.assertGreaterEqual(len(ours), 10)
        self.assertEqual(sorted(ours - set(CITED.findall(self.text))), [])

    def test_cited_lab_outputs_hold_the_quoted_line(self):
        outputs = OUTPUT.findall(self.text)
        self.assertTrue(outputs)
        for path, quote in outputs:
            text = re.sub(r"\s+", " ", read(os.path.join(ROOT, path)))
            self.assertIn(re.sub(r"\s+", " ", quote), text, path)

    def test_readmes_link_to_it(self):
        self.assertIn("docs/errata.md", read(os.path.join(ROOT, "README.md")))
        for lab in ("device_query", "vec_add", "rgba_split", "mem_spaces", "occupancy", "reduction"):
            self.assertIn("docs/errata.md", read(os.path.join(ROOT, "labs", lab, "README.md")), lab)


if __name__ == "__main__":
    unittest.main()
