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

/// How the line through a reference's hits is found.
public enum TimeLineFit: String, ParameterChoice {
    /// The time factor and offset with the most hits (a histogram over both; ours).
    case histogram
    /// Panako 2.1's: the line through the commonest time difference of the first and of the last part of
    /// the hits (`PanakoStrategy.query`).
    case twoPoint
}

/// What a match is scored by.
public enum TimeLineScore: String, ParameterChoice {
    /// The share of the reference's hashes in the stretch the query spans that lie on the line (ours).
    case share
    /// The hits on the line, n, as n / (n + 10): Panako 2.1 ranks its matches by n.
    case hits
}

/// Panako 2.1's match filters (`PanakoStrategy.query`): the hits on the line must span `seconds` of the
/// query, and fall in at least `shareOfSeconds` of the whole seconds they span in the reference.
struct MatchFilters: Sendable, Equatable {
    var seconds: Double
    var shareOfSeconds: Double
    /// Seconds a frame.
    var step: Double

    /// Whether `hits` (on the line, in query-time order) pass, counted as the release counts them: the
    /// seconds from the first hit's reference time, truncated; their number, the span rounded up.
    func pass(_ hits: [TimeHit]) -> Bool {
        guard let first = hits.first, let last = hits.last, Double(last.queryTime - first.queryTime) * step >= seconds else { return false }
        let start = Double(first.referenceTime) * step, spanned = (Double(last.referenceTime) * step - start).rounded(.up)
        let withHits = Set(hits.map { Int(Double($0.referenceTime) * step - start) }).count
        return 1 - (spanned - Double(withHits)) / spanned >= shareOfSeconds
    }
}

/// Panako's matching as a histogram of time offsets and time factors (a Hough transform): each hit
/// votes, for every time factor in range, for the offset that factor would give it; the factor and
/// offset with the most query triplets within `tolerance` frames are the line. A uniform speed or tempo
/// change is a line of slope factor - 1; no change, a flat one. Each hash counts once (`TimeHit.id`).
/// (Panako 2.1 takes the line through the commonest time difference of the first and last fifth of the
/// hits; with few hits and a tempo change no difference repeats, so we search the factors instead. Its
/// line, its score and its filters are options, to measure what each costs: `Reports/panako-release-gap`.)
struct TimeLineMatcher: Sendable, Equatable {
    var minimumHits: Int
    var tolerance: Int
    var timeFactors: ClosedRange<Double>
    var fit = TimeLineFit.histogram
    var score = TimeLineScore.share
    var filters: MatchFilters?

    /// The line through `hits` (sorted by query time) and the query hashes aligned on it; nil when
    /// there are too few hits or no line.
    func align(_ hits: ArraySlice<TimeHit>) -> (line: TimeLine, aligned: Int)? {
        guard hits.count >= minimumHits, let line = fit == .histogram ? histogramLine(hits) : twoPointLine(hits) else { return nil }
        var counted = Set<Int32>()
        for hit in hits where isOn(hit, line) { counted.insert(hit.id) }
        return (line, counted.count)
    }

    private func isOn(_ hit: TimeHit, _ line: TimeLine) -> Bool {
        abs(Double(hit.delta) - line.intercept - line.slope * Double(hit.queryTime)) <= Double(tolerance)
    }

    /// Panako 2.1's line, as `PanakoStrategy.query` at b602429 draws it: through (x1, y1) and (x2, y2),
    /// where y1 is the commonest time difference among the first max(`minimumHits`, n / 5) hits (at
    /// most 250) and x1 the query time of the first of them with it, y2 and x2 the same among the last
    /// ones, from the end; kept if 1 / (1 - slope), its time factor, lies strictly within the factors.
    /// A tie between differences goes to the smaller (Java's hash map keeps no order we could copy).
    private func twoPointLine(_ hits: ArraySlice<TimeHit>) -> TimeLine? {
        let part = min(250, max(minimumHits, hits.count / 5))
        func commonest(_ part: ArraySlice<TimeHit>) -> Int32 {
            Dictionary(part.map { ($0.delta, 1) }, uniquingKeysWith: +).max { $0.value != $1.value ? $0.value < $1.value : $0.key > $1.key }!.key
        }
        let y1 = commonest(hits.prefix(part)), y2 = commonest(hits.suffix(part))
        guard let x1 = hits.prefix(part).first(where: { $0.delta == y1 })?.queryTime,
              let x2 = hits.suffix(part).last(where: { $0.delta == y2 })?.queryTime else { return nil }
        let slope = Double(y2 - y1) / Double(x2 - x1), factor = 1 / (1 - slope)
        guard factor > timeFactors.lowerBound && factor < timeFactors.upperBound else { return nil }
        return TimeLine(slope: slope, intercept: Double(y1) - slope * Double(x1))
    }

