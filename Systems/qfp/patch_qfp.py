"""Two disclosed one-line fixes to qfp 0.2.0 (PyPI), applied to the installed copy by install.sh; nothing else
in qfp is changed. Each replaces one exact line and refuses to run if that line is not there exactly once.

1. qfp/db.py, QfpDB._find_match_candidates: a record whose offset bins all fell below the 4-vote minimum
   (`_bin_times` drops them) has an empty bin dictionary, and `list(v.keys())[0]` raises IndexError on almost
   every query once the database holds more than a few tracks. Such a record has no candidate, which is what the
   binning intends: skip it.
2. qfp/utils.py, n_strongest: a query from which qfp extracts no quads raises IndexError at `quads[-1]` in
   `_find_partitions`. No quads is a legitimate "no match": return no strongest quads.
"""
import os
import sys

FIXES = [
    ("db.py",
     "        results = {k: self._scales(v) for k, v in binned.items() if len(v[list(v.keys())[0]]) >= 4}\n",
     "        results = {k: self._scales(v) for k, v in binned.items() if v and len(v[list(v.keys())[0]]) >= 4}  # fpbench fix 1\n"),
    ("utils.py",
     "    strongest = []\n    partitions = _find_partitions(quads)\n",
     "    strongest = []\n    if not quads:  # fpbench fix 2\n        return strongest\n    partitions = _find_partitions(quads)\n"),
]

def main(package):
    for name, before, after in FIXES:
        path = os.path.join(package, name)
        with open(path) as f:
            text = f.read()
        if after in text:
            continue
        if text.count(before) != 1:
            sys.exit(f"patch_qfp: {path} does not hold the expected qfp 0.2.0 line once; not patched")
        with open(path, "w") as f:
            f.write(text.replace(before, after))

if __name__ == "__main__":
    main(sys.argv[1])
