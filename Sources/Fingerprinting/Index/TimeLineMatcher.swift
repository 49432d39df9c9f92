/// One hit: a query hash that met a reference hash it agrees with (a Panako triplet, a quad).
struct TimeHit {
    /// Which hash a line counts once: the reference's, in a comparison; the query's, in the index.
    var id: Int32
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
/// change is a line of slope factor - 1; no change, a flat one. Each hash counts once (`TimeHit.id`).
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
    func align(_ hits: ArraySlice<TimeHit>) -> (line: TimeLine, aligned: Int)? {
        guard hits.count >= minimumHits, let first = hits.first, let last = hits.last else { return nil }
        let span = Double(max(1, last.queryTime - first.queryTime)), fine = Double(max(1, tolerance)) / span, coarse = 8 * fine
        let widest = max(timeFactors.upperBound - 1, 1 - timeFactors.lowerBound)
        let all = Array(hits)
        guard let rough = crowded(all, slopes: stride(from: 0, through: widest, by: coarse), width: Double(2 * tolerance) + coarse * span) else { return nil }
        let near = all.filter { abs(Double($0.delta) - rough.slope * Double($0.queryTime) - rough.intercept) <= Double(tolerance) + coarse * span / 2 }
        guard let line = densest(near, slopes: stride(from: 0, through: coarse, by: fine), around: rough.slope, width: Double(2 * tolerance)) else { return nil }
        var counted = Set<Int32>()
        for hit in hits where abs(Double(hit.delta) - line.intercept - line.slope * Double(hit.queryTime)) <= Double(tolerance) {
            counted.insert(hit.id)
        }
        return (line, counted.count)
    }

    /// The most query hashes any line could align among `hits` (sorted by query time), in a pass per
    /// group: the allowed slopes are split into `slopeGroups` equal ranges; measured against a range's
    /// middle slope, a line of that range drifts at most half the range's width times the hits' span,
    /// so its hits (within ±`tolerance` frames of it) lie in one window of that drift plus the
    /// tolerance, counted in bins as wide (two adjacent bins hold any such window). `align` tries every
    /// factor; the index aligns only references whose bound could still rank.
    func alignmentBound(_ hits: ArraySlice<TimeHit>, slopeGroups: Int, bins counts: inout [Int32]) -> Int {
        guard let first = hits.first, let last = hits.last else { return 0 }
        let low = timeFactors.lowerBound - 1, high = timeFactors.upperBound - 1, half = (high - low) / Double(2 * slopeGroups)
        // Times are integers and the shifted ones rounded: two more frames than the window.
        let width = Int32(half * Double(max(1, last.queryTime - first.queryTime)) + Double(2 * tolerance)) + 3
        var most: Int32 = 0
        for group in 0..<slopeGroups {
            let slope = low + Double(2 * group + 1) * half
            func shifted(_ hit: TimeHit) -> Int32 { hit.delta - Int32((slope * Double(hit.queryTime)).rounded()) }
            var smallest = Int32.max, largest = Int32.min
            for hit in hits { let value = shifted(hit); smallest = min(smallest, value); largest = max(largest, value) }
            let binCount = Int((largest - smallest) / width) + 2
            if counts.count < binCount { counts = [Int32](repeating: 0, count: binCount) } else { counts.withUnsafeMutableBufferPointer { $0[..<binCount].update(repeating: 0) } }
            for hit in hits { counts[Int((shifted(hit) - smallest) / width)] += 1 }
            for b in 0..<(binCount - 1) { most = max(most, counts[b] + counts[b + 1]) }
        }
        return Int(most)
    }

    /// The coarse search: for each slope (0, then ± each of `offsets`), the hits' offsets counted in bins
    /// of half `width`; the slope and the middle of the two adjacent bins holding the most. A pass per
    /// slope, no sorting: the coarse search sees every hit, the fine one only those near its answer.
    private func crowded(_ hits: [TimeHit], slopes offsets: StrideThrough<Double>, width: Double) -> TimeLine? {
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
    private func densest(_ hits: [TimeHit], slopes offsets: StrideThrough<Double>, around centre: Double, width: Double) -> TimeLine? {
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
}

extension TimeLineMatcher {
    /// A query's hits in a reference as a comparison: the line through them, scored by `share`, with the
    /// offset in seconds and the time factor the line found (the raw figure: the hits on it).
    func comparison(of hits: [TimeHit], query: HashFingerprint, reference: HashFingerprint) -> Comparison {
        let hits = hits.sorted { ($0.queryTime, $0.referenceTime) < ($1.queryTime, $1.referenceTime) }
        guard let (line, aligned) = align(hits[...]), let last = query.times.last else { return Comparison(score: 0, offset: 0, rawFigure: 0) }
        return Comparison(score: share(aligned, of: reference, along: line, queryFrames: Int(last)), offset: line.intercept * query.step,
                          rawFigure: Double(aligned), timeFactor: line.timeFactor)
    }

    /// `aligned` over the reference's hashes in the stretch `line` maps the query's first to last frame
    /// onto (± the tolerance): the share of that stretch the query explains, 1 for identity.
    func share(_ aligned: Int, of reference: HashFingerprint, along line: TimeLine, queryFrames: Int) -> Double {
        let start = line.intercept - Double(tolerance), end = line.intercept + line.timeFactor * Double(queryFrames) + Double(tolerance)
        let spanned = reference.times.count { Double($0) >= start && Double($0) <= end }
        return spanned > 0 ? min(1, Double(aligned) / Double(spanned)) : 0
    }
}

/// The parameters of an algorithm matched along a time line (Panako, the quads).
protocol TimeLineParameters {
    var minimumHits: Int { get }
    var lineTolerance: Int { get }
    var minimumTimeFactor: Double { get }
    var maximumTimeFactor: Double { get }
}

extension TimeLineParameters {
    /// Why the time factors cannot be searched, or nil: half to twice the speed (each factor more is a search of
    /// its own, so a factor of 65,536 never ends).
    var timeFactorProblem: String? {
        minimumTimeFactor >= 0.5 && minimumTimeFactor <= 1 && maximumTimeFactor >= 1 && maximumTimeFactor <= 2 ? nil
            : "0.5 <= minimumTimeFactor <= 1 <= maximumTimeFactor <= 2 (half to twice the speed; each factor more is a search of its own)"
    }

    var matcher: TimeLineMatcher {
        TimeLineMatcher(minimumHits: minimumHits, tolerance: lineTolerance, timeFactors: minimumTimeFactor...maximumTimeFactor)
    }
}
