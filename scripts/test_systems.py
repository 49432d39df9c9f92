#!/usr/bin/env python3
"""Runs each outside system of Systems/ on catalog-ci through `fpbench benchmark --system` (part of
scripts/test.sh). Each system is installed first with its own install.sh; one that cannot be installed
here (no network for a source repository, say) is reported as skipped with its installer's last words,
never silently. A system that installed must then run: be indexed (not skipped), answer every query,
fail (crash, time limit, unreadable output) on at most 5 % of them, and find the right recording on top for at
least 90 % of clean 10 s queries: every peer finds clean excerpts of its own catalog, so less than that is our
adapter's fault until shown otherwise (the working-adapter gate). Errors are grouped by message, with counts.
With CI=true, a run where no system could be installed fails instead of passing with nothing run.

    scripts/test_systems.py FPBENCH [SYSTEM ...]     (default: every folder of Systems/ with an install.sh)
"""
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    fpbench, names = sys.argv[1], sys.argv[2:] or sorted(
        n for n in os.listdir(os.path.join(ROOT, "Systems")) if os.path.exists(os.path.join(ROOT, "Systems", n, "install.sh")))
    installed, problems = [], []
    env = dict(os.environ, FPBENCH=os.path.abspath(fpbench))  # Systems/fpbench runs the fpbench under test
    for name in names:
        run = subprocess.run([os.path.join(ROOT, "Systems", name, "install.sh")], capture_output=True, text=True, env=env)
        if run.returncode != 0:
            last = [line for line in run.stderr.splitlines() if line.strip()][-2:]
            print(f"test_systems: {name}: SKIPPED, its install failed (exit {run.returncode}): {' | '.join(last)}")
        else:
            installed.append(name)
    if not installed:
        print("test_systems: no system could be installed here; nothing to run")
        return 1 if os.environ.get("CI") == "true" else 0
    with tempfile.TemporaryDirectory() as out:
        os.chmod(out, 0o755)  # a system's server may run as another user (Dejavu's PostgreSQL as postgres)
        command = [fpbench, "benchmark", "--dataset", "catalog-ci", "--lengths", "10", "--queries", "20", "--negatives", "4",
                   "--conditions", "clean", "white-10dB", "--algorithms", "haitsma-kalker", "--no-cache",
                   "--system-state", os.path.join(out, "state"), "--out", os.path.join(out, "run")]
        for name in installed:
            command += ["--system", os.path.join(ROOT, "Systems", name, f"{name}.json")]
        run = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=env)
        if run.returncode != 0:
            print(run.stderr)
            return 1
        with open(os.path.join(out, "run", "results.json")) as f:
            results = json.load(f)
    ran = {a["identifier"] for a in results["algorithms"]}
    # A system is named in results by its system file's identifier, which need not be its folder's name.
    def identifier(name):
        with open(os.path.join(ROOT, "Systems", name, f"{name}.json")) as f:
            return json.load(f)["identifier"]
    installed = [identifier(name) for name in installed]
    queries = {q["id"]: q for q in results["queries"]}
    for name in installed:
        if name not in ran:
            reasons = [s["reason"] for s in results["skipped"] if s["item"] == name]
            problems.append(f"{name} did not run: {reasons}")
            continue
        answers = [a for a in results["answers"] if a["algorithm"] == name]
        errors = [a for a in answers if (a.get("note") or "").startswith("system error:")]
        expected = sum(1 if q["negative"] else 2 for q in queries.values())
        if len(answers) != expected:
            problems.append(f"{name}: {len(answers)} answers, expected {expected}")
        if len(errors) > 0.05 * len(answers):
            grouped = collections.Counter(re.sub(r"query files? [^:]*: ", "", e["note"]) for e in errors)
            problems.append(f"{name}: {len(errors)} of {len(answers)} queries failed (adapter suspect): "
                            + "; ".join(f"{n} x {message[:300]}" for message, n in grouped.most_common(5)))
    for name in ["haitsma-kalker"] + [n for n in installed if n in ran]:
        clean = [a for a in results["answers"] if a["algorithm"] == name and a["condition"] == "clean" and not queries[a["query"]]["negative"]]
        right = sum(1 for a in clean if a["top"] and results["catalog"]["tracks"][a["top"][0]["track"]] == queries[a["query"]]["file"])
        print(f"test_systems: {name}: right recording on top for {right} of {len(clean)} clean 10 s queries")
        if name != "haitsma-kalker" and right < 0.9 * len(clean):
            problems.append(f"{name}: the right recording on top for only {right} of {len(clean)} clean 10 s queries "
                            "(under 90 %: the adapter is suspect)")
    for p in problems:
        print(f"test_systems: FAILED: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
