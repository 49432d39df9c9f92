"""Reads the mono 16-bit WAV fpbench hands an external algorithm, as floats in [-1, 1)."""
import wave

import numpy as np


def read(path):
    with wave.open(path, "rb") as f:
        if f.getnchannels() != 1 or f.getsampwidth() != 2:
            raise ValueError(f"{path}: expected mono 16-bit WAV")
        rate = f.getframerate()
        samples = np.frombuffer(f.readframes(f.getnframes()), dtype="<i2").astype(np.float32) / 32768.0
    return samples, rate


def spectrogram(samples, frame, hop):
    """Magnitude STFT with a Hann window: frames x (frame // 2 + 1)."""
    if len(samples) < frame:
        return np.zeros((0, frame // 2 + 1), dtype=np.float32)
    count = 1 + (len(samples) - frame) // hop
    frames = np.lib.stride_tricks.as_strided(samples, (count, frame), (samples.strides[0] * hop, samples.strides[0]))
    return np.abs(np.fft.rfft(frames * np.hanning(frame).astype(np.float32), axis=1)).astype(np.float32)
