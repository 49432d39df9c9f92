import AudioIO
import DSP

/// Shazam-style constellation hashing (Wang 2003): spectrogram peaks, anchor-target pairs hashed as
/// (f1, df, dt), matched by a histogram of time offsets. Where the paper gives no number, audfprint's
/// published defaults are used.
public struct Constellation: StreamingFingerprinting, Parameterized {
    public struct Parameters: AlgorithmParameters {
        public var sampleRate = 11_025.0
        public var fftSize = 512
        public var hop = 256
        /// A peak is the largest value within ±this many bins ...
        public var peakBinRadius = 10
        /// ... and ±this many frames.
        public var peakFrameRadius = 3
        public var peaksPerFrame = 5
        /// Peaks more than this far below the recording's loudest bin are ignored.
        public var peakFloorDecibels = 60.0
        public var fanOut = 3
        public var minimumTimeDelta = 2
        public var maximumTimeDelta = 63
        public var maximumFrequencyDelta = 31
        public var minimumAlignedHashes = 5
        /// Queries are analysed at this many sub-hop shifts, so their frames meet the reference's.
        public var queryShifts = 4
        /// The hash: 20 bits (audfprint's f1 | df | dt) or 32 (Wang's f1 | f2 | dt), for catalogs where 1M
        /// distinct hashes each sit at thousands of positions.
        public var hashBits = 20
        /// Hashes held at more catalog positions than this are skipped at lookup: they vote everywhere and
        /// cost most of a query's time. Higher: slower queries on large catalogs, more aligned hits.
        public var commonHashLimit = 200

        public init() {}

        /// Why these values cannot run (nil: they can); checked before a variant is made.
        public var problem: String? {
            if let bad = frameProblem(frameSize: fftSize, hop: hop) { return bad }
            guard let hash = PeakPairHash.layout(bits: hashBits) else { return "hashBits must be 20 (audfprint's layout) or 32 (Wang's)" }
            if fftSize / 2 > 1 << hash.f1.width { return "fftSize must be at most \(2 << hash.f1.width): the \(hashBits)-bit hash keeps \(hash.f1.width) bits of frequency" }
            if let bias = hash.dfBias, maximumFrequencyDelta >= bias { return "the \(hashBits)-bit hash keeps |df| <= \(bias - 1)" }
            if maximumTimeDelta >= 1 << hash.dt.width || minimumTimeDelta > maximumTimeDelta {
                return "the \(hashBits)-bit hash keeps dt < \(1 << hash.dt.width), with minimumTimeDelta <= maximumTimeDelta"
            }
            if let bad = KeyCounts.limitProblem(commonHashLimit) { return bad }
            if peakBinRadius > fftSize / 2 || peakFrameRadius > 1000 || queryShifts > 64 { return "peakBinRadius <= fftSize / 2, peakFrameRadius <= 1,000, queryShifts <= 64" }
            return nil
        }
    }

    public var parameters: Parameters
    public init(parameters: Parameters = Parameters()) { self.parameters = parameters }

    public var identifier: String { "constellation" }
    /// 2: the time unit is stored as `step` (was frameDuration, hopDuration or imageDuration).
    public var revision: Int { 2 }
    public var displayName: String { "Constellation hashing (Wang 2003)" }
    public var sampleRate: Double { parameters.sampleRate }
    public var rawFigureName: String { "time-aligned matching hashes" }
    public var offsetResolution: Double? { step }
    public var minimumDuration: Double { Double(parameters.fftSize + parameters.hop * parameters.minimumTimeDelta) / sampleRate }
    var step: Double { Double(parameters.hop) / sampleRate }

