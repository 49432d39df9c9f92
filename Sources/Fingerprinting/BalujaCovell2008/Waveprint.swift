import AudioIO
import DSP

/// Waveprint (Baluja & Covell 2008) with SoundFingerprinting's published defaults: Haar wavelets of
/// spectral images, the top 200 kept with their positions, min-hashed and split into LSH tables;
/// matches are LSH votes aligned by time offset.
public struct Waveprint: FramedFingerprinting, Parameterized {
    public struct Parameters: AlgorithmParameters {
        public var sampleRate = 5512.0
        public var frameSize = 2048
        public var hop = 64
        public var bandCount = 32
        public var lowestFrequency = 318.0
        public var highestFrequency = 2000.0
        public var imageRows = 128
        public var topWavelets = 200
        /// Reference images start every 512 samples (8 hops) ...
        public var referenceStride = 512
        /// ... query images every 64 samples (every hop), so one is always within half a hop of a reference image.
        public var queryStride = 64
        public var minHashCount = 100
        public var tableCount = 25
        public var permutationSeed: UInt64 = 2008
        /// A query image hits a reference image when at least this many LSH tables agree.
        public var tableVotesThreshold = 4
        /// Aligned hits may be this many hops from the best offset.
        public var alignmentTolerance = 4
        public var matchThreshold = 0.1

        public init() {}

        /// Why these values cannot run (nil: they can); checked before a variant is made.
        public var problem: String? {
            if let bad = frameProblem(frameSize: frameSize, hop: hop) ?? haarImageProblem(bandCount: bandCount, imageRows: imageRows, topWavelets: topWavelets) { return bad }
            if referenceStride < hop || queryStride < hop || referenceStride % hop != 0 || queryStride % hop != 0 { return "referenceStride and queryStride must be multiples of hop" }
            if !(lowestFrequency > 0 && lowestFrequency < highestFrequency && highestFrequency <= sampleRate / 2) { return "0 < lowestFrequency < highestFrequency <= Nyquist" }
            if minHashCount < tableCount || minHashCount % tableCount != 0 || minHashCount > 1000 { return "minHashCount must be a multiple of tableCount, at most 1,000" }
            if tableVotesThreshold > tableCount { return "tableVotesThreshold must be at most tableCount" }
            return nil
        }
    }

