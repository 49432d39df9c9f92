import AudioIO
import DSP

/// Panako (Six & Leman 2014; Six 2022): event points on a log-frequency spectrogram, triplets of them
/// hashed from frequency differences, a time ratio and orderings, so that a uniform change of speed,
/// tempo or pitch leaves the hashes as they were; matched along a line of reference time against query
/// time whose slope is the time factor. Values from Panako 2.1's configuration (`Key.java`) unless said.
public struct Panako: FramedFingerprinting, Parameterized {
    public struct Parameters: AlgorithmParameters, TimeLineParameters {
        public var sampleRate = 16_000.0
        public var fftSize = 2048
        public var hop = 128
        public var lowestFrequency = 110.0
        public var bandsPerOctave = 85
        public var octaves = 6
        /// An event point is the largest value within ±this many bins ...
        public var peakBinRadius = 51
        /// ... and ±this many frames.
        public var peakFrameRadius = 12
        /// Event points more than this far below the recording's loudest bin are ignored.
        public var peakFloorDecibels = 60.0
        public var minimumTimeDelta = 2
        public var maximumTimeDelta = 33
        public var minimumFrequencyDelta = 1
        public var maximumFrequencyDelta = 128
        public var hashRange = 2
        public var minimumHits = 10
        public var minimumAlignedHits = 6
        public var lineTolerance = 2
        public var minimumTimeFactor = 0.8
        public var maximumTimeFactor = 1.2
        /// Hashes held at more catalog positions than this are skipped at lookup (as constellation's):
        /// lower keeps a query's cost from growing with the catalog, higher keeps more of its hits.
        public var commonHashLimit = 200
        /// 0, or at most this many hits a query: its rarest keys first, its lookup limit lowered until they fit
        /// (`HitBudget`): a query's cost stays bounded as the catalog grows.
        public var hitBudget = 0
        /// Our histogram line, or Panako's own two-point line (`Reports/panako-release-gap`).
        public var lineFit = TimeLineFit.histogram
        public var lineScore = TimeLineScore.share
        /// Panako's match filters, off (0) by default: a match spans at least this many seconds of the query ...
        public var minimumMatchSeconds = 0.0
        /// ... with hits in at least this share of the seconds it spans in the reference.
        public var minimumShareOfSecondsWithHits = 0.0

        public init() {}

        var matchFilters: MatchFilters? {
            minimumMatchSeconds == 0 && minimumShareOfSecondsWithHits == 0 ? nil
                : MatchFilters(seconds: minimumMatchSeconds, shareOfSeconds: minimumShareOfSecondsWithHits, step: Double(hop) / sampleRate)
        }

        /// Why these values cannot run (nil: they can); checked before a variant is made.
        public var problem: String? {
            if let bad = frameProblem(frameSize: fftSize, hop: hop) { return bad }
            if lowestFrequency < sampleRate / Double(fftSize) { return "lowestFrequency at least one FFT bin (\(sampleRate / Double(fftSize)) Hz)" }
            if !(lowestFrequency > 0 && bandsPerOctave >= 1 && octaves >= 1 && highestFrequency <= sampleRate / 2) {
                return "lowestFrequency · 2^octaves must stay below Nyquist, with at least 1 band per octave"
            }
            if !(8...511).contains(bandCount) { return "8 to 511 bins: the hash keeps f1 in 4 bits of 32 bins" }
            if !(1...maximumTimeDelta).contains(minimumTimeDelta) || maximumTimeDelta > 1000 { return "1 <= minimumTimeDelta <= maximumTimeDelta <= 1,000" }
            if !(0...maximumFrequencyDelta).contains(minimumFrequencyDelta) || maximumFrequencyDelta > 255 { return "0 <= minimumFrequencyDelta <= maximumFrequencyDelta <= 255 (6 bits of df / 4)" }
            // A neighbourhood of a bin or two makes nearly every bin a peak: triplets by the million (2 GB for 10 s at 1).
            if !(3...bandCount).contains(peakBinRadius) || peakFrameRadius > 1000 || !(0...63).contains(hashRange) {
                return "3 <= peakBinRadius <= bins, peakFrameRadius <= 1,000, hashRange 0-63"
            }
            if minimumHits < 1 || minimumAlignedHits < 1 || lineTolerance < 0 { return "minimumHits and minimumAlignedHits at least 1, lineTolerance at least 0" }
            if let bad = timeFactorProblem { return bad }
            if let bad = KeyCounts.limitProblem(commonHashLimit) { return bad }
            if hitBudget < 0 { return "hitBudget 0 (none) or more" }
            if !((0...1000).contains(minimumMatchSeconds) && (0...1).contains(minimumShareOfSecondsWithHits)) {
                return "minimumMatchSeconds 0 to 1,000, minimumShareOfSecondsWithHits 0 to 1"
            }
            return nil
        }

