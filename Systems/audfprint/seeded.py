"""Runs audfprint.py (installed/source, unchanged) with its two random sources seeded from AUDFPRINT_SEED, so an
index build can be repeated: audfprint evicts a random entry from a full hash bucket (hash_table.py:
random.randint when storing, numpy.random.permutation when merging), and seeds neither. Nothing else
changes; a different seed gives another of the builds audfprint itself could make, so several seeds show
the spread of its rows (docs/systems.md)."""
import os
import random
import runpy
import sys

import numpy

seed = int(os.environ["AUDFPRINT_SEED"])
random.seed(seed)
numpy.random.seed(seed)
source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "installed", "source")
sys.path.insert(0, source)
sys.argv = [os.path.join(source, "audfprint.py")] + sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
