#!/usr/bin/env python3
"""Runs docs/benchmark.md's pandas block ("From pandas") on the committed small reference
(Reports/ci-reference/benchmark) in a scratch copy, and checks what it printed and drew against metrics.csv
read without pandas. Needs Debian's python3-pandas and python3-matplotlib (scripts/test.sh installs them)."""
import csv, os, re, shutil, subprocess, sys, tempfile, unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
REFERENCE = os.path.join(ROOT, "Reports", "ci-reference", "benchmark")


def block():
    with open(os.path.join(ROOT, "docs", "benchmark.md")) as f:
        text = f.read()
    part = text.split("**From pandas (and R).**", 1)[1]
    return re.search(r"```python\n(.*?)```", part, re.S).group(1)


class PandasDocs(unittest.TestCase):
    def test_the_documented_lines_print_the_table_and_draw_its_column(self):
        with tempfile.TemporaryDirectory() as folder:
            for name in ("metrics.csv", "answers.csv"):
                shutil.copy(os.path.join(REFERENCE, name), folder)
            run = subprocess.run([sys.executable, "-c", block()], cwd=folder, capture_output=True, text=True,
                                 env=dict(os.environ, MPLBACKEND="Agg"), timeout=300)
            self.assertEqual(run.returncode, 0, run.stderr)
            with open(os.path.join(folder, "correct-5s.pdf"), "rb") as f:
                self.assertTrue(f.read(5) == b"%PDF-")
        # The printed table holds each algorithm's calibrated rate at 5 s, clean, as metrics.csv has it.
        with open(os.path.join(REFERENCE, "metrics.csv")) as f:
            rows = [r for r in csv.DictReader(f) if r["measure"] == "correct at calibrated threshold"
                    and r["length_s"] == "5" and r["condition"] == "clean"]
        self.assertGreaterEqual(len(rows), 5)
        lines = run.stdout.splitlines()
        header = next(l for l in lines if "constellation" in l).split()
        clean = next(l for l in lines if re.match(r"^5\s+clean\s", l))
        values = clean.split()[-len(header):]
        for row in rows:
            self.assertEqual(float(values[header.index(row["algorithm"])]), round(100 * float(row["rate"])), row["algorithm"])
        self.assertIn("correct", run.stdout)  # the outcomes' table


if __name__ == "__main__":
    unittest.main(verbosity=2)
