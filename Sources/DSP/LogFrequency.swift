import Foundation

/// A power spectrum read on a logarithmic frequency axis: `bandsPerOctave` bins per octave from
/// `lowest` Hz, each at centre frequency lowest · 2^(b / bandsPerOctave). A bin wide enough to hold FFT
/// bins takes their largest power; a narrower one interpolates linearly between the two FFT bins around
/// its centre, so a low tone gives one peak, not a plateau of equal values. On this axis a change of
/// pitch or speed by a factor r moves every partial by the same bandsPerOctave · log2(r) bins.
public struct LogFrequencyMapper: Sendable, Equatable {
    /// A log bin narrower than the FFT bins around its centre: `below` is the FFT bin below the centre,
    /// `weight` the share of the one above.
    struct Interpolation: Sendable, Equatable { let band: Int, below: Int, weight: Float }
    /// A log bin holding one FFT bin or more (`bins`): it takes their largest power.
    struct Span: Sendable, Equatable { let band: Int, bins: Range<Int> }

    /// The log bins by kind, each kind in one loop of its own: the bins of the two kinds alternate
    /// below about 1 kHz, and one loop that branched on the kind per bin mispredicted most of them.
    let interpolations: [Interpolation]
    let spans: [Span]
    public let bandCount: Int

    public init(lowest: Double, bandsPerOctave: Int, bandCount: Int, fftSize: Int, sampleRate: Double) {
        let binWidth = sampleRate / Double(fftSize), lastBin = fftSize / 2
        func frequency(_ b: Double) -> Double { lowest * pow(2, b / Double(bandsPerOctave)) }
        var interpolations: [Interpolation] = [], spans: [Span] = []
        for band in 0..<bandCount {
            // The bin's extent: halfway to its neighbours on the log axis.
            let low = frequency(Double(band) - 0.5) / binWidth, high = frequency(Double(band) + 0.5) / binWidth
            let first = Int(low.rounded(.up)), end = min(lastBin + 1, Int(high.rounded(.up)))
            if first < end {
                spans.append(Span(band: band, bins: first..<end))
            } else {
                let centre = min(Double(lastBin), frequency(Double(band)) / binWidth)
                let below = min(lastBin - 1, Int(centre))
                interpolations.append(Interpolation(band: band, below: below, weight: Float(centre - Double(below))))
            }
        }
        self.interpolations = interpolations
        self.spans = spans
        self.bandCount = bandCount
    }

    /// The log-frequency row of `power` (fftSize / 2 + 1 values), written into `row` (`bandCount` values).
    public func map(_ power: [Float], into row: inout ArraySlice<Float>) {
        // Through raw buffers: a frame's row is written once per frame, with no check per bin.
        power.withUnsafeBufferPointer { power in
            row.withUnsafeMutableBufferPointer { row in
                interpolations.withUnsafeBufferPointer { bins in
                    for bin in bins { row[bin.band] = power[bin.below] * (1 - bin.weight) + power[bin.below + 1] * bin.weight }
                }
                spans.withUnsafeBufferPointer { bins in
                    for bin in bins {
                        var value = power[bin.bins.lowerBound]
                        // `max` as one instruction (x86's maxss): the same value as Swift's `max` for every power,
                        // which is never NaN or -0 (they differ only there).
                        for k in (bin.bins.lowerBound + 1)..<bin.bins.upperBound { value = power[k] > value ? power[k] : value }
                        row[bin.band] = value
                    }
                }
            }
        }
    }
}

extension FrameFrontEnd {
    /// A log-frequency power spectrogram: one row per frame, `mapper.bandCount` bins per row.
    public static func logFrequency(_ stft: STFT, mapper: LogFrequencyMapper) -> FrameFrontEnd {
        FrameFrontEnd(stft: stft, columns: mapper.bandCount, rows: .logFrequency(mapper)) { power, row in mapper.map(power, into: &row) }
    }
}
