#!/usr/bin/env python3
"""Runs each outside system of Systems/ on catalog-ci through `fpbench benchmark --system` (part of
scripts/test.sh). Each system is installed first with its own install.sh; one that cannot be installed
here (no network for a source repository, say) is reported as skipped with its installer's last words,
never silently. A system that installed must then run: be indexed (not skipped), answer every query,
and fail (crash, time limit, unreadable output) on at most a quarter of them; its correct rate on clean
10 s queries is printed beside the built-in algorithm's, for the eye, not asserted (a peer may be weak).

    scripts/test_systems.py FPBENCH [SYSTEM ...]     (default: every folder of Systems/ with an install.sh)
"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    fpbench, names = sys.argv[1], sys.argv[2:] or sorted(
        n for n in os.listdir(os.path.join(ROOT, "Systems")) if os.path.exists(os.path.join(ROOT, "Systems", n, "install.sh")))
    installed, problems = [], []
    for name in names:
        run = subprocess.run([os.path.join(ROOT, "Systems", name, "install.sh")], capture_output=True, text=True)
        if run.returncode != 0:
            last = [line for line in run.stderr.splitlines() if line.strip()][-2:]
            print(f"test_systems: {name}: SKIPPED, its install failed (exit {run.returncode}): {' | '.join(last)}")
        else:
            installed.append(name)
    if not installed:
        print("test_systems: no system could be installed here; nothing to run")
        return 0
    with tempfile.TemporaryDirectory() as out:
        command = [fpbench, "benchmark", "--dataset", "catalog-ci", "--lengths", "10", "--queries", "8", "--negatives", "4",
                   "--conditions", "clean", "white-10dB", "--algorithms", "haitsma-kalker", "--no-cache",
                   "--system-state", os.path.join(out, "state"), "--out", os.path.join(out, "run")]
        for name in installed:
            command += ["--system", os.path.join(ROOT, "Systems", name, f"{name}.json")]
        run = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
        if run.returncode != 0:
            print(run.stderr)
            return 1
        with open(os.path.join(out, "run", "results.json")) as f:
            results = json.load(f)
    ran = {a["identifier"] for a in results["algorithms"]}
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
        if len(errors) * 4 > len(answers):
            problems.append(f"{name}: {len(errors)} of {len(answers)} queries failed, for example {errors[0]['note']}")
    for name in ["haitsma-kalker"] + [n for n in installed if n in ran]:
        clean = [a for a in results["answers"] if a["algorithm"] == name and a["condition"] == "clean" and not queries[a["query"]]["negative"]]
        right = sum(1 for a in clean if a["top"] and results["catalog"]["tracks"][a["top"][0]["track"]] == queries[a["query"]]["file"])
        print(f"test_systems: {name}: right recording on top for {right} of {len(clean)} clean 10 s queries")
    for p in problems:
        print(f"test_systems: FAILED: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
