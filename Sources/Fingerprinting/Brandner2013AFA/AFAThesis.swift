import AudioIO
import DSP

/// The thesis's Audio Fingerprinting Algorithm (LBAudioDetective, after Baluja & Covell), faithful
/// to the thesis including its rank-order sign quirk (see `RankOrderSignEncoder`).
public struct AFAThesis: FramedFingerprinting, Parameterized {
    public struct Parameters: AlgorithmParameters {
        public var sampleRate = 5512.0
        public var frameSize = 2048
        public var hop = 64
        public var bandCount = 32
        public var lowestFrequency = 318.0
        public var imageRows = 128
        public var topWavelets = 200

        public init() {}

        /// Why these values cannot run (nil: they can); checked before a variant is made.
        public var problem: String? {
            if let bad = frameProblem(frameSize: frameSize, hop: hop) ?? haarImageProblem(bandCount: bandCount, imageRows: imageRows, topWavelets: topWavelets) { return bad }
            if lowestFrequency <= 0 || lowestFrequency >= sampleRate / 2 { return "lowestFrequency must lie below the Nyquist frequency" }
            return nil
        }
    }

    public var parameters: Parameters
    public init(parameters: Parameters = Parameters()) { self.parameters = parameters }

    public var identifier: String { "afa-thesis" }
    /// 2: the time unit is stored as `step` (was frameDuration, hopDuration or imageDuration).
    public var revision: Int { 2 }
    public var displayName: String { "Audio fingerprinting algorithm (Brandner 2013)" }
    public var sampleRate: Double { parameters.sampleRate }
    public var rawFigureName: String { "mean hits / possible hits" }
    public var offsetResolution: Double? { step }
    public var minimumDuration: Double { Double(imageMaker.imageSpan) / sampleRate }
    /// Seconds between the starts of consecutive (non-overlapping) images: 128 × 64 / 5,512 ≈ 1.486 s.
    var step: Double { Double(parameters.imageRows * parameters.hop) / sampleRate }

    /// Every parameter with its source (the profile marks values changed from the defaults).
    public func describe() -> Profile {
        let p = parameters
        return Profile([
            Parameter("sampleRate", p.sampleRate, source: "\(Citation.thesis), AFA: mono, resampled to 5,512 Hz"),
            Parameter("frameSize", p.frameSize, source: "\(Citation.thesis), AFA: STFT window of 2,048 samples"),
            Parameter("hop", p.hop, source: "\(Citation.thesis), AFA: a new window every 64 samples"),
            Parameter("window", "rectangular", source: "\(Citation.thesis), AFA: no window function is applied"),
            Parameter("bandCount", p.bandCount, source: "\(Citation.thesis), AFA: 32 bands"),
            Parameter("bands", "logarithmic, \(p.lowestFrequency) Hz to Nyquist (\(p.sampleRate / 2) Hz), mean power of the bins inside",
                      source: "\(Citation.thesis), AFA: log-spaced bands from 318 Hz to the Nyquist frequency, mean power"),
            Parameter("imageRows", p.imageRows, source: "\(Citation.thesis), AFA: 128 rows per spectral image, images do not overlap"),
            Parameter("wavelet", "Haar, normalised, standard 2-D decomposition (rows, then columns)",
                      source: "\(Citation.thesis), AFA: standard-form Haar; its extra 1/sqrt(n) is a uniform scale and changes no rank or sign"),
            Parameter("topWavelets", p.topWavelets, source: "\(Citation.thesis), AFA: the 200 coefficients of largest magnitude"),
            Parameter("encoding", "sign of the i-th largest at bits 2i, 2i+1 (10 positive, 01 negative, 00 zero)",
                      source: "\(Citation.thesis), AFA code: rank order, position lost (quirk reproduced)"),
            Parameter("similarity", "hits / possible hits over bit pairs set in the query; max over whole-image offsets",
                      source: "\(Citation.thesis), AFA: sub-fingerprint and fingerprint similarity (the server's missing offset not copied)"),
            Parameter("catalogThreshold", "none: the best reference is the answer",
                      source: "\(Citation.thesis): the server answers with the best match and its percentage"),
        ])
    }

    var imageMaker: SpectralImageMaker {
        SpectralImageMaker(sampleRate: parameters.sampleRate, frameSize: parameters.frameSize, hop: parameters.hop,
                           bandEdges: BandEdges.logarithmic(from: parameters.lowestFrequency, to: parameters.sampleRate / 2,
                                                            count: parameters.bandCount),
                           rows: parameters.imageRows)
    }

    public var frontEnd: FrameFrontEnd { imageMaker.frontEnd }

    public func rowBuilder(role: FingerprintRole) -> WaveletImages<AFASubFingerprints> {
        WaveletImages(window: imageMaker.window(frameStride: parameters.imageRows),
                      coder: AFASubFingerprints(encoder: RankOrderSignEncoder(topWavelets: parameters.topWavelets), step: step))
    }

    /// The thesis answers with the best reference whatever its score: every comparison is a match.
    public func isMatch(_ comparison: Comparison) -> Bool { true }

    public func compare(query: AFAFingerprint, reference: AFAFingerprint) -> Comparison {
        AFAMatcher.compare(query: query, reference: reference)
    }
}

/// One 400-bit sub-fingerprint per non-overlapping spectral image.
public struct AFAFingerprint: Fingerprint, Equatable {
    /// 2 bits per kept wavelet: 400 at the defaults.
    public var bitsPerSubFingerprint: Int
    public var wordsPerSubFingerprint: Int
    public var words: [UInt64]
    public var step: Double
    public var duration: Double

    public var subFingerprintCount: Int { words.count / wordsPerSubFingerprint }
    /// The payload, not the 64-bit padding: 50 bytes per sub-fingerprint at the defaults.
    public var byteCount: Int { subFingerprintCount * bitsPerSubFingerprint / 8 }

    func subFingerprint(_ i: Int) -> ArraySlice<UInt64> {
        words[(i * wordsPerSubFingerprint)..<((i + 1) * wordsPerSubFingerprint)]
    }
}

/// AFA's sub-fingerprints: each non-overlapping image's wavelets sign-encoded by rank.
public struct AFASubFingerprints: WaveletImageCoder {
    let encoder: RankOrderSignEncoder
    let step: Double
    var words: [UInt64] = []

    public mutating func add(_ wavelets: [Float], imageStart: Int) { words += encoder.encode(wavelets) }

    public func finish(duration: Double) -> AFAFingerprint {
        AFAFingerprint(bitsPerSubFingerprint: 2 * encoder.topWavelets, wordsPerSubFingerprint: encoder.wordCount,
                       words: words, step: step, duration: duration)
    }
}