    /// Every parameter with its source (the profile marks values changed from the defaults).
    public func describe() -> Profile {
        let p = parameters, a = Citation.audfprint, w = Citation.wang
        return Profile([
            Parameter("sampleRate", p.sampleRate, source: "\(a): 11,025 Hz (\(w) gives 8 kHz)"),
            Parameter("fftSize", p.fftSize, source: "\(a): 512-point FFT"),
            Parameter("hop", p.hop, source: "\(a): hop 256 (23.2 ms)"),
            Parameter("window", "hann", source: "\(a): Hann-windowed STFT"),
            Parameter("peakNeighbourhood", "±\(p.peakBinRadius) bins × ±\(p.peakFrameRadius) frames",
                      source: "our choice: a shift-invariant local-maximum filter (\(w) §2.1 asks only for local maxima and a uniform density)"),
            Parameter("peaksPerFrame", p.peaksPerFrame, source: "\(a): at most 5 peaks per frame"),
            Parameter("peakFloor", "\(p.peakFloorDecibels) dB below the loudest bin",
                      source: "our choice: keeps silence and dither from producing peaks"),
            Parameter("fanOut", p.fanOut, source: "\(a): fan-out 3 (\(w) §2.2 uses F = 10)"),
            Parameter("targetZone", "dt \(p.minimumTimeDelta)-\(p.maximumTimeDelta) frames, |df| <= \(p.maximumFrequencyDelta) bins",
                      source: "\(a): pairs within ±31 bins and 2-63 frames"),
            Parameter("hash", hash.layoutDescription, source: p.hashBits == 20 ? "\(a): 20-bit hash f1 (8) | df (6) | dt (6)"
                      : "\(w) §2.2: f1, f2 and dt packed into a 32-bit integer; our split 10 | 10 | 12 bits"),
            Parameter("commonHashLimit", p.commonHashLimit,
                      source: "our choice: a hash at more catalog positions is skipped at lookup (audfprint keeps at most 100 entries per hash)"),
            Parameter("matching", "histogram of (reference time - query time); hits within ±1 frame of the best offset count",
                      source: "\(w) §2.3: time-offset histogram; the ±1 frame is our choice, for crops that fall between frames"),
            Parameter("minimumAlignedHashes", p.minimumAlignedHashes, source: "\(a): a match needs at least 5 time-consistent hashes"),
            Parameter("queryShifts", "\(p.queryShifts) (every \(p.hop / p.queryShifts) samples)",
                      source: "\(a): --shifts 4 analyses queries at sub-hop offsets; without it a crop between frames loses most hashes"),
            Parameter("score", "reference hashes reproduced at the best offset / reference hashes in the stretch the query spans",
                      source: "our choice: the share of the reference explained by the query, 1 for identity whatever the shifts"),
        ])
    }

    /// Queries are analysed at `queryShifts` sub-hop offsets, references once.
    public func stream(role: FingerprintRole) -> ConstellationStream {
        ConstellationStream(parameters: parameters, shifts: role == .query ? max(1, parameters.queryShifts) : 1)
    }

    public func compare(query: HashFingerprint, reference: HashFingerprint) -> Comparison {
        OffsetHistogramMatcher.compare(query: query, reference: reference)
    }

    public func isMatch(_ comparison: Comparison) -> Bool { comparison.rawFigure >= Double(parameters.minimumAlignedHashes) }

    public func makeIndex() -> InvertedHashIndex { InvertedHashIndex(keyBits: parameters.hashBits, commonHashLimit: parameters.commonHashLimit) }

    var hash: PeakPairHash { PeakPairHash.layout(bits: parameters.hashBits) ?? .audfprint }
}

/// Constellation hashing as the audio comes: per analysis shift, a power spectrogram feeding a peak
/// picker; at the end each shift's peaks are paired, and the shifts' hashes merged without repeats.
public final class ConstellationStream: PrintStream {
    private let parameters: Constellation.Parameters
    private let hash: PeakPairHash
    /// Per analysis shift: the samples it still skips before its first frame, and the frames its
    /// anchors move by (a shifted frame starts `offset` samples late: rounded to the nearest frame).
    private var skips: [Int]
    private let lateFrames: [UInt32]
    private let frames: [FrameStream]
    private var pickers: [PeakPicker]

    init(parameters: Constellation.Parameters, shifts: Int) {
        self.parameters = parameters
        hash = Constellation(parameters: parameters).hash
        let offsets = (0..<shifts).map { $0 * parameters.hop / shifts }
        skips = offsets
        lateFrames = offsets.map { $0 * 2 >= parameters.hop ? 1 : 0 }
        let spectrum = FrameFrontEnd.power(STFT(frameSize: parameters.fftSize, hop: parameters.hop, window: .hann))
        frames = skips.map { _ in spectrum.stream() }
        let columns = parameters.fftSize / 2 + 1
        // Bins from 1: DC carries no pitch; below the Nyquist bin and within the f1 field (bins 1 ... 255 at 20 bits).
        let neighbourhood = PeakNeighbourhood(binRadius: parameters.peakBinRadius, frameRadius: parameters.peakFrameRadius,
                                              perFrame: parameters.peaksPerFrame, floorDecibels: parameters.peakFloorDecibels,
                                              bins: 1..<min(columns - 1, 1 << hash.f1.width))
        pickers = skips.map { _ in PeakPicker(columns: columns, neighbourhood: neighbourhood) }
    }

    public func consume(_ block: UnsafeBufferPointer<Float>) {
        for shift in frames.indices {
            let skipped = min(skips[shift], block.count)
            skips[shift] -= skipped
            frames[shift].consume(UnsafeBufferPointer(rebasing: block[skipped...])) { pickers[shift].add($0) }
        }
    }

    public func finish(duration: Double) -> HashFingerprint {
        // (time << 32 | hash): sorting orders by time, then hash.
        var keys: [UInt64] = []
        for shift in pickers.indices {
            for pair in hash.pairs(pickers[shift].finish(), parameters: parameters) {
                keys.append(UInt64(pair.time + lateFrames[shift]) << 32 | UInt64(pair.hash))
            }
        }
        return HashFingerprint(keys: keys, step: Double(parameters.hop) / parameters.sampleRate, duration: duration)
    }
}
