"""The calls fpbench makes to Dejavu, through its own Python API with its default settings
(dejavu/config/settings.py); dejavu.sh starts the database first.

    dejavu_driver.py index STATE CATALOG_LIST     Dejavu.fingerprint_directory over links to the files
    dejavu_driver.py query STATE QUERY...         Dejavu.recognize(FileRecognizer, path): one JSON line per result

Dejavu names a song after its file name without the extension, and its fingerprint_file fails at this
commit (it passes song_name to a worker that does not take it), so the catalog is fingerprinted with
fingerprint_directory (one process) over a folder of links named NNNNN__NAME (unique even when two
tracks share a name); STATE/songs.json maps the song names back to the catalog's paths for the answers.

Each answer: the query, the catalog path, offset_seconds (where the query starts in the song) and
hashes_matched_in_input. Dejavu ranks its TOPN (2) best songs by their aligned hashes, a count it does not
return, and has no threshold of its own; its answer is its first song, the one printed here (fpbench ranks
lines by score, and hashes_matched_in_input would reorder Dejavu's ranking).
"""
import json
import os
import sys

from dejavu import Dejavu
from dejavu.logic.recognizer.file_recognizer import FileRecognizer

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
        results = djv.recognize(FileRecognizer, path)["results"]
        if not results:
            print(json.dumps({"query": path, "reference": None}))
        for r in results[:1]:
            name = r["song_name"].decode() if isinstance(r["song_name"], bytes) else r["song_name"]
            print(json.dumps({"query": path, "reference": songs[name], "offset": float(r["offset_seconds"]),
                              "score": int(r["hashes_matched_in_input"])}))
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
