#!/usr/bin/env python3
"""The peer tables of docs/systems.md and the README's, written from the committed run (Reports/benchmark-systems:
its metrics.csv and the runs beside it), so the docs cannot drift from the numbers.
  python3 scripts/peer_tables.py            prints the tables
  python3 scripts/peer_tables.py --write    puts them into docs/systems.md and README.md between their markers
  python3 scripts/peer_tables.py --check    fails, naming the first differing line, when a document holds others (the test command)"""
import csv, glob, json, os, sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
RUN = os.path.join(ROOT, "Reports", "benchmark-systems")
BEGIN, END = "<!-- peer tables: written by scripts/peer_tables.py from Reports/benchmark-systems -->", "<!-- end of the peer tables -->"
FRONT = ["clean", "white-0dB", "babble-5dB", "playback", "room-0.3s", "room-0.8s", "room-1.5s", "speed-0.95", "tempo-1.1", "pitch-down"]
NOISE = ["clean", "white-10dB", "white-5dB", "white-0dB", "babble-5dB", "playback", "room-0.3s", "room-0.8s", "room-1.5s"]
TIME = ["speed-0.95", "speed-1.05", "tempo-0.9", "tempo-1.1", "pitch-down", "pitch-up"]
SHORT = NOISE + ["speed-0.95", "tempo-0.9", "pitch-down"]
CALIBRATED = "correct at calibrated threshold"


def systems():
    """Every outside system's identifier (and its variants') with the shortest query it declares (seconds, or
    0), from Systems/*/*.json."""
    shortest = {}
    for path in glob.glob(os.path.join(ROOT, "Systems", "*", "*.json")):
        with open(path) as f:
            system = json.load(f)
        seconds = system.get("shortestQuery", {}).get("seconds", 0)
        for name in [system["identifier"]] + [f"{system['identifier']}@{v['name']}" for v in system.get("variants", [])]:
            shortest[name] = seconds
    return shortest


def read(folder):
    """{(row, length, condition, measure): (successes, total, low, high)} and the rows in the file's order."""
    cells, rows = {}, []
    with open(os.path.join(folder, "metrics.csv")) as f:
        for r in csv.DictReader(f):
            if r["algorithm"] not in rows:
                rows.append(r["algorithm"])
            cells[(r["algorithm"], float(r["length_s"]), r["condition"], r["measure"])] = (
                int(r["successes"]), int(r["total"]), float(r["interval_low"]), float(r["interval_high"]))
    return cells, rows


def runs():
    """The main run, then each run beside it without its constellation (the main run's rows already)."""
    cells, rows = read(RUN)
    for folder in sorted(glob.glob(os.path.join(RUN, "*", "metrics.csv"))):
        side, side_rows = read(os.path.dirname(folder))
        rows += [r for r in side_rows if r not in rows]
        cells.update({k: v for k, v in side.items() if k not in cells})
    return cells, rows


def name(row, outside):
    return f"**`{row}`**" if row in outside else f"`{row}`"


def rate(cell, interval):
    if cell is None or cell[1] == 0:
        return "–"
    s, n, low, high = cell
    text = f"{round(100 * s / n)}"
    return f"{text} [{round(100 * low)}-{round(100 * high)}]" if interval else text


def held_out(cells, row, length):
    key = next((k for k in cells if k[0] == row and k[1] == length and k[2] == "negatives"
                and k[3].startswith("false positive at calibrated threshold (held out,")), None)
    if key is None:
        return "–"
    s, n, low, high = cells[key]
    return f"{s}/{n} [{100 * low:.1f}-{100 * high:.1f}]"


def speech(cells, row, length):
    key = next((k for k in cells if k[0] == row and k[1] == length and k[2] == "cross-check"), None)
    return "–" if key is None else f"{cells[key][0]}/{cells[key][1]}"


