"""The command line fpbench calls qfp through: qfp (PyPI) is a library with no command of its own.

    qfp_driver.py index STATE CATALOG_LIST     ReferenceFingerprint + QfpDB.store for each listed file
    qfp_driver.py query STATE QUERY...         QueryFingerprint + QfpDB.query; one JSON line per match

Only qfp's own calls, with its defaults (fpType.Reference / fpType.Query, vThreshold 0.5); this script
adds nothing to its method. A match's offset is qfp's, in spectrogram frames of 32 samples at 8 kHz (4 ms).
A query qfp fails on raises here, so fpbench names it with this error.
"""
import json
import os
import sys

from qfp import QueryFingerprint, ReferenceFingerprint
from qfp.db import QfpDB

FRAME_SECONDS = 32 / 8000  # qfp's STFT hop at its 8 kHz rate (qfp/fingerprint.py, fpType)


def index(state, catalog_list):
    db = QfpDB(db_path=os.path.join(state, "qfp.db"))
    with open(catalog_list) as f:
        for path in (line.strip() for line in f):
            if path:
                fp = ReferenceFingerprint(path)
                fp.create()
                db.store(fp, path)


def query(state, files):
    db = QfpDB(db_path=os.path.join(state, "qfp.db"))
    for path in files:
        fp = QueryFingerprint(path)
        fp.create()
        db.query(fp)
        if not fp.matches:
            print(json.dumps({"query": path, "reference": None}))
        for match in fp.matches:
            print(json.dumps({"query": path, "reference": match.record, "offset": match.offset * FRAME_SECONDS, "score": match.vScore}))
        sys.stdout.flush()


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] in ("index", "query"):
        (index if sys.argv[1] == "index" else query)(sys.argv[2], sys.argv[3] if sys.argv[1] == "index" else sys.argv[3:])
    else:
        raise SystemExit(__doc__)
