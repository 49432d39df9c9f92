"""The reference for our room model (Sources/Degradation/Room.swift): pyroomacoustics on the same shoebox.

Reads one room as JSON on standard input: {"size": [x, y, z], "rt60": s, "source": [...], "microphone": [...],
"sampleRate": hz, "ours": path of our impulse response as raw float32}. Builds the room as pyroomacoustics'
documentation does (inverse_sabine for the absorption and order, pure image sources, no air absorption)
and prints JSON: the samples at which its direct path and first reflection arrive (from its image sources,
checked against the peaks of its own impulse response), and the reverberation time by its own
measure_rt60 (T30) of its impulse response and of ours. Run by RoomModelTests from the environment
scripts/install-pyroomacoustics.sh makes.
"""
import json
import sys

import numpy as np
import pyroomacoustics as pra

room = json.load(sys.stdin)
fs, c = room["sampleRate"], pra.constants.get("c")
absorption, order = pra.inverse_sabine(room["rt60"], room["size"])
shoebox = pra.ShoeBox(room["size"], fs=fs, materials=pra.Material(absorption), max_order=order, air_absorption=False)
shoebox.add_source(room["source"])
shoebox.add_microphone(room["microphone"])
shoebox.image_source_model()
shoebox.compute_rir()
rir = np.asarray(shoebox.rir[0][0])
delay = pra.constants.get("frac_delay_length") // 2  # its fractional-delay filters are centred this late

images = shoebox.sources[0].images
distances = np.sort(np.unique(np.round(np.linalg.norm(images - np.array(room["microphone"])[:, None], axis=0), 9)))
direct, first = (int(round(d / c * fs)) for d in distances[:2])
peak = int(np.argmax(np.abs(rir[direct + delay - 2 : direct + delay + 3]))) + direct - 2
ours = np.fromfile(room["ours"], dtype=np.float32)
json.dump({
    "absorption": float(absorption), "maximumOrder": int(order), "directSample": direct, "firstReflectionSample": first,
    "directPeakInItsResponse": peak,
    "rt60Reference": float(pra.experimental.measure_rt60(rir, fs, decay_db=30)),
    "rt60Ours": float(pra.experimental.measure_rt60(ours, fs, decay_db=30)),
}, sys.stdout)
