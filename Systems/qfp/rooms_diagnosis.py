"""For each kept query of a benchmark folder (audio/queries/ID/CONDITION.wav), qfp's own first stage
(radius search and quad filters) run against its database: how many of the query's quads land on the
true recording within 20 frames of the true offset (qfp bins candidates in 20 frames and needs 4), and
qfp's verification score at the true offset (its threshold 0.5). The reproduction of docs/systems.md's
account of qfp's rooms (qfp's own calls, nothing changed; the database is built once if DB is new):

    fpbench benchmark --dataset catalog-ci --lengths 10 --queries 20 --negatives 10 --algorithms haitsma-kalker \
        --conditions clean room-0.3s room-0.8s room-1.5s --keep-audio all --out FOLDER
    Systems/qfp/installed/venv/bin/python Systems/qfp/rooms_diagnosis.py FOLDER DB Datasets/catalog-ci/audio
"""
import collections
import json
import os
import sqlite3
import statistics
import sys

import numpy as np

from qfp import QueryFingerprint, ReferenceFingerprint
from qfp.db import QfpDB

folder, db_path, dataset = sys.argv[1:4]
results = json.load(open(os.path.join(folder, "results.json")))
db = QfpDB(db_path=db_path)
if not os.path.getsize(db_path) > 100_000:
    for track in results["catalog"]["tracks"]:
        reference = ReferenceFingerprint(os.path.join(dataset, track))
        reference.create()
        db.store(reference, track)
truth = {q["id"]: q for q in results["queries"] if not q["negative"]}
FRAME = 32 / 8000
counts, scores = collections.defaultdict(list), collections.defaultdict(list)
for qid, q in sorted(truth.items()):
    for wav in sorted(os.listdir(os.path.join(folder, "audio", "queries", qid))):
        condition = wav[:-4]
        fp = QueryFingerprint(os.path.join(folder, "audio", "queries", qid, wav))
        fp.create()
        conn = sqlite3.connect(db.path)
        c = conn.cursor()
        filtered = collections.defaultdict(list)
        for qHash, qQuad in zip(fp.hashes, fp.strongest):
            db._radius_nn(c, qHash)
            with np.errstate(divide="ignore", invalid="ignore"):
                db._filter_candidates(conn, c, qQuad, filtered)
        rid = c.execute("SELECT id FROM Records WHERE title=?", (q["file"],)).fetchone()[0]
        true = q["start"] / FRAME
        counts[condition].append(sum(1 for off, _ in filtered.get(rid, []) if abs(off - true) <= 20))
        mc = db.MatchCandidate(rid, true, 0, 1.0, 1.0)
        scores[condition].append(db._verify_peaks(mc, db._lookup_peak_range(c, rid, true), fp.peaks))
        c.close()
        conn.close()
for condition in sorted(counts):
    n = counts[condition]
    print(f"{condition}: true-offset quads median {statistics.median(n)} (range {min(n)}-{max(n)}), "
          f"{sum(x >= 4 for x in n)}/{len(n)} with 4 or more; verification at the true offset median "
          f"{statistics.median(scores[condition]):.2f}, {sum(s >= 0.5 for s in scores[condition])}/{len(n)} at 0.5 or more")
