import Foundation

/// A power spectrum read on a logarithmic frequency axis: `bandsPerOctave` bins per octave from
/// `lowest` Hz, each at centre frequency lowest · 2^(b / bandsPerOctave). A bin wide enough to hold FFT
/// bins takes their largest power; a narrower one interpolates linearly between the two FFT bins around
/// its centre, so a low tone gives one peak, not a plateau of equal values. On this axis a change of
/// pitch or speed by a factor r moves every partial by the same bandsPerOctave · log2(r) bins.
public struct LogFrequencyMapper: Sendable, Equatable {
    /// Per log bin: the FFT bins whose maximum it takes, or (when that range is empty) the FFT bin below
    /// its centre and the weight of the one above.
    private let ranges: [Range<Int>]
    private let below: [Int]
    private let weights: [Float]

    public init(lowest: Double, bandsPerOctave: Int, bandCount: Int, fftSize: Int, sampleRate: Double) {
        let binWidth = sampleRate / Double(fftSize), lastBin = fftSize / 2
        func frequency(_ b: Double) -> Double { lowest * pow(2, b / Double(bandsPerOctave)) }
        var ranges: [Range<Int>] = [], below: [Int] = [], weights: [Float] = []
        for band in 0..<bandCount {
            // The bin's extent: halfway to its neighbours on the log axis.
            let low = frequency(Double(band) - 0.5) / binWidth, high = frequency(Double(band) + 0.5) / binWidth
            let first = Int(low.rounded(.up)), end = min(lastBin + 1, Int(high.rounded(.up)))
            let centre = min(Double(lastBin), frequency(Double(band)) / binWidth)
            let floorBin = min(lastBin - 1, Int(centre))
            ranges.append(first < end ? first..<end : 0..<0)
            below.append(floorBin)
            weights.append(Float(centre - Double(floorBin)))
        }
        self.ranges = ranges
        self.below = below
        self.weights = weights
    }

    public var bandCount: Int { ranges.count }

    /// The log-frequency row of `power` (fftSize / 2 + 1 values), written into `row` (`bandCount` values).
    public func map(_ power: [Float], into row: inout ArraySlice<Float>) {
        // Through raw buffers: a frame's row is written once per frame, with no check per bin.
        power.withUnsafeBufferPointer { power in
            row.withUnsafeMutableBufferPointer { row in
                ranges.withUnsafeBufferPointer { ranges in
                    for band in 0..<ranges.count {
                        let range = ranges[band]
                        var value: Float
                        if range.isEmpty {
                            let k = below[band], w = weights[band]
                            value = power[k] * (1 - w) + power[k + 1] * w
                        } else {
                            value = power[range.lowerBound]
                            for k in (range.lowerBound + 1)..<range.upperBound { value = max(value, power[k]) }
                        }
                        row[band] = value
                    }
                }
            }
        }
    }
}

extension FrameFrontEnd {
    /// A log-frequency power spectrogram: one row per frame, `mapper.bandCount` bins per row.
    public static func logFrequency(_ stft: STFT, mapper: LogFrequencyMapper) -> FrameFrontEnd {
        FrameFrontEnd(stft: stft, columns: mapper.bandCount) { power, row in mapper.map(power, into: &row) }
    }
}
