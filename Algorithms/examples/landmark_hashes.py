#!/usr/bin/env python3
"""A small landmark hasher: an example of fpbench's `hashes` kind (Algorithms/examples/landmark-hashes.json).

Spectrogram peaks (local maxima over +-15 bins and +-3 frames, at most 5 per frame) are paired with up to 3
later peaks within 1-32 frames and +-31 bins; each pair's hash packs (f1, df, dt) into 22 bits, at the
anchor's time. Prints {"hashes": [[hash, seconds], ...]} in time order. Run once per file:
    landmark_hashes.py INPUT.wav
"""
import json
import sys

import numpy as np

import wav

FRAME, HOP = 512, 256
BIN_RADIUS, FRAME_RADIUS, PER_FRAME = 15, 3, 5
FAN_OUT, MAX_DT, MAX_DF = 3, 32, 31


def sliding_max(values, radius, axis):
    padded = np.pad(values, [(radius, radius) if a == axis else (0, 0) for a in range(values.ndim)], constant_values=-np.inf)
    return np.lib.stride_tricks.sliding_window_view(padded, 2 * radius + 1, axis=axis).max(axis=-1)


def peaks(log_spectrum):
    neighbourhood = sliding_max(sliding_max(log_spectrum, BIN_RADIUS, 1), FRAME_RADIUS, 0)
    floor = log_spectrum.max() - 6.0  # natural log: about 52 dB below the loudest bin
    found = []
    for t in range(log_spectrum.shape[0]):
        row = log_spectrum[t]
        bins = np.nonzero((row == neighbourhood[t]) & (row > floor))[0]
        bins = bins[np.argsort(-row[bins])][:PER_FRAME]
        found += [(t, int(b)) for b in sorted(bins) if 0 < b < 512]
    return found


def hashes(samples, rate):
    spectrum = np.log(wav.spectrogram(samples, FRAME, HOP) + 1e-6)
    points = peaks(spectrum)
    out = []
    for i, (t1, f1) in enumerate(points):
        paired = 0
        for t2, f2 in points[i + 1:]:
            if t2 - t1 > MAX_DT:
                break
            if t2 == t1 or abs(f2 - f1) > MAX_DF:
                continue
            out.append([(f1 << 13) | ((f2 - f1 + 32) << 6) | (t2 - t1), t1 * HOP / rate])
            paired += 1
            if paired == FAN_OUT:
                break
    return out


if __name__ == "__main__":
    samples, rate = wav.read(sys.argv[1])
    json.dump({"hashes": hashes(samples, rate)}, sys.stdout)
