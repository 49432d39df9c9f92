import AudioIO
import DSP

/// Quad-based fingerprinting (Sonnleitner & Widmer 2016): spectrogram peaks grouped into quads whose
/// hashes do not change when the audio is played faster, slower or transposed; references keep a few
/// strong quads a second, queries many, found by a range search. Values from the paper as the public
/// implementations state them, unless said.
public struct QuadFingerprinting: FramedFingerprinting, Parameterized {
    public struct Parameters: AlgorithmParameters, TimeLineParameters {
        public var sampleRate = 8000.0
        public var fftSize = 1024
        public var hop = 32
        /// A reference peak is the largest within ±this many bins and frames; a query's neighbourhood is
        /// smaller, so that the peaks of a stretched or transposed reference are still among its peaks.
        public var referencePeakBinRadius = 75
        public var referencePeakFrameRadius = 37
        public var queryPeakBinRadius = 62
        public var queryPeakFrameRadius = 30
        /// Peaks more than this far below the recording's loudest bin are ignored.
        public var peakFloorDecibels = 60.0
        /// Where B, C and D may lie after A, in frames: references and (wider, for ±20 %) queries.
        public var referenceWindowStart = 225
        public var referenceWindowEnd = 425
        public var queryWindowStart = 187
        public var queryWindowEnd = 531
        public var referenceQuadsPerSecond = 9
        public var queryQuadsPerSecond = 1500
        /// Coordinates agree within this many 1/256 steps.
        public var hashTolerance = 3
        public var minimumHits = 5
        public var minimumAlignedQuads = 4
        public var lineTolerance = 6
        public var minimumTimeFactor = 0.8
        public var maximumTimeFactor = 1.2

        public init() {}

        /// Why these values cannot run (nil: they can); checked before a variant is made.
        public var problem: String? {
            if let bad = frameProblem(frameSize: fftSize, hop: hop) { return bad }
            let radii = [referencePeakBinRadius, referencePeakFrameRadius, queryPeakBinRadius, queryPeakFrameRadius]
            // A neighbourhood of a bin or two makes nearly every bin a peak: quads by the million (a search past 2 minutes at 1).
            if radii.contains(where: { !(0...1000).contains($0) }) || !(3...fftSize / 2).contains(referencePeakBinRadius) || !(3...fftSize / 2).contains(queryPeakBinRadius) {
                return "peak radii 0-1,000 frames and 3 to fftSize / 2 bins"
            }
            if !(1...referenceWindowEnd).contains(referenceWindowStart) || !(1...queryWindowEnd).contains(queryWindowStart)
                || max(referenceWindowEnd, queryWindowEnd) > 10_000 { return "windows start at 1 frame or later and end after they start, within 10,000 frames" }
            if !(1...100_000).contains(referenceQuadsPerSecond) || !(1...100_000).contains(queryQuadsPerSecond) { return "quads per second 1-100,000" }
            if !(0...64).contains(hashTolerance) || minimumHits < 1 || minimumAlignedQuads < 1 || lineTolerance < 0 { return "hashTolerance 0-64, minimum counts at least 1, lineTolerance at least 0" }
            if let bad = timeFactorProblem { return bad }
            return nil
        }
    }

    public var parameters: Parameters
    public init(parameters: Parameters = Parameters()) { self.parameters = parameters }

    public var identifier: String { "quads" }
    public var revision: Int { 1 }
    public var displayName: String { "Quad-based fingerprinting (Sonnleitner & Widmer 2016)" }
    public var sampleRate: Double { parameters.sampleRate }
    public var rawFigureName: String { "reference quads aligned on the time line" }
    public var offsetResolution: Double? { step }
    /// Its hashes are ratios that a change of speed leaves alone; the match finds the time factor (`TimeLineMatcher`).
    public var declaredCapabilities: Capabilities { .timeFactor }
    public var minimumDuration: Double { Double(parameters.fftSize + parameters.hop * min(parameters.referenceWindowStart, parameters.queryWindowStart)) / sampleRate }
    var step: Double { Double(parameters.hop) / sampleRate }