        var bandCount: Int { bandsPerOctave * octaves }
        var highestFrequency: Double { lowestFrequency * Double(1 << min(octaves, 30)) }
    }

    public var parameters: Parameters
    public init(parameters: Parameters = Parameters()) { self.parameters = parameters }

    public var identifier: String { "panako" }
    public var revision: Int { 1 }
    public var displayName: String { "Panako triplets (Six 2014, 2022)" }
    public var sampleRate: Double { parameters.sampleRate }
    public var rawFigureName: String { parameters.lineScore == .hits ? "hits on the time line" : "reference triplets aligned on the time line" }
    public var offsetResolution: Double? { step }
    /// Its hashes are ratios that a change of speed leaves alone; the match finds the time factor (`TimeLineMatcher`).
    public var declaredCapabilities: Capabilities { .timeFactor }
    public var minimumDuration: Double { Double(parameters.fftSize + parameters.hop * 2 * parameters.minimumTimeDelta) / sampleRate }
    var step: Double { Double(parameters.hop) / sampleRate }

    /// Every parameter with its source (the profile marks values changed from the defaults).
    public func describe() -> Profile {
        let p = parameters, k = Citation.panakoConfiguration, six = Citation.panako
        return Profile([
            Parameter("sampleRate", p.sampleRate, source: "\(k): PANAKO_SAMPLE_RATE 16,000"),
            Parameter("hop", p.hop, source: "\(k): PANAKO_TRANSF_TIME_RESOLUTION 128 samples (8 ms)"),
            Parameter("transform", "\(p.fftSize)-point Hann STFT power read at \(p.bandsPerOctave) bins per octave",
                      source: "our choice: a substitute for Panako's Gabor transform (JGaborator, not in Debian); below about 1 kHz the bins interpolate between FFT bins"),
            Parameter("bins", "\(p.bandCount) from \(p.lowestFrequency) Hz (\(p.octaves) octaves)",
                      source: "\(k): PANAKO_TRANSF_MIN_FREQ 110, MAX_FREQ 7,040, BANDS_PER_OCTAVE 85"),
            Parameter("eventPoints", "largest within ±\(p.peakBinRadius) bins × ±\(p.peakFrameRadius) frames",
                      source: "\(k): PANAKO_FREQ_MAX_FILTER_SIZE 103, PANAKO_TIME_MAX_FILTER_SIZE 25"),
            Parameter("peakFloor", "\(p.peakFloorDecibels) dB below the loudest bin", source: "our choice: keeps silence and dither from producing event points (Panako: any non-zero value)"),
            Parameter("magnitude", "the event point's own power", source: "our choice (Panako sums the 3 × 3 values around it); used only for the orderings"),
            Parameter("triplets", "consecutive points \(p.minimumTimeDelta)-\(p.maximumTimeDelta) frames and \(p.minimumFrequencyDelta)-\(p.maximumFrequencyDelta) bins apart",
                      source: "\(k): PANAKO_FP_MIN/MAX_TIME_DIST 2-33, PANAKO_FP_MIN/MAX_FREQ_DIST 1-128"),
            Parameter("hash", TripletHash.layoutDescription,
                      source: "\(six): PanakoFingerprint.hash(); f1 kept in 4 bits (f1 < 512 gives 16 values) and each gap in 6, so the hash fits 32 bits"),
            Parameter("hashRange", "±\(p.hashRange) time-ratio steps", source: "\(k): PANAKO_QUERY_RANGE 2"),
            Parameter("commonHashLimit", p.commonHashLimit, source: "our choice, as constellation's: a triplet hash at more catalog positions is skipped at lookup"),
            p.hitBudget == 0
                ? Parameter("hitBudget", "none", source: "our choice: every hash up to the lookup limit is looked up, however many hits they bring")
                : Parameter("hitBudget", "at most \(p.hitBudget) hits a query: its rarest hashes first, its lookup limit lowered until they fit",
                            source: "our choice: a query's cost bounded as the catalog grows, where a fixed limit skips more and more hashes (Reports/scale-synthetic)"),
            Parameter("minimumHits", p.minimumHits, source: "\(k): PANAKO_MIN_HITS_UNFILTERED 10"),
            p.lineFit == .histogram
                ? Parameter("line", "the time factor and offset with the most hits within ±\(p.lineTolerance) frames (a histogram over factors and offsets)",
                            source: "our choice, for \(six)'s line through the commonest time difference of the first and last fifth of the hits, which fails when a tempo change leaves no difference repeated; the range as tolerance")
                : Parameter("line", "through the commonest time difference of the first and of the last fifth of the hits (at least \(p.minimumHits), at most 250 each), hits within ±\(p.lineTolerance) frames of it",
                            source: "\(k) and PanakoStrategy.query: PANAKO_HIT_PART_DIVIDER 5, PANAKO_HIT_PART_MAX_SIZE 250, PANAKO_QUERY_RANGE 2; a tie goes to the smaller difference"),
            Parameter("timeFactors", "\(p.minimumTimeFactor)-\(p.maximumTimeFactor)", source: "\(k): PANAKO_MIN/MAX_TIME_FACTOR 0.8-1.2"),
            Parameter("minimumAlignedHits", p.minimumAlignedHits, source: "\(k): PANAKO_MIN_HITS_FILTERED 5 (a match needs more than 5)"),
            p.matchFilters == nil
                ? Parameter("minimumMatchDuration", "none", source: "our choice: Panako's 5 s minimum would refuse every 1-2 s query; the benchmark calibrates the threshold instead")
                : Parameter("minimumMatchDuration", "hits on the line spanning \(p.minimumMatchSeconds) s of the query, in at least \(p.minimumShareOfSecondsWithHits) of the seconds they span in the reference",
                            source: "\(k): PANAKO_MIN_MATCH_DURATION 5, PANAKO_MIN_SEC_WITH_MATCH 0.2 (PanakoStrategy.query)"),
            p.lineScore == .share
                ? Parameter("score", "reference triplets aligned on the line / reference triplets in the stretch the query spans",
                            source: "our choice, as constellation's: 1 for identity, and noise in the query does not lower it")
                : Parameter("score", "n / (n + 10) for the n hits on the line", source: "\(six): PanakoStrategy.query ranks matches by their filtered hits"),
        ])
    }