    /// Our line. First a coarse search, factors 8 · `tolerance` frames of drift over the hits' span
    /// apart, in windows wide enough to hold the line of any factor between; then a fine one around the
    /// best, in steps of `tolerance` frames, on the hits of that window. Factors are tried from 1
    /// outwards, so a tie goes to the smaller change.
    private func histogramLine(_ hits: ArraySlice<TimeHit>) -> TimeLine? {
        guard let first = hits.first, let last = hits.last else { return nil }
        let span = Double(max(1, last.queryTime - first.queryTime)), fine = Double(max(1, tolerance)) / span, coarse = 8 * fine
        let widest = max(timeFactors.upperBound - 1, 1 - timeFactors.lowerBound)
        let all = Array(hits)
        guard let rough = crowded(all, slopes: stride(from: 0, through: widest, by: coarse), width: Double(2 * tolerance) + coarse * span) else { return nil }
        let near = all.filter { abs(Double($0.delta) - rough.slope * Double($0.queryTime) - rough.intercept) <= Double(tolerance) + coarse * span / 2 }
        return densest(near, slopes: stride(from: 0, through: coarse, by: fine), around: rough.slope, width: Double(2 * tolerance))
    }

    /// The most query hashes any line could align among `hits` (sorted by query time), in a pass per
    /// group: the allowed slopes are split into `slopeGroups` equal ranges; measured against a range's
    /// middle slope, a line of that range drifts at most half the range's width times the hits' span,
    /// so its hits (within ±`tolerance` frames of it) lie in one window of that drift plus the
    /// tolerance, counted in bins as wide (two adjacent bins hold any such window). `align` tries every
    /// factor; the index aligns only references whose bound could still rank.
    func alignmentBound(_ hits: ArraySlice<TimeHit>, slopeGroups: Int, scratch: inout BinScratch) -> Int {
        guard let first = hits.first, let last = hits.last else { return 0 }
        let low = timeFactors.lowerBound - 1, high = timeFactors.upperBound - 1, half = (high - low) / Double(2 * slopeGroups)
        // Times are integers and the shifted ones rounded: two more frames than the window.
        let width = Int32(half * Double(max(1, last.queryTime - first.queryTime)) + Double(2 * tolerance)) + 3
        var most: Int32 = 0, shifted = [Int32](repeating: 0, count: hits.count)
        for group in 0..<slopeGroups {
            let slope = low + Double(2 * group + 1) * half
            var smallest = Int32.max, largest = Int32.min
            hits.withUnsafeBufferPointer { hits in
                shifted.withUnsafeMutableBufferPointer { shifted in
                    for i in hits.indices {
                        let value = hits[i].delta - roundedHalfAway(slope * Double(hits[i].queryTime))
                        shifted[i] = value
                        smallest = min(smallest, value)
                        largest = max(largest, value)
                    }
                }
            }
            let pair = shifted.withUnsafeBufferPointer { shifted in
                scratch.densestPair(shifted.count, lastBin: Int((largest - smallest) / width)) { Int((shifted[$0] - smallest) / width) }
            }
            most = max(most, pair.count)
        }
        return Int(most)
    }

