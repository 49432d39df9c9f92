import Foundation
import DSP

/// A spectrogram peak: frame index and FFT bin.
struct Peak: Equatable {
    var frame: Int
    var bin: Int
}

/// Finds the constellation: local maxima of the power spectrogram within a time-frequency neighbourhood,
/// above a floor, at most a few per frame (the strongest). The neighbourhood maximum is computed
/// separably (across bins, then across frames), so the cost does not grow with its area.
struct PeakPicker {
    let parameters: Constellation.Parameters

    func peaks(_ samples: [Float]) -> [Peak] {
        let p = parameters
        let power = STFT(frameSize: p.fftSize, hop: p.hop, window: .hann).powerSpectrogram(samples)
        let neighbourhood = maximumFilter(power)
        // Bins 1 ... 255: DC carries no pitch and the Nyquist bin does not fit the 8-bit f1 field.
        let bins = 1..<min(power.columns - 1, 1 << PeakPairHash.f1.width)
        let floor = (power.values.max() ?? 0) * Float(pow(10, -p.peakFloorDecibels / 10))
        var found: [Peak] = []
        for frame in 0..<power.rows {
            let row = frame * power.columns
            var candidates: [(bin: Int, value: Float)] = []
            for bin in bins {
                let value = power.values[row + bin]
                if value > floor && value == neighbourhood[row + bin] { candidates.append((bin, value)) }
            }
            candidates.sort { $0.value != $1.value ? $0.value > $1.value : $0.bin < $1.bin }
            found += candidates.prefix(p.peaksPerFrame).map { Peak(frame: frame, bin: $0.bin) }.sorted { $0.bin < $1.bin }
        }
        return found
    }

    /// The maximum over ±peakBinRadius bins and ±peakFrameRadius frames around every cell.
    private func maximumFilter(_ power: Matrix) -> [Float] {
        let rows = power.rows, columns = power.columns
        var acrossBins = [Float](repeating: 0, count: power.values.count)
        var result = acrossBins
        var scratch = [Float](repeating: 0, count: 2 * (max(rows, columns) + 2 * max(parameters.peakBinRadius, parameters.peakFrameRadius)))
        power.values.withUnsafeBufferPointer { input in
            acrossBins.withUnsafeMutableBufferPointer { output in
                for r in 0..<rows {
                    slidingMaximum(input.baseAddress! + r * columns, stride: 1, into: output.baseAddress! + r * columns,
                                   count: columns, radius: parameters.peakBinRadius, scratch: &scratch)
                }
            }
        }
        acrossBins.withUnsafeBufferPointer { input in
            result.withUnsafeMutableBufferPointer { output in
                for c in 0..<columns {
                    slidingMaximum(input.baseAddress! + c, stride: columns, into: output.baseAddress! + c,
                                   count: rows, radius: parameters.peakFrameRadius, scratch: &scratch)
                }
            }
        }
        return result
    }
}

/// output[i] = max(input[i - radius ... i + radius]) (elements `stride` apart, clipped to the sequence),
/// in three comparisons per value whatever the radius: van Herk / Gil-Werman prefix and suffix maxima
/// within blocks of the window's width.
func slidingMaximum(_ input: UnsafePointer<Float>, stride: Int, into output: UnsafeMutablePointer<Float>,
                    count n: Int, radius: Int, scratch: inout [Float]) {
    let width = 2 * radius + 1, padded = n + 2 * radius
    scratch.withUnsafeMutableBufferPointer { buffer in
        // Padded index j holds input[j - radius], or -infinity outside the sequence.
        let prefix = buffer.baseAddress!, suffix = buffer.baseAddress! + padded
        for j in 0..<padded { prefix[j] = j >= radius && j < radius &+ n ? input[(j &- radius) &* stride] : -.infinity }
        suffix.update(from: prefix, count: padded)
        var blockStart = 0
        while blockStart < padded {
            let blockEnd = min(blockStart &+ width, padded)
            for j in (blockStart &+ 1)..<max(blockStart &+ 1, blockEnd) { prefix[j] = max(prefix[j &- 1], prefix[j]) }
            var j = blockEnd &- 2
            while j >= blockStart { suffix[j] = max(suffix[j &+ 1], suffix[j]); j &-= 1 }
            blockStart = blockEnd
        }
        // The window of output i covers padded [i, i + width - 1].
        for i in 0..<n { output[i &* stride] = max(suffix[i], prefix[i &+ width &- 1]) }
    }
}
