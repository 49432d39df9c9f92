"""The calls fpbench makes to Dejavu, through its own Python API with its default settings
(dejavu/config/settings.py); dejavu.sh starts the database first.

    dejavu_driver.py index STATE CATALOG_LIST     Dejavu.fingerprint_directory over links to the files
    dejavu_driver.py query STATE QUERY...         FileRecognizer's steps for each query: one JSON line

Dejavu names a song after its file name without the extension, and its fingerprint_file fails at this
commit (it passes song_name to a worker that does not take it), so the catalog is fingerprinted with
fingerprint_directory (one process) over a folder of links named NNNNN__NAME (unique even when two
tracks share a name); STATE/songs.json maps the song names back to the catalog's paths for the answers.

Each answer: the query, the catalog path, offset_seconds (where the query starts in the song) and a score.
Dejavu ranks its TOPN (2) best songs by their aligned hashes (the hashes at the song's commonest offset
difference) and has no threshold of its own; its answer is its first song, the one printed here. Its
results report hashes_matched_in_input, every hash of the query found in the song at any offset, which
unrelated audio reaches as easily as the song itself (at 10 s, a threshold on it that lets 1 % of
negatives through keeps 45 % of clean queries against 91 % of Dejavu's own answers). So the score is the
aligned count Dejavu ranks by, recomputed from find_matches' output exactly as align_matches counts it
(align_matches does not return it); hashes_matched_in_input is printed beside it.
"""
import collections
import json
import os
import sys

import dejavu.logic.decoder as decoder
from dejavu import Dejavu

CONFIG = {
    "database_type": "postgres",
    "database": {"host": os.environ["DEJAVU_SOCKET"], "port": 5432, "user": "dejavu", "password": "", "database": "dejavu"},
}


def index(djv, state, catalog_list):
    links, songs = os.path.join(state, "links"), {}
    os.makedirs(links, exist_ok=True)
    with open(catalog_list) as f:
        paths = [line.strip() for line in f if line.strip()]
    for n, path in enumerate(paths):
        name = "%05d__%s" % (n, os.path.basename(path))
        os.symlink(path, os.path.join(links, name))
        songs[os.path.splitext(name)[0]] = path
    extensions = sorted({os.path.splitext(p)[1] for p in paths})
    djv.fingerprint_directory(links, extensions, nprocesses=1)
    with open(os.path.join(state, "songs.json"), "w") as f:
        json.dump(songs, f)


def query(djv, state, files):
    with open(os.path.join(state, "songs.json")) as f:
        songs = json.load(f)
    for path in files:
        # FileRecognizer.recognize_file, step by step, to keep find_matches' output for the score.
        channels, fs, _ = decoder.read(path, djv.limit)
        hashes = set()
        for channel in channels:
            fingerprints, _ = djv.generate_fingerprints(channel, Fs=fs)
            hashes |= set(fingerprints)
        matches, dedup_hashes, _ = djv.find_matches(hashes)
        results = djv.align_matches(matches, dedup_hashes, len(hashes))
        if not results:
            print(json.dumps({"query": path, "reference": None}))
        for r in results[:1]:
            name = r["song_name"].decode() if isinstance(r["song_name"], bytes) else r["song_name"]
            # The count align_matches ranks songs by: hashes at the song's commonest offset difference.
            aligned = max(n for (song, _), n in collections.Counter(matches).items() if song == r["song_id"])
            print(json.dumps({"query": path, "reference": songs[name], "offset": float(r["offset_seconds"]),
                              "score": aligned, "hashes_matched_in_input": int(r["hashes_matched_in_input"])}))
        sys.stdout.flush()


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] in ("index", "query"):
        djv = Dejavu(CONFIG)
        if sys.argv[1] == "index":
            index(djv, sys.argv[2], sys.argv[3])
        else:
            query(djv, sys.argv[2], sys.argv[3:])
    else:
        raise SystemExit(__doc__)
