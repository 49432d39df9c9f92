import AudioIO
import DSP

/// The Philips robust hash (Haitsma & Kalker 2002): 32 bits per frame from the signs of energy
/// differences across 33 bands and consecutive frames; compared by bit-error rate at the best alignment.
public struct HaitsmaKalker: FramedFingerprinting, Parameterized {
    public struct Parameters: AlgorithmParameters {
        public var sampleRate = 5512.0
        public var frameSize = 2048
        public var hop = 64
        public var bandCount = 33
        public var lowestFrequency = 300.0
        public var highestFrequency = 2000.0
        public var berThreshold = 0.35

        public init() {}

        /// Why these values cannot run (nil: they can); checked before a variant is made.
        public var problem: String? {
            if let bad = frameProblem(frameSize: frameSize, hop: hop) { return bad }
            if bandCount < 2 || bandCount > 65 { return "bandCount must be 2 to 65 (32 bits from 33 bands in the paper)" }
            if !(lowestFrequency > 0 && lowestFrequency < highestFrequency && highestFrequency <= sampleRate / 2) { return "0 < lowestFrequency < highestFrequency <= Nyquist" }
            if !(berThreshold > 0 && berThreshold < 1) { return "berThreshold must be between 0 and 1" }
            return nil
        }
    }

    public var parameters: Parameters
    public init(parameters: Parameters = Parameters()) { self.parameters = parameters }

    public var identifier: String { "haitsma-kalker" }
    /// 2: the time unit is stored as `step` (was frameDuration, hopDuration or imageDuration).
    public var revision: Int { 2 }
    public var displayName: String { "Philips robust hash (Haitsma & Kalker 2002)" }
    public var sampleRate: Double { parameters.sampleRate }
    public var rawFigureName: String { "bit-error rate" }
    public var offsetResolution: Double? { step }
    /// Two frames give the first sub-fingerprint.
    public var minimumDuration: Double { Double(parameters.frameSize + parameters.hop) / sampleRate }
    var step: Double { Double(parameters.hop) / sampleRate }

    /// Every parameter with its source (the profile marks values changed from the defaults).
    public func describe() -> Profile {
        let p = parameters, hk = Citation.haitsmaKalker
        return Profile([
            Parameter("sampleRate", p.sampleRate, source: "\(hk), §4.2: audio downsampled to 5 kHz (5,512 Hz as in the reference implementations)"),
            Parameter("frameSize", p.frameSize, source: "\(hk), §4.2: frames of 0.37 s (2,048 samples)"),
            Parameter("hop", p.hop, source: "\(hk), §4.2: overlap 31/32 (11.6 ms)"),
            Parameter("window", "hann", source: "\(hk), §4.2: frames weighted by a Hanning window"),
            Parameter("bands", "\(p.bandCount) logarithmic, \(p.lowestFrequency)-\(p.highestFrequency) Hz, energy = summed power",
                      source: "\(hk), §4.2: 33 non-overlapping logarithmically spaced bands, 300-2,000 Hz"),
            Parameter("bits", "F(n,m) = 1 iff E(n,m) - E(n,m+1) - (E(n-1,m) - E(n-1,m+1)) > 0, 32 per frame",
                      source: "\(hk), §4.2, equation (1)"),
            Parameter("berThreshold", p.berThreshold, source: "\(hk), §4.3: a match when the bit-error rate of a block of 256 sub-fingerprints (3 s) is below 0.35; we take the BER over the whole query, whatever its length (lower: fewer false matches, fewer true ones)"),
            Parameter("search", "candidates: exact and single-bit-flipped sub-fingerprint matches voting for an offset; verified by BER around it",
                      source: "\(hk), §5.1: lookup of each sub-fingerprint and its likely bit errors; we flip every single bit (a radius-1 Hamming ball), since the bits' reliabilities are not kept"),
            Parameter("score", "1 - BER at the best alignment", source: "our choice: 1 means identical, as for every algorithm"),
        ])
    }

    public var frontEnd: FrameFrontEnd {
        let p = parameters
        let bands = BandMapper(edges: BandEdges.logarithmic(from: p.lowestFrequency, to: p.highestFrequency, count: p.bandCount),
                               fftSize: p.frameSize, sampleRate: p.sampleRate).binRanges
        // Summed power per band: the paper's energy E(n, m) (BandMapper's mean is not used here).
        return FrameFrontEnd(stft: STFT(frameSize: p.frameSize, hop: p.hop, window: .hann), columns: p.bandCount) { power, row in
            for (band, range) in bands.enumerated() {
                row[row.startIndex + band] = range.reduce(Float(0)) { $0 + power[$1] }
            }
        }
    }

    public func rowBuilder(role: FingerprintRole) -> EnergyDifferenceHasher { EnergyDifferenceHasher(step: step) }

    public func compare(query: HKFingerprint, reference: HKFingerprint) -> Comparison {
        bestBitErrorComparison(query: query.words, reference: reference.words, step: query.step)
    }

    public func isMatch(_ comparison: Comparison) -> Bool { comparison.rawFigure < parameters.berThreshold }

    public func makeIndex() -> WordLookup<HKFingerprint> { WordLookup(flippingBits: true) }
}

/// One 32-bit word per frame after the first.
public struct HKFingerprint: WordFingerprint, Equatable {
    public var words: [UInt32]
    public var step: Double
    public var duration: Double

    public var subFingerprintCount: Int { words.count }
    public var byteCount: Int { words.count * 4 }
}

/// Its words are the keys the synthetic scale test redraws (`KeyedFingerprint`).
extension HKFingerprint: KeyedFingerprint {
    public var keys: [UInt32] {
        get { words }
        set { words = newValue }
    }
}
