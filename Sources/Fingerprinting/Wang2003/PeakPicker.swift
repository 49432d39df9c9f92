import Foundation
import DSP

/// A spectrogram peak: frame index and FFT bin.
struct Peak: Equatable {
    var frame: Int
    var bin: Int
}

/// Finds the constellation: local maxima of the power spectrogram within a time-frequency neighbourhood,
/// above a floor, at most a few per frame (the strongest).
struct PeakPicker {
    let parameters: Constellation.Parameters

    func peaks(_ samples: [Float]) -> [Peak] {
        let p = parameters
        let power = STFT(frameSize: p.fftSize, hop: p.hop, window: .hann).powerSpectrogram(samples)
        // Bins 1 ... 255: DC carries no pitch and the Nyquist bin does not fit the 8-bit f1 field.
        let bins = 1..<min(power.columns - 1, 1 << PeakPairHash.f1.width)
        let floor = (power.values.max() ?? 0) * Float(pow(10, -p.peakFloorDecibels / 10))
        var found: [Peak] = []
        for frame in 0..<power.rows {
            var candidates: [(bin: Int, value: Float)] = []
            for bin in bins {
                let value = power[frame, bin]
                if value > floor && isLocalMaximum(power, frame: frame, bin: bin, value: value) {
                    candidates.append((bin, value))
                }
            }
            candidates.sort { $0.value != $1.value ? $0.value > $1.value : $0.bin < $1.bin }
            found += candidates.prefix(p.peaksPerFrame).map { Peak(frame: frame, bin: $0.bin) }.sorted { $0.bin < $1.bin }
        }
        return found
    }

    /// Strictly greater than every earlier neighbour and at least every later one, so a plateau yields one peak.
    private func isLocalMaximum(_ power: Matrix, frame: Int, bin: Int, value: Float) -> Bool {
        let p = parameters
        for f in max(0, frame - p.peakFrameRadius)...min(power.rows - 1, frame + p.peakFrameRadius) {
            for b in max(0, bin - p.peakBinRadius)...min(power.columns - 1, bin + p.peakBinRadius) where f != frame || b != bin {
                let other = power[f, b]
                let earlier = f < frame || (f == frame && b < bin)
                if earlier ? other >= value : other > value { return false }
            }
        }
        return true
    }
}