    public var frontEnd: FrameFrontEnd {
        let p = parameters
        let mapper = LogFrequencyMapper(lowest: p.lowestFrequency, bandsPerOctave: p.bandsPerOctave, bandCount: p.bandCount,
                                        fftSize: p.fftSize, sampleRate: p.sampleRate)
        return .logFrequency(STFT(frameSize: p.fftSize, hop: p.hop, window: .hann), mapper: mapper)
    }

    public func rowBuilder(role: FingerprintRole) -> TripletBuilder { TripletBuilder(parameters: parameters) }

    public func compare(query: HashFingerprint, reference: HashFingerprint) -> Comparison {
        parameters.matcher.compareTriplets(query: query, reference: reference, range: parameters.hashRange)
    }

    public func isMatch(_ comparison: Comparison) -> Bool { comparison.rawFigure >= Double(parameters.minimumAlignedHits) }

    public func makeIndex() -> TimeLineIndex<TripletNeighbourhood> {
        TimeLineIndex(matcher: parameters.matcher, neighbourhood: TripletNeighbourhood(range: parameters.hashRange), commonHashLimit: parameters.commonHashLimit,
                      hitBudget: parameters.hitBudget == 0 ? nil : HitBudget(hits: parameters.hitBudget))
    }
}

/// Event points as the log-frequency rows come, paired into triplets at the end.
public struct TripletBuilder: RowBuilder {
    private let parameters: Panako.Parameters
    private var picker: PeakPicker

    init(parameters p: Panako.Parameters) {
        parameters = p
        // Panako skips the lowest two bins and the highest.
        picker = PeakPicker(columns: p.bandCount, neighbourhood: PeakNeighbourhood(
            binRadius: p.peakBinRadius, frameRadius: p.peakFrameRadius, perFrame: .max, floorDecibels: p.peakFloorDecibels, bins: 2..<(p.bandCount - 1)))
    }

    public mutating func add(_ row: UnsafeBufferPointer<Float>) { picker.add(row) }

    public func finish(duration: Double) -> HashFingerprint {
        var picker = picker
        let p = parameters
        let keys = TripletHash.keys(picker.finish(), timeDeltas: p.minimumTimeDelta...p.maximumTimeDelta,
                                    frequencyDeltas: p.minimumFrequencyDelta...p.maximumFrequencyDelta)
        return HashFingerprint(keys: keys, step: Double(p.hop) / p.sampleRate, duration: duration)
    }
}
