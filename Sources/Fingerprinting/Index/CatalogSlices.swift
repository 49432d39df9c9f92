/// A catalog split into slices that answer exactly as the whole, each holding its own tracks' postings
/// and fingerprints (about 1/M of the index):
///
/// 1. `KeyCounter`: each slice counts the keys its own tracks post; `KeyCounts.whole` sums them, so each
///    slice skips a common key by its count over the whole catalog, as the whole index does.
/// 2. `Catalog(slicing:whole:)`: each slice lays out every track on the catalog's axis of positions
///    (4 bytes a track), posts its own tracks and its ghosts (the tracks just before it, and those after
///    it within `reach` seconds: votes near a slice's edges come from them), and verifies its own tracks
///    only (`Catalog.sliceCandidates`).
/// 3. `best`: each slice's candidates gathered, the whole index's best by hits kept, then ranked by
///    score: the whole catalog's search, match for match.
public enum CatalogSlices {
    /// Seconds of ghost before a slice: more than any index's alignment tolerance (±1 frame or hop).
    static let ghostBefore = 2.0

    /// `count` contiguous ranges of tracks, in catalog order, with about equal seconds each.
    public static func ranges(durations: [Double], count: Int) -> [Range<Int>] {
        let total = durations.reduce(0, +)
        var ranges: [Range<Int>] = [], start = 0, sum = 0.0
        for (i, duration) in durations.enumerated() {
            sum += duration
            if ranges.count < count - 1 && sum >= total * Double(ranges.count + 1) / Double(count) {
                ranges.append(start..<(i + 1))
                start = i + 1
            }
        }
        while ranges.count < count - 1 { ranges.append(start..<start) }
        ranges.append(start..<durations.count)
        return ranges
    }

    /// Each track's role in the slice owning `owned`. `reach`: the longest query, in seconds.
    public static func roles(durations: [Double], owned: Range<Int>, reach: Double) -> [Catalog.SliceRole] {
        let ghosts = ghostTracks(durations: durations, owned: owned, reach: reach)
        return durations.indices.map { owned.contains($0) ? .owned : ghosts.contains($0) ? .ghost : .laidOut }
    }

    /// Stage one over fingerprints in memory: how often the slice's own tracks post each key.
    public static func keyCounts(algorithm: AnyAlgorithm, prints: [AnyFingerprint], owned: Range<Int>) -> KeyCounts? {
        let counter = KeyCounter(algorithm: algorithm)
        for print in prints[owned] { counter.add(print) }
        return counter.counts
    }

    /// Stage two over fingerprints in memory: the slice owning `owned`.
    public static func slice(algorithm: AnyAlgorithm, prints: [AnyFingerprint], names: [String], checksums: [String]? = nil,
                             owned: Range<Int>, reach: Double, whole: KeyCounts?) -> Catalog {
        let roles = roles(durations: prints.map(\.duration), owned: owned, reach: reach)
        let catalog = Catalog(slicing: algorithm, whole: whole)
        for (i, print) in prints.enumerated() { catalog.add(print, name: names[i], checksum: checksums?[i] ?? "", role: roles[i]) }
        return catalog
    }

    /// The tracks before `owned` covering `ghostBefore` seconds, and after it covering `reach` + that.
    static func ghostTracks(durations: [Double], owned: Range<Int>, reach: Double) -> Set<Int> {
        var ghosts = Set<Int>()
        var i = owned.lowerBound - 1, covered = 0.0
        while i >= 0 && covered < ghostBefore { ghosts.insert(i); covered += durations[i]; i -= 1 }
        i = owned.upperBound
        covered = 0
        while i < durations.count && covered < reach + ghostBefore { ghosts.insert(i); covered += durations[i]; i += 1 }
        return ghosts
    }

    /// Stage three: the slices' candidates for one query (`Catalog.sliceCandidates`), as the whole
    /// catalog ranks them. An index's: its best `kept` by hits (ties: lower reference), as the whole index
    /// proposes them; brute force's (`kept` nil): all. Then best score first, at most `limit`.
    public static func best<C: SliceCandidate>(_ parts: [[C]], kept: Int?, limit: Int) -> [C] {
        let gathered = parts.joined().sorted { $0.hits != $1.hits ? $0.hits > $1.hits : $0.reference < $1.reference }
        return byScore(kept.map { Array(gathered.prefix($0)) } ?? gathered, limit: limit)
    }

    /// Best score first (ties: lower reference), at most `limit`.
    static func byScore<C: SliceCandidate>(_ candidates: [C], limit: Int) -> [C] {
        Array(candidates.sorted { $0.score != $1.score ? $0.score > $1.score : $0.reference < $1.reference }.prefix(limit))
    }

    /// Stage three with the catalog's threshold: the slices' candidates as the whole catalog's matches.
    /// `catalog`: any one of the slices (they share the names, the algorithm and the verification count).
    public static func merge(_ parts: [[Catalog.VerifiedCandidate]], in catalog: Catalog, limit: Int = 10, applyingThreshold: Bool = true) -> [Match] {
        let kept = best(parts, kept: catalog.isIndexed ? max(limit, catalog.verified) : nil, limit: .max)
        return catalog.ranked(kept, limit: limit, applyingThreshold: applyingThreshold)
            .map { Match(reference: catalog.names[$0.reference], comparison: $0.comparison) }
    }
}

/// What stage three ranks: a reference proposed by one slice, with the index's hits and the verified score.
public protocol SliceCandidate {
    var reference: Int { get }
    var hits: Int { get }
    var score: Double { get }
}

/// Stage one, streaming: the keys a slice's own tracks post, counted as their fingerprints are added
/// (posted, not kept).
public final class KeyCounter {
    private let catalog: Catalog

    public init(algorithm: AnyAlgorithm) { catalog = Catalog(slicing: algorithm, whole: nil) }

    public func add(_ print: AnyFingerprint) { catalog.add(print, name: "", checksum: "", role: .ghost) }

    /// How often each key is posted (nil for brute force, which has no keys).
    public var counts: KeyCounts? {
        catalog.seal()
        return catalog.index.keyCounts
    }
}
