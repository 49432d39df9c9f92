/// A catalog split into slices that answer exactly as the whole, each holding its own tracks' postings
/// and fingerprints (about 1/M of the index):
///
/// 1. `keyCounts`: each slice counts the keys its own tracks post; `KeyCounts.whole` sums them, so each
///    slice skips a common key by its count over the whole catalog, as the whole index does.
/// 2. `slice`: each slice lays out every track on the catalog's axis of positions (4 bytes a track),
///    posts its own tracks and its ghosts (the tracks just before it, and those after it within `reach`
///    seconds: votes near a slice's edges come from them), and verifies its own tracks only.
/// 3. `merge`: each slice's verified candidates (`Catalog.verifiedCandidates`) gathered, the whole
///    index's best by hits kept, then ranked by score: the whole catalog's search, match for match.
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
        ranges.append(start..<durations.count)
        return ranges
    }

    /// Stage one: how often the slice's own tracks post each key.
    public static func keyCounts(algorithm: AnyAlgorithm, prints: [AnyFingerprint], owned: Range<Int>) -> KeyCounts? {
        let catalog = Catalog(algorithm: algorithm)
        for (i, print) in prints.enumerated() { catalog.add(print, name: "\(i)", checksum: "", role: owned.contains(i) ? .owned : .laidOut) }
        catalog.seal()
        return catalog.keyCounts
    }

    /// Stage two: the slice owning `owned`, its lookups skipping keys by `whole` (nil for brute force).
    /// `reach`: the longest query, in seconds.
    public static func slice(algorithm: AnyAlgorithm, prints: [AnyFingerprint], names: [String], checksums: [String]? = nil,
                             owned: Range<Int>, reach: Double, whole: KeyCounts?) -> Catalog {
        let ghosts = ghostTracks(durations: prints.map(\.duration), owned: owned, reach: reach)
        let catalog = Catalog(algorithm: algorithm)
        catalog.owned = owned
        catalog.ghosts = ghosts.count
        catalog.setWholeCounts(whole)
        for (i, print) in prints.enumerated() {
            catalog.add(print, name: names[i], checksum: checksums?[i] ?? "", role: owned.contains(i) ? .owned : ghosts.contains(i) ? .ghost : .laidOut)
        }
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

    /// Stage three: the slices' verified candidates for one query as the whole catalog's matches.
    /// `catalog`: any one of the slices (they share the names, the algorithm and the verification count).
    public static func merge(_ parts: [[Catalog.VerifiedCandidate]], in catalog: Catalog, limit: Int = 10, applyingThreshold: Bool = true) -> [Match] {
        let gathered = parts.joined().sorted { $0.hits != $1.hits ? $0.hits > $1.hits : $0.reference < $1.reference }
        let kept = catalog.isIndexed ? Array(gathered.prefix(max(limit, catalog.verified))) : gathered.sorted { $0.reference < $1.reference }
        return catalog.ranked(kept, limit: limit, applyingThreshold: applyingThreshold)
    }
}

extension Catalog {
    /// How often this catalog's posted tracks post each key (nil for brute force), sealed first.
    var keyCounts: KeyCounts? {
        seal()
        return index.keyCounts
    }

    func setWholeCounts(_ whole: KeyCounts?) { index.withPostings { $0.wholeCounts = whole } }
}