    /// Every parameter with its source (the profile marks values changed from the defaults).
    public func describe() -> Profile {
        let p = parameters, sw = Citation.sonnleitnerWidmer
        return Profile([
            Parameter("sampleRate", p.sampleRate, source: "\(sw): audio at 8 kHz"),
            Parameter("stft", "\(p.fftSize)-point Hann, hop \(p.hop) (4 ms)", source: "\(sw): frames of 1,024 samples (128 ms), hop 32"),
            Parameter("referencePeaks", "largest within ±\(p.referencePeakBinRadius) bins × ±\(p.referencePeakFrameRadius) frames",
                      source: "\(sw): max filter 151 × 75 (bins × frames, as the public implementations apply it)"),
            Parameter("queryPeaks", "largest within ±\(p.queryPeakBinRadius) bins × ±\(p.queryPeakFrameRadius) frames",
                      source: "\(sw): the query filter shrunk for ±20 % tolerance, 125 × 60"),
            Parameter("peakFloor", "\(p.peakFloorDecibels) dB below the loudest bin", source: "our choice, as constellation's: no peaks from silence"),
            Parameter("referenceWindow", "B, C, D \(p.referenceWindowStart)-\(p.referenceWindowEnd) frames after A",
                      source: "\(sw): grouping centred 1.3 s after A, 0.8 s wide"),
            Parameter("queryWindow", "B, C, D \(p.queryWindowStart)-\(p.queryWindowEnd) frames after A",
                      source: "\(sw): the reference window stretched by ±20 % (225 / 1.2 to 425 / 0.8)"),
            Parameter("quadsPerSecond", "\(p.referenceQuadsPerSecond) (references), \(p.queryQuadsPerSecond) (queries), strongest by the power of C and D",
                      source: "\(sw): 9 and 1,500 quads per second"),
            Parameter("hash", Quads.layoutDescription, source: "\(sw): the quad's hash (C'x, C'y, D'x, D'y); 8 bits each is our choice"),
            Parameter("rangeSearch", "every coordinate within ±\(p.hashTolerance) / 256, by cells of 8 / 256 in the shared postings",
                      source: "our choice: the paper searches a range around each query hash in a spatial index; ±0.012 stands in for its tolerance"),
            Parameter("line", "the time factor and offset with the most quads within ±\(p.lineTolerance) frames, factors \(p.minimumTimeFactor)-\(p.maximumTimeFactor)",
                      source: "our choice, shared with Panako, for \(sw)'s filtering by scale factors (±20 %) and histogram of offsets"),
            Parameter("minimumHits", p.minimumHits, source: "our choice: fewer hits than this are not looked at"),
            Parameter("minimumAlignedQuads", p.minimumAlignedQuads, source: "our choice; the paper's verification counts the query's peaks near the reference's, which we do not keep"),
            Parameter("score", "reference quads aligned / reference quads in the stretch the query spans", source: "our choice: 1 for identity, as constellation's"),
        ])
    }

    public var frontEnd: FrameFrontEnd { .power(STFT(frameSize: parameters.fftSize, hop: parameters.hop, window: .hann)) }

    public func rowBuilder(role: FingerprintRole) -> QuadBuilder { QuadBuilder(parameters: parameters, role: role) }

    public func compare(query: HashFingerprint, reference: HashFingerprint) -> Comparison {
        parameters.matcher.compareQuads(query: query, reference: reference, tolerance: parameters.hashTolerance)
    }

    public func isMatch(_ comparison: Comparison) -> Bool { comparison.rawFigure >= Double(parameters.minimumAlignedQuads) }

    /// Quads held at more catalog positions than this are skipped at lookup (as constellation's hashes).
    static let commonHashLimit = 200

    public func makeIndex() -> TimeLineIndex<QuadNeighbourhood> {
        TimeLineIndex(matcher: parameters.matcher, neighbourhood: QuadNeighbourhood(tolerance: parameters.hashTolerance), commonHashLimit: Self.commonHashLimit)
    }
}

/// Peaks as the power rows come (the role's neighbourhood), grouped into quads at the end.
public struct QuadBuilder: RowBuilder {
    private let parameters: QuadFingerprinting.Parameters
    private let role: FingerprintRole
    private var picker: PeakPicker

    init(parameters p: QuadFingerprinting.Parameters, role: FingerprintRole) {
        parameters = p
        self.role = role
        let query = role == .query, columns = p.fftSize / 2 + 1
        picker = PeakPicker(columns: columns, neighbourhood: PeakNeighbourhood(
            binRadius: query ? p.queryPeakBinRadius : p.referencePeakBinRadius, frameRadius: query ? p.queryPeakFrameRadius : p.referencePeakFrameRadius,
            perFrame: .max, floorDecibels: p.peakFloorDecibels, bins: 1..<(columns - 1)))
    }

    public mutating func add(_ row: UnsafeBufferPointer<Float>) { picker.add(row) }

    public func finish(duration: Double) -> HashFingerprint {
        var picker = picker
        let p = parameters, query = role == .query
        let keys = Quads.keys(picker.finish(), window: query ? p.queryWindowStart...p.queryWindowEnd : p.referenceWindowStart...p.referenceWindowEnd,
                              perSecond: query ? p.queryQuadsPerSecond : p.referenceQuadsPerSecond, framesPerSecond: Int(p.sampleRate) / p.hop)
        return HashFingerprint(keys: keys, step: Double(p.hop) / p.sampleRate, duration: duration)
    }
}
