#!/usr/bin/env python3
"""A toy fingerprinting system: the worked example of README.md, "Adding a system".

It is deliberately simple and uses Python's standard library only. A recording's "fingerprint" is the
change of its loudness from one 100 ms frame to the next; a query is matched by correlating its
fingerprint with every stretch of every indexed recording. It survives gain changes and mild noise,
and nothing else: it is here to show the contract, not to compete.

    envelope_example.py index STATE CATALOG_LIST      writes STATE/index.json
    envelope_example.py query STATE QUERY...          one JSON line per answer on standard output

fpbench hands it mono 16-bit WAV files only (the system file lists no other format, so fpbench
converts every catalog track); each answer line names the query file, the reference as listed in
CATALOG_LIST, the offset of the query's start in the reference (seconds) and a correlation in [-1, 1].
"""
import json
import math
import os
import sys
import wave

# Loudness frames: coarse enough to be cheap, fine enough for the 0.5 s offset tolerance. A setting of the
# system file ("frame_ms"), which fpbench passes in ENVELOPE_FRAME_MS (--set envelope-example.frame_ms=200).
FRAME_SECONDS = int(os.environ.get("ENVELOPE_FRAME_MS") or 100) / 1000
ANSWERS = 5  # the benchmark keeps five answers a query (hit@5)


def loudness_changes(path):
    """Log energy of each frame (100 ms unless set), differenced: a gain change adds a constant and vanishes."""
    with wave.open(path, "rb") as w:
        if w.getsampwidth() != 2 or w.getnchannels() != 1:
            raise SystemExit(f"{path}: expected mono 16-bit WAV")
        frame = max(1, int(w.getframerate() * FRAME_SECONDS))
        data = w.readframes(w.getnframes())
    samples = memoryview(data).cast("h")
    energies = []
    for start in range(0, len(samples) - frame + 1, frame):
        chunk = samples[start:start + frame]
        energies.append(math.log(1e-3 + sum(x * x for x in chunk) / frame))
    return [b - a for a, b in zip(energies, energies[1:])]


def correlation(a, b):
    n = len(a)
    ma, mb = sum(a) / n, sum(b) / n
    num = sum((x - ma) * (y - mb) for x, y in zip(a, b))
    den = math.sqrt(sum((x - ma) ** 2 for x in a) * sum((y - mb) ** 2 for y in b))
    return num / den if den > 0 else 0.0


def index(state, catalog_list):
    with open(catalog_list) as f:
        paths = [line.strip() for line in f if line.strip()]
    recordings = {path: loudness_changes(path) for path in paths}
    with open(os.path.join(state, "index.json.part"), "w") as f:
        json.dump(recordings, f)
    os.replace(os.path.join(state, "index.json.part"), os.path.join(state, "index.json"))


def query(state, files):
    with open(os.path.join(state, "index.json")) as f:
        recordings = json.load(f)
    for path in files:
        q = loudness_changes(path)
        best = []
        for name, r in recordings.items():
            scored = [(correlation(q, r[i:i + len(q)]), i) for i in range(0, len(r) - len(q) + 1)]
            if scored:
                score, at = max(scored)
                best.append((score, name, at * FRAME_SECONDS))
        best.sort(reverse=True)
        if not best:
            print(json.dumps({"query": path, "reference": None}))
        for score, name, offset in best[:ANSWERS]:
            print(json.dumps({"query": path, "reference": name, "offset": round(offset, 3), "score": round(score, 4)}))


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "index":
        index(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 4 and sys.argv[1] == "query":
        query(sys.argv[2], sys.argv[3:])
    elif sys.argv[1:] == ["--version"]:
        print("envelope-example 1")
    else:
        raise SystemExit(__doc__)