def table(title, columns, cells, rows, outside, length, interval, extra=()):
    heads = [c for c in columns] + [h for h, _ in extra]
    lines = [f"| {title} | " + " | ".join(heads) + " |", "|---|" + "---:|" * len(heads)]
    for row in rows:
        if not any(k[0] == row and k[1] == length and cells[k][1] > 0 for k in cells):
            if length < outside.get(row, 0):  # a length the system does not take (its shortestQuery); else not asked
                lines.append(f"| {name(row, outside)} | " + " | ".join(["not supported"] + [""] * (len(heads) - 1)) + " |")
            continue
        values = [rate(cells.get((row, length, c, CALIBRATED)), interval) for c in columns]
        values += [f(cells, row, length) for _, f in extra]
        lines.append(f"| {name(row, outside)} | " + " | ".join(values) + " |")
    return "\n".join(lines)


def own(cells, row, length):
    clean, fp = cells.get((row, length, "clean", "correct")), cells.get((row, length, "negatives", "false positive"))
    return "–" if clean is None or fp is None else f"{round(100 * clean[0] / clean[1])} %, {fp[0]}/{fp[1]}"


def repeats(cells, row, length):
    cell = cells.get((row, length, "clean", "correct or repeated passage at calibrated threshold"))
    return rate(cell, False)


def systems_tables(cells, rows, outside):
    """docs/systems.md's: every condition at 10 s with intervals, the no-match columns, then 5, 2 and 1 s."""
    parts = [
        table("10 s queries", NOISE, cells, rows, outside, 10.0, True),
        table("10 s queries", TIME, cells, rows, outside, 10.0, True),
        table("10 s queries", [], cells, rows, outside, 10.0, True, extra=[
            ("held-out false positives [by recording, %]", held_out), ("speech cross-check", speech),
            ("clean, repeated passages counted", repeats), ("own threshold: clean, negatives matched", own)]),
    ]
    for length in (5.0, 2.0, 1.0):
        parts.append(table(f"{length:g} s queries", SHORT, cells, rows, outside, length, False,
                           extra=[("held-out false positives", held_out)]))
    return "\n\n".join(parts)


def front_table(cells, rows, outside):
    """The README's: 10 s, the conditions that separate the systems, and the held-out false positives."""
    return table("10 s queries", FRONT, cells, rows, outside, 10.0, False, extra=[("held-out false positives", held_out)])


DOCUMENTS = [(os.path.join(ROOT, "docs", "systems.md"), systems_tables), (os.path.join(ROOT, "README.md"), front_table)]


def main():
    cells, rows = runs()
    outside = systems()
    mode = sys.argv[1] if len(sys.argv) > 1 else None
    if mode not in (None, "--write", "--check"):
        sys.exit(__doc__)
    for path, write in DOCUMENTS:
        text = BEGIN + "\n" + write(cells, rows, outside) + "\n" + END
        name = os.path.relpath(path, ROOT)
        if mode is None:
            print(f"{name}:\n{text}\n")
            continue
        with open(path) as f:
            doc = f.read()
        if BEGIN not in doc or END not in doc:
            sys.exit(f"{name} has no peer-table markers ({BEGIN} ... {END})")
        a, b = doc.index(BEGIN), doc.index(END) + len(END)
        if mode == "--write":
            with open(path, "w") as f:
                f.write(doc[:a] + text + doc[b:])
            continue
        held, made = doc[a:b].split("\n"), text.split("\n")
        for x, y in zip(held, made):
            if x != y:
                sys.exit(f"{name}'s peer tables differ from Reports/benchmark-systems (scripts/peer_tables.py --write):\n  doc: {x}\n  run: {y}")
        if len(held) != len(made):
            sys.exit(f"{name}'s peer tables have {len(held)} lines, Reports/benchmark-systems gives {len(made)} (scripts/peer_tables.py --write)")
    if mode == "--check":
        print("peer tables: docs/systems.md and README.md agree with Reports/benchmark-systems")


if __name__ == "__main__":
    main()
