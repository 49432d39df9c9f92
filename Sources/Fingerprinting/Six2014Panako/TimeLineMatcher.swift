/// One hit: a query triplet that met a reference triplet with a nearby hash.
struct TripletHit {
    /// Which of the query's triplets (for counting each once).
    var query: Int32
    var queryTime: Int32
    var referenceTime: Int32
    var delta: Int32 { referenceTime - queryTime }
}

/// Where a query lies along a reference: reference frame = query frame + intercept + slope · query frame,
/// so 1 + slope is the time factor (seconds of reference per second of query).
struct TimeLine: Equatable {
    var slope: Double
    var intercept: Double
    var timeFactor: Double { 1 + slope }
}

/// Panako's matching as a histogram of time offsets and time factors (a Hough transform): each hit
/// votes, for every time factor in range, for the offset that factor would give it; the factor and
/// offset with the most query triplets within `tolerance` frames are the line. A uniform speed or tempo
/// change is a line of slope factor - 1; no change, a flat one. Repeated query triplets count once.
/// (Panako 2.1 takes the line through the commonest time difference of the first and last fifth of the
/// hits; with few hits and a tempo change no difference repeats, so we search the factors instead.)
struct TimeLineMatcher: Sendable, Equatable {
    var minimumHits: Int
    var tolerance: Int
    var timeFactors: ClosedRange<Double>

    /// The line through `hits` (sorted by query time) and the query triplets aligned on it; nil when
    /// there are too few hits. First a coarse search, factors 8 · `tolerance` frames of drift over the
    /// hits' span apart, in windows wide enough to hold the line of any factor between; then a fine one
    /// around the best, in steps of `tolerance` frames, on the hits of that window. Factors are tried
    /// from 1 outwards, so a tie goes to the smaller change.
    func align(_ hits: ArraySlice<TripletHit>) -> (line: TimeLine, aligned: Int)? {
        guard hits.count >= minimumHits, let first = hits.first, let last = hits.last else { return nil }
        let span = Double(max(1, last.queryTime - first.queryTime)), fine = Double(max(1, tolerance)) / span, coarse = 8 * fine
        let widest = max(timeFactors.upperBound - 1, 1 - timeFactors.lowerBound)
        let all = Array(hits)
        guard let rough = crowded(all, slopes: stride(from: 0, through: widest, by: coarse), width: Double(2 * tolerance) + coarse * span) else { return nil }
        let near = all.filter { abs(Double($0.delta) - rough.slope * Double($0.queryTime) - rough.intercept) <= Double(tolerance) + coarse * span / 2 }
        guard let line = densest(near, slopes: stride(from: 0, through: coarse, by: fine), around: rough.slope, width: Double(2 * tolerance)) else { return nil }
        var counted = Set<Int32>()
        for hit in hits where abs(Double(hit.delta) - line.intercept - line.slope * Double(hit.queryTime)) <= Double(tolerance) {
            counted.insert(hit.query)
        }
        return (line, counted.count)
    }

    /// The coarse search: for each slope (0, then ± each of `offsets`), the hits' offsets counted in bins
    /// of half `width`; the slope and the middle of the two adjacent bins holding the most. A pass per
    /// slope, no sorting: the coarse search sees every hit, the fine one only those near its answer.
    private func crowded(_ hits: [TripletHit], slopes offsets: StrideThrough<Double>, width: Double) -> TimeLine? {
        var best: (line: TimeLine, count: Int)?
        let bin = width / 2
        var intercepts = [Double](repeating: 0, count: hits.count), counts: [Int32] = []
        for offset in offsets {
            for slope in offset == 0 ? [0] : [offset, -offset] where timeFactors.contains(1 + slope) {
                var low = Double.infinity, high = -Double.infinity
                for (i, hit) in hits.enumerated() {
                    intercepts[i] = Double(hit.delta) - slope * Double(hit.queryTime)
                    low = min(low, intercepts[i])
                    high = max(high, intercepts[i])
                }
                let bins = Int((high - low) / bin) + 2
                if counts.count < bins { counts = [Int32](repeating: 0, count: bins) } else { for b in 0..<bins { counts[b] = 0 } }
                for value in intercepts { counts[Int((value - low) / bin)] += 1 }
                for b in 0..<(bins - 1) where Int(counts[b] + counts[b + 1]) > best?.count ?? 0 {
                    best = (TimeLine(slope: slope, intercept: low + Double(b + 1) * bin), Int(counts[b] + counts[b + 1]))
                }
            }
        }
        return best?.line
    }

    /// The fine search: of the slopes `around` ± each of `offsets` (within the factors), the one whose
    /// hits, shifted to a common offset, crowd most into a window `width` frames wide, with its middle.
    private func densest(_ hits: [TripletHit], slopes offsets: StrideThrough<Double>, around centre: Double, width: Double) -> TimeLine? {
        var best: (line: TimeLine, count: Int)?
        var intercepts = [Double](repeating: 0, count: hits.count)
        for offset in offsets {
            for slope in offset == 0 ? [centre] : [centre + offset, centre - offset] where timeFactors.contains(1 + slope) {
                for (i, hit) in hits.enumerated() { intercepts[i] = Double(hit.delta) - slope * Double(hit.queryTime) }
                intercepts.sort()
                var low = 0
                for high in intercepts.indices {
                    while intercepts[high] - intercepts[low] > width { low += 1 }
                    if high - low + 1 > best?.count ?? 0 { best = (TimeLine(slope: slope, intercept: (intercepts[low] + intercepts[high]) / 2), high - low + 1) }
                }
            }
        }
        return best?.line
    }