    /// The coarse search: for each slope (0, then ± each of `offsets`), the hits' offsets counted in bins
    /// of half `width`; the slope and the middle of the two adjacent bins holding the most. A pass per
    /// slope, no sorting: the coarse search sees every hit, the fine one only those near its answer.
    private func crowded(_ hits: [TimeHit], slopes offsets: StrideThrough<Double>, width: Double) -> TimeLine? {
        var best: (line: TimeLine, count: Int32)?
        let bin = width / 2, deltas = hits.map { Double($0.delta) }, times = hits.map { Double($0.queryTime) }
        var intercepts = [Double](repeating: 0, count: hits.count), scratch = BinScratch()
        func measure(_ slope: Double) {
            guard timeFactors.contains(1 + slope) else { return }
            var smallest = 0.0, largest = 0.0
            deltas.withUnsafeBufferPointer { deltas in
                times.withUnsafeBufferPointer { times in
                    intercepts.withUnsafeMutableBufferPointer { intercepts in
                        // Two running extremes, even and odd hits, so that each waits on half the comparisons
                        // (an intercept is never -0 or NaN, so the order of comparing cannot change them).
                        var low = (deltas[0] - slope * times[0], deltas[0] - slope * times[0]), high = low
                        var i = 0
                        while i + 1 < intercepts.count {
                            let even = deltas[i] - slope * times[i], odd = deltas[i + 1] - slope * times[i + 1]
                            (intercepts[i], intercepts[i + 1]) = (even, odd)
                            low = (min(low.0, even), min(low.1, odd))
                            high = (max(high.0, even), max(high.1, odd))
                            i += 2
                        }
                        if i < intercepts.count {
                            let value = deltas[i] - slope * times[i]
                            intercepts[i] = value
                            low.0 = min(low.0, value)
                            high.0 = max(high.0, value)
                        }
                        (smallest, largest) = (min(low.0, low.1), max(high.0, high.1))
                    }
                }
            }
            let pair = intercepts.withUnsafeBufferPointer { intercepts in
                scratch.densestPair(intercepts.count, lastBin: Int((largest - smallest) / bin)) { Int((intercepts[$0] - smallest) / bin) }
            }
            if pair.count > best?.count ?? 0 { best = (TimeLine(slope: slope, intercept: smallest + Double(pair.first + 1) * bin), pair.count) }
        }
        for offset in offsets {
            measure(offset)
            if offset != 0 { measure(-offset) }
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

/// Counting values in bins, for the coarse line search and the alignment bound: each value's bin, and the
/// bins' counts (all zero between uses), kept from one count to the next.
struct BinScratch {
    private var bins: [Int32] = []
    private(set) var counts: [Int32] = []

    /// Of `count` values whose bins, from 0 to `lastBin`, `bin(i)` gives, the two adjacent bins holding the
    /// most: the first of them (the lower on a tie) and their count, as a scan over every pair of bins
    /// finds them, visiting only the bins the values fill (most pairs of a sparse histogram are empty and
    /// can win nothing).
    @inline(__always)
    mutating func densestPair(_ count: Int, lastBin: Int, bin: (Int) -> Int) -> (first: Int, count: Int32) {
        if counts.count < lastBin + 2 { counts = [Int32](repeating: 0, count: lastBin + 2) }
        if bins.count < count { bins = [Int32](repeating: 0, count: count) }
        return bins.withUnsafeMutableBufferPointer { bins in
            counts.withUnsafeMutableBufferPointer { counts in
                for i in 0..<count {
                    let b = bin(i)
                    bins[i] = Int32(b)
                    counts[b] &+= 1
                }
                var best = (first: Int.max, count: Int32(0))
                for i in 0..<count {
                    let b = Int(bins[i])
                    for first in (b > 0 ? b - 1 : b)...b {
                        let count = counts[first] &+ counts[first + 1]
                        if count > best.count || (count == best.count && first < best.first) { best = (first, count) }
                    }
                }
                for i in 0..<count { counts[Int(bins[i])] = 0 }
                return best
            }
        }
    }
}

/// `Int32(x.rounded())` (half away from zero), without a call: x less its truncation is exact.
@inline(__always)
func roundedHalfAway(_ x: Double) -> Int32 {
    let truncated = Int32(x), fraction = x - Double(truncated)
    return fraction >= 0.5 ? truncated + 1 : fraction <= -0.5 ? truncated - 1 : truncated
}

extension TimeLineMatcher {
    /// A query's hits in a reference as a comparison: the line through them, scored by `share`, with the
    /// offset in seconds and the time factor the line found (the raw figure: the hits on it).
    /// With `filters`, a line whose hits do not pass them is no match; scored by `hits`, the raw figure
    /// counts every hit on the line (as Panako 2.1 does), not each hash once.
    func comparison(of hits: [TimeHit], query: HashFingerprint, reference: HashFingerprint) -> Comparison {
        let none = Comparison(score: 0, offset: 0, rawFigure: 0)
        let hits = hits.sorted { ($0.queryTime, $0.referenceTime) < ($1.queryTime, $1.referenceTime) }
        guard let (line, aligned) = align(hits[...]), let last = query.times.last else { return none }
        let onLine = filters == nil && score == .share ? [] : hits.filter { isOn($0, line) }
        if let filters, !filters.pass(onLine) { return none }
        let figure = score == .hits ? onLine.count : aligned
        let value = score == .hits ? Double(figure) / Double(figure + 10) : share(aligned, of: reference, along: line, queryFrames: Int(last))
        return Comparison(score: value, offset: line.intercept * query.step, rawFigure: Double(figure), timeFactor: line.timeFactor)
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
    /// Ours by default; Panako's own for `Reports/panako-release-gap`.
    var lineFit: TimeLineFit { get }
    var lineScore: TimeLineScore { get }
    var matchFilters: MatchFilters? { get }
}

extension TimeLineParameters {
    /// Why the time factors cannot be searched, or nil: half to twice the speed (each factor more is a search of
    /// its own, so a factor of 65,536 never ends).
    var timeFactorProblem: String? {
        minimumTimeFactor >= 0.5 && minimumTimeFactor <= 1 && maximumTimeFactor >= 1 && maximumTimeFactor <= 2 ? nil
            : "0.5 <= minimumTimeFactor <= 1 <= maximumTimeFactor <= 2 (half to twice the speed; each factor more is a search of its own)"
    }

    var lineFit: TimeLineFit { .histogram }
    var lineScore: TimeLineScore { .share }
    var matchFilters: MatchFilters? { nil }

    var matcher: TimeLineMatcher {
        TimeLineMatcher(minimumHits: minimumHits, tolerance: lineTolerance, timeFactors: minimumTimeFactor...maximumTimeFactor,
                        fit: lineFit, score: lineScore, filters: matchFilters)
    }
}
