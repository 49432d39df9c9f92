#!/usr/bin/env python3
"""A fixed random-projection embedding: an example of fpbench's `vectors` kind, in serve mode
(Algorithms/examples/random-projection-vectors.json). No training: it stands where a learned model would.

Each 1 s segment (every 0.5 s) becomes a log-mel patch (64 bands, 8 kHz, 62 frames of 256 samples at a
125-sample hop, so a segment hop is 32 frames), centred per band, averaged over four 0.24 s blocks (so a
query that starts 0.1 s off the segment grid keeps a similarity near 0.8, measured), projected onto 128
fixed Gaussian directions (seed 0). Started once;
reads {"input": PATH, "role": ...} lines and answers each with {"times": [...], "vectors": [[...], ...]}
(or {"error": "..."}), so whatever a model loads, it loads once per run.
"""
import json
import sys

import numpy as np

import wav

RATE, FRAME, HOP, BANDS, BLOCKS, DIMENSION = 8000, 256, 125, 64, 4, 128
SEGMENT, SEGMENT_HOP = 1.0, 0.5


def mel_filters():
    def mel(f):
        return 2595 * np.log10(1 + f / 700)

    edges = 700 * (10 ** (np.linspace(mel(300), mel(4000), BANDS + 2) / 2595) - 1)
    bins = np.fft.rfftfreq(FRAME, 1 / RATE)
    filters = np.zeros((BANDS, len(bins)), dtype=np.float32)
    for b in range(BANDS):
        low, centre, high = edges[b:b + 3]
        filters[b] = np.clip(np.minimum((bins - low) / (centre - low), (high - bins) / (high - centre)), 0, None)
    return filters


FILTERS = mel_filters()
FRAMES = int((SEGMENT * RATE - FRAME) // HOP) + 1
PER_BLOCK = FRAMES // BLOCKS
PROJECTION = np.random.default_rng(0).standard_normal((BANDS * BLOCKS, DIMENSION)).astype(np.float32)


def embed(path):
    samples, rate = wav.read(path)
    if rate != RATE:
        raise ValueError(f"expected {RATE} Hz, got {rate}")
    logmel = np.log(wav.spectrogram(samples, FRAME, HOP) ** 2 @ FILTERS.T + 1e-6)
    per_segment, step = FRAMES, int(SEGMENT_HOP * RATE / HOP)
    times, vectors = [], []
    for start in range(0, logmel.shape[0] - per_segment + 1, step):
        patch = logmel[start:start + per_segment]
        patch = patch - patch.mean(axis=0)
        patch = patch[:BLOCKS * PER_BLOCK].reshape(BLOCKS, PER_BLOCK, BANDS).mean(axis=1)
        times.append(start * HOP / RATE)
        vectors.append((patch.reshape(-1) @ PROJECTION).round(5).tolist())
    return {"times": times, "vectors": vectors}


if __name__ == "__main__":
    for line in sys.stdin:
        try:
            answer = embed(json.loads(line)["input"])
        except Exception as error:  # an answer for this file; the process goes on
            answer = {"error": str(error)}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
