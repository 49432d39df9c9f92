"""The reference for our room model (Sources/Degradation/Room.swift): pyroomacoustics on the same shoebox.

Reads one room as JSON on standard input: {"size": [x, y, z], "rt60": s, "source": [...], "microphone": [...],
"sampleRate": hz, "ours": path of our impulse response as raw float32}. Builds the room as pyroomacoustics'
documentation does (inverse_sabine for the absorption and order, pure image sources, no air absorption)
and prints JSON: the samples at which its direct path and first reflection arrive (from its image sources,
checked against the peaks of its own impulse response), and the reverberation time by its own
measure_rt60 (T30) of its impulse response and of ours. Given "absorption" (the walls' energy absorption in
each octave band from 125 Hz), "maximumOrder" and "air": true, it builds that room instead, with its own air
absorption, and adds each band's T30 of its response and of ours, each split by its own octave filters
("bandsReference", "bandsOurs"), and its air coefficients ("air"). Run by RoomModelTests from the environment
scripts/install-pyroomacoustics.sh makes.
"""
import json
import sys

import numpy as np
import pyroomacoustics as pra

room = json.load(sys.stdin)
fs, c = room["sampleRate"], pra.constants.get("c")
banded = "absorption" in room
if banded:
    absorption, order = room["absorption"], room["maximumOrder"]
    centres = [125 * 2**b for b in range(len(absorption))]
    material = pra.Material({"coeffs": absorption, "center_freqs": centres})
else:
    absorption, order = pra.inverse_sabine(room["rt60"], room["size"])
    material = pra.Material(absorption)
shoebox = pra.ShoeBox(room["size"], fs=fs, materials=material, max_order=order, air_absorption=banded and room.get("air", False))
shoebox.add_source(room["source"])
shoebox.add_microphone(room["microphone"])
shoebox.image_source_model()
shoebox.compute_rir()
rir = np.asarray(shoebox.rir[0][0])
delay = pra.constants.get("frac_delay_length") // 2  # its fractional-delay filters are centred this late

images = shoebox.sources[0].images
distances = np.sort(np.unique(np.round(np.linalg.norm(images - np.array(room["microphone"])[:, None], axis=0), 9)))
direct, first = (int(round(d / c * fs)) for d in distances[:2])
ours = np.fromfile(room["ours"], dtype=np.float32)
peak = int(np.argmax(np.abs(rir[direct + delay - 2 : direct + delay + 3]))) + direct - 2
result = {}
if banded:
    bands = shoebox.octave_bands
    t30 = lambda x, b: float(pra.experimental.measure_rt60(bands.analysis(x, band=b), fs, decay_db=30))
    result = {"bandsReference": [t30(rir, b) for b in range(bands.n_bands)], "bandsOurs": [t30(ours, b) for b in range(bands.n_bands)],
              "air": [float(a) for a in shoebox.air_absorption] if shoebox.air_absorption is not None else []}
    absorption = 0
json.dump(result | {
    "absorption": float(absorption), "maximumOrder": int(order), "directSample": direct, "firstReflectionSample": first,
    "directPeakInItsResponse": peak,
    "rt60Reference": float(pra.experimental.measure_rt60(rir, fs, decay_db=30)),
    "rt60Ours": float(pra.experimental.measure_rt60(ours, fs, decay_db=30)),
}, sys.stdout)