    public let parameters: Parameters
    let permutations: MinHashPermutations

    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
        permutations = MinHashPermutations(count: parameters.minHashCount, length: 2 * parameters.imageRows * parameters.bandCount,
                                           seed: parameters.permutationSeed)
    }

    public var identifier: String { "waveprint" }
    /// 2: the time unit is stored as `step` (was frameDuration, hopDuration or imageDuration).
    public var revision: Int { 2 }
    public var displayName: String { "Waveprint, wavelets + min-hash + LSH (Baluja & Covell 2008)" }
    public var sampleRate: Double { parameters.sampleRate }
    public var rawFigureName: String { "aligned reference images hit" }
    public var offsetResolution: Double? { Double(parameters.hop) / sampleRate }
    public var minimumDuration: Double { Double(imageMaker.imageSpan) / sampleRate }
    var keysPerTable: Int { parameters.minHashCount / parameters.tableCount }

    var imageMaker: SpectralImageMaker {
        let p = parameters
        return SpectralImageMaker(sampleRate: p.sampleRate, frameSize: p.frameSize, hop: p.hop,
                                  bandEdges: BandEdges.logarithmic(from: p.lowestFrequency, to: p.highestFrequency, count: p.bandCount),
                                  rows: p.imageRows)
    }

    /// Every parameter with its source (the profile marks values changed from the defaults).
    public func describe() -> Profile {
        let p = parameters, sf = Citation.soundFingerprinting, bc = Citation.balujaCovell
        return Profile([
            Parameter("sampleRate", p.sampleRate, source: "\(sf): 5,512 Hz (\(bc) §3)"),
            Parameter("frameSize", p.frameSize, source: "\(sf): STFT of 2,048 samples"),
            Parameter("hop", p.hop, source: "\(sf): hop 64 (11.6 ms)"),
            Parameter("window", "rectangular", source: "our choice: the same front end as the thesis's AFA, so the two differ only in what they keep"),
            Parameter("bands", "\(p.bandCount) logarithmic, \(p.lowestFrequency)-\(p.highestFrequency) Hz, mean power",
                      source: "\(sf): 32 log-spaced bands, 318-2,000 Hz"),
            Parameter("imageRows", p.imageRows, source: "\(sf): 128 × 32 spectral images (about 1.49 s)"),
            Parameter("wavelet", "Haar, normalised, standard 2-D decomposition", source: "\(bc) §3: Haar wavelets of the spectral image"),
            Parameter("topWavelets", p.topWavelets, source: "\(sf): top 200 coefficients (\(bc) §3: top-t wavelets)"),
            Parameter("encoding", "sign at the coefficient's position: bit 2p positive, 2p+1 negative (8,192-bit sparse vector)",
                      source: "\(bc) §3: two bits per coefficient, positions kept"),
            Parameter("referenceStride", "\(p.referenceStride) samples", source: "\(sf): reference images every 512 samples"),
            Parameter("queryStride", "\(p.queryStride) samples", source: "our choice: dense (every hop); \(sf) uses a random 256-512 stride"),
            Parameter("minHash", "\(p.minHashCount) permutations, seed \(p.permutationSeed)", source: "\(sf): 100 min-hash permutations; the seed is ours"),
            Parameter("lsh", "\(p.tableCount) tables of \(keysPerTable) min-hashes", source: "\(sf): 25 LSH tables × 4 min-hashes"),
            Parameter("tableVotesThreshold", p.tableVotesThreshold, source: "\(sf): a candidate needs votes in at least 4 tables"),
            Parameter("alignment", "hits within ±\(p.alignmentTolerance) hops of the best offset",
                      source: "our choice: half the reference stride, the most a dense query can be off"),
            Parameter("score", "reference images hit at the best offset / reference images the query spans",
                      source: "our choice: the share of the reference images the query spans that its best alignment hits"),
            Parameter("matchThreshold", p.matchThreshold, source: "our choice: unrelated recordings measured at 0-0.05"),
        ])
    }

    public var frontEnd: FrameFrontEnd { imageMaker.frontEnd }

    /// References are cut every `referenceStride` samples, queries every `queryStride`.
    public func rowBuilder(role: FingerprintRole) -> WaveletImages<WaveprintSubFingerprints> {
        let stride = (role == .reference ? parameters.referenceStride : parameters.queryStride) / parameters.hop
        let hasher = MinHasher(permutations: permutations, topWavelets: parameters.topWavelets, tableCount: parameters.tableCount)
        return WaveletImages(window: imageMaker.window(frameStride: stride),
                             coder: WaveprintSubFingerprints(hasher: hasher, step: Double(parameters.hop) / sampleRate))
    }

    public func compare(query: WaveprintFingerprint, reference: WaveprintFingerprint) -> Comparison {
        AlignedVoteMatcher(parameters: parameters).compare(query: query, reference: reference)
    }

    public func isMatch(_ comparison: Comparison) -> Bool { comparison.score >= parameters.matchThreshold }

    public func makeIndex() -> LSHIndex { LSHIndex(parameters: parameters) }
}

/// Per spectral image, one key per LSH table (its min-hashes packed 16 bits each).
public struct WaveprintFingerprint: Fingerprint, Equatable {
    public var tableCount: Int
    public var keys: [UInt64]
    /// The first frame (hop) of each image.
    public var imageStarts: [UInt32]
    public var step: Double
    public var duration: Double

    public var subFingerprintCount: Int { imageStarts.count }
    public var byteCount: Int { keys.count * 8 + imageStarts.count * 4 }

    func key(image: Int, table: Int) -> UInt64 { keys[image * tableCount + table] }

    public func slice(from start: Double, duration: Double) -> (print: WaveprintFingerprint, start: Double)? {
        let hops = sliceRange(count: Int((self.duration / step).rounded(.up)) + 1, step: step, from: start, duration: duration)
        let first = UInt32(hops.lowerBound), end = UInt32(hops.upperBound)
        let kept = indices(of: imageStarts, from: first, to: end)
        return (WaveprintFingerprint(tableCount: tableCount, keys: Array(keys[(kept.lowerBound * tableCount)..<(kept.upperBound * tableCount)]),
                                     imageStarts: imageStarts[kept].map { $0 - first }, step: step,
                                     duration: Double(hops.count) * step),
                Double(first) * step)
    }
}

/// Waveprint's sub-fingerprints: each image's top wavelets min-hashed into one key per LSH table.
public struct WaveprintSubFingerprints: WaveletImageCoder {
    let hasher: MinHasher
    let step: Double
    var keys: [UInt64] = []
    var starts: [UInt32] = []

    public mutating func add(_ wavelets: [Float], imageStart: Int) {
        keys += hasher.tableKeys(wavelets)
        starts.append(UInt32(imageStart))
    }

    public func finish(duration: Double) -> WaveprintFingerprint {
        WaveprintFingerprint(tableCount: hasher.tableCount, keys: keys, imageStarts: starts, step: step, duration: duration)
    }
}