    /// Query against reference: every hit of a query triplet among the reference's triplets with a
    /// hash within `range` time-ratio steps, then the line.
    func compare(query: HashFingerprint, reference: HashFingerprint, range: Int) -> Comparison {
        let keys = zip(reference.hashes, reference.times).map { UInt64($0) << 32 | UInt64($1) }.sorted()
        var hits: [TripletHit] = []
        for (i, (hash, time)) in zip(query.hashes, query.times).enumerated() {
            let tried = TripletHash.neighbours(of: hash, range: range)
            var k = keys.lowerBound { $0 < UInt64(tried.lowerBound) << 32 }
            while k < keys.count && keys[k] >> 32 <= UInt64(tried.upperBound) {
                hits.append(TripletHit(query: Int32(i), queryTime: Int32(time), referenceTime: Int32(truncatingIfNeeded: keys[k])))
                k += 1
            }
        }
        hits.sort { ($0.queryTime, $0.referenceTime) < ($1.queryTime, $1.referenceTime) }
        guard let (line, aligned) = align(hits[...]), !query.hashes.isEmpty else { return Comparison(score: 0, offset: 0, rawFigure: 0) }
        return Comparison(score: Double(aligned) / Double(query.hashes.count), offset: line.intercept * query.step,
                          rawFigure: Double(aligned), timeFactor: line.timeFactor)
    }
}

/// Panako's index: every triplet hash points to the catalog frames of its first event point. A query's
/// triplets (each with its neighbouring time ratios) gather hits per reference; each reference with
/// enough hits gets its line, and the references with the most aligned triplets are the candidates,
/// at the line's offset. Offsets are not voted on, since a speed change spreads them along the line.
public struct TripletIndex: FingerprintIndex {
    private var postings = Postings(keyBits: TripletHash.keyBits)
    private var step = 0.0
    let matcher: TimeLineMatcher
    let range: Int
    /// Hashes held at more catalog positions than this are skipped at lookup (as constellation's index).
    static let commonHashLimit = 200

    init(matcher: TimeLineMatcher, range: Int) {
        self.matcher = matcher
        self.range = range
    }

    public mutating func add(_ print: HashFingerprint, reference: Int) {
        precondition(reference == postings.referenceCount, "references are added in order")
        postings.add(print)
        step = print.step
    }

    public mutating func seal() { postings.seal() }

    public func candidates(for query: HashFingerprint, limit: Int) -> [Candidate] {
        // Hits in query-time order (the query's triplets are), then grouped by reference with a stable
        // counting sort, so each reference's hits stay in query-time order.
        var references: [Int32] = [], found: [TripletHit] = []
        var perReference = [Int](repeating: 0, count: postings.referenceCount + 1)
        for (i, (hash, time)) in zip(query.hashes, query.times).enumerated() {
            for key in TripletHash.neighbours(of: hash, range: range) {
                postings.forEachPosition(of: key, limit: Self.commonHashLimit) { position in
                    let (reference, local) = postings.layout.locate(position)
                    references.append(Int32(reference))
                    found.append(TripletHit(query: Int32(i), queryTime: Int32(time), referenceTime: Int32(local)))
                    perReference[reference + 1] += 1
                }
            }
        }
        for r in 1..<perReference.count { perReference[r] += perReference[r - 1] }
        let starts = perReference
        var grouped = found
        for (reference, hit) in zip(references, found) {
            grouped[perReference[Int(reference)]] = hit
            perReference[Int(reference)] += 1
        }
        // Most hits first; a reference gets its line unless it has no more hits than the `limit`-th best
        // has aligned (a line aligns at most every hit), so none that could rank is missed.
        var runs: [(reference: Int, hits: Range<Int>)] = []
        for reference in 0..<(starts.count - 1) where starts[reference + 1] - starts[reference] >= matcher.minimumHits {
            runs.append((reference, starts[reference]..<starts[reference + 1]))
        }
        runs.sort { $0.hits.count != $1.hits.count ? $0.hits.count > $1.hits.count : $0.reference < $1.reference }
        var candidates: [Candidate] = []
        for (reference, run) in runs {
            if candidates.count >= limit && run.count <= candidates[limit - 1].hits { break }
            guard let (line, aligned) = matcher.align(grouped[run]) else { continue }
            candidates.append(Candidate(reference: reference, offset: line.intercept * step, hits: aligned))
            candidates.sort { $0.hits != $1.hits ? $0.hits > $1.hits : $0.reference < $1.reference }
        }
        return Array(candidates.prefix(limit))
    }

    public var byteCount: Int { postings.byteCount }

    public func save(to writer: inout IndexFile.Writer) { postings.save("triplets", step: step, to: &writer) }
    public mutating func load(from reader: IndexFile.Reader) throws {
        (postings, step) = try Postings.load(keyBits: TripletHash.keyBits, "triplets", from: reader)
    }
}
