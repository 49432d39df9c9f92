import AudioIO
import DSP

/// The thesis's naive baseline, the Melody Analyzing Algorithm: per window, the loudest frequency in each
/// of five equal ranges; windows compared index by index, with no alignment (Brandner 2013).
public struct MelodyAnalyzing: FramedFingerprinting, Parameterized {
    public struct Parameters: AlgorithmParameters {
        /// The thesis records at 44.1 kHz.
        public var sampleRate = 44_100.0
        /// The thesis says "512 KB"; read as 512 samples (11.6 ms), the only reading that gives windows at all.
        public var windowSize = 512
        /// Five equal ranges from 0 Hz to the Nyquist frequency (the thesis: 3,800 Hz falls in 0-4,400 Hz).
        public var rangeCount = 5
        /// Two windows match when the summed absolute difference of their five frequencies is below this.
        public var matchThreshold = 400.0

        public init() {}

        /// Why these values cannot run (nil: they can); checked before a variant is made.
        public var problem: String? {
            if windowSize < 16 || windowSize > 65_536 { return "windowSize must be 16 to 65,536 samples" }
            if rangeCount < 1 || rangeCount > windowSize / 2 { return "rangeCount must be 1 to windowSize / 2" }
            return nil
        }
    }

    public var parameters: Parameters
    public init(parameters: Parameters = Parameters()) { self.parameters = parameters }

    public var identifier: String { "maa-thesis" }
    public var revision: Int { 1 }
    public var displayName: String { "Melody analyzing baseline (Brandner 2013)" }
    public var sampleRate: Double { parameters.sampleRate }
    public var minimumDuration: Double { Double(parameters.windowSize) / sampleRate }
    public var rawFigureName: String { "matching windows" }
    public var offsetResolution: Double? { nil }

    /// Every parameter with its source (the profile marks values changed from the defaults).
    public func describe() -> Profile {
        Profile([
            Parameter("sampleRate", parameters.sampleRate, source: "\(Citation.thesis), MAA: recordings at 44.1 kHz"),
            Parameter("windowSize", parameters.windowSize,
                      source: "\(Citation.thesis), MAA: \"512 KB\" windows, read as 512 samples; consecutive, no overlap"),
            Parameter("window", "rectangular", source: "\(Citation.thesis), MAA: no window function is mentioned"),
            Parameter("rangeCount", parameters.rangeCount,
                      source: "\(Citation.thesis), MAA: 5 equal ranges up to the Nyquist frequency (3,800 Hz in 0-4,400 Hz)"),
            Parameter("rangeBins", "DC included in the first range, the Nyquist bin in the last",
                      source: "our choice: the thesis does not say; the naive reading keeps every bin"),
            Parameter("matchThreshold", "\(parameters.matchThreshold) Hz",
                      source: "\(Citation.thesis), MAA: windows match when the sum of the 5 differences is below 400 Hz"),
            Parameter("alignment", "none: window i of the query against window i of the reference",
                      source: "\(Citation.thesis), MAA: no filtering, no time alignment"),
            Parameter("score", "matching windows / windows compared",
                      source: "our choice: the thesis reports the count; normalised so it sits beside other algorithms"),
            Parameter("catalogThreshold", "none: the best reference is the answer",
                      source: "\(Citation.thesis): the server answers with the best match and its percentage"),
        ])
    }

    public var frontEnd: FrameFrontEnd { LoudestFrequencyExtractor(parameters: parameters).frontEnd }

    public func rowBuilder(role: FingerprintRole) -> KeptRows<MAAFingerprint> {
        let p = parameters
        return KeptRows { rows, duration in
            MAAFingerprint(rangeCount: p.rangeCount, binWidth: p.sampleRate / Double(p.windowSize),
                           loudestBins: rows.map { UInt16($0) }, duration: duration)
        }
    }

    /// The thesis answers with the best reference whatever its score: every comparison is a match.
    public func isMatch(_ comparison: Comparison) -> Bool { true }

    public func compare(query: MAAFingerprint, reference: MAAFingerprint) -> Comparison {
        let compared = min(query.windowCount, reference.windowCount)
        guard compared > 0 else { return Comparison(score: 0, offset: 0, rawFigure: 0) }
        var matching = 0
        for window in 0..<compared {
            var distance = 0.0
            for range in 0..<query.rangeCount {
                let q = query.loudestBins[window * query.rangeCount + range]
                let r = reference.loudestBins[window * reference.rangeCount + range]
                distance += abs(Double(q) - Double(r)) * query.binWidth
            }
            if distance < parameters.matchThreshold { matching += 1 }
        }
        return Comparison(score: Double(matching) / Double(compared), offset: 0, rawFigure: Double(matching))
    }
}

/// Per window, the FFT bin of the loudest frequency in each range.
public struct MAAFingerprint: Fingerprint, Equatable {
    public var rangeCount: Int
    /// Hz per FFT bin (sample rate / window size).
    public var binWidth: Double
    /// `rangeCount` bins per window, window after window.
    public var loudestBins: [UInt16]
    public var duration: Double

    public var windowCount: Int { loudestBins.count / rangeCount }
    public var subFingerprintCount: Int { windowCount }
    public var byteCount: Int { loudestBins.count * MemoryLayout<UInt16>.size }
    /// The loudest frequencies in Hz of one window.
    public func frequencies(window: Int) -> [Double] {
        (0..<rangeCount).map { Double(loudestBins[window * rangeCount + $0]) * binWidth }
    }
}
