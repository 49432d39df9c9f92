/// How an index of scale-invariant hashes files and finds them: the keys a reference hash is posted
/// under and the keys a query hash looks up (Panako: the hash itself, and its neighbouring time
/// ratios; quads: the cells of a range around the hash, and the query's own cell).
public protocol HashNeighbourhood: Sendable {
    /// Low bits of the keys used.
    var keyBits: Int { get }
    /// The index-file sections' name.
    var sectionName: String { get }
    func postedKeys(_ hash: UInt32, into keys: inout [UInt32])
    func lookedUpKeys(_ hash: UInt32, into keys: inout [UInt32])
}

/// The index of Panako and the quads: each hash points to the catalog frames of its anchor. A query's
/// hashes gather hits per reference; each reference with enough hits gets its line, and the references
/// with the most aligned hashes are the candidates, at the line's offset. Offsets are not voted on, since
/// a speed change spreads them along the line.
public struct TimeLineIndex<Neighbourhood: HashNeighbourhood>: StoredIndex, HashPostingsIndex {
    var hashes: HashPostings
    let matcher: TimeLineMatcher
    let neighbourhood: Neighbourhood
    /// Keys held at more catalog positions than this are skipped at lookup (as constellation's index).
    let commonHashLimit: Int

    init(matcher: TimeLineMatcher, neighbourhood: Neighbourhood, commonHashLimit: Int) {
        self.matcher = matcher
        self.neighbourhood = neighbourhood
        self.commonHashLimit = commonHashLimit
        hashes = HashPostings(keyBits: neighbourhood.keyBits, name: neighbourhood.sectionName)
    }

    public mutating func add(_ print: HashFingerprint, reference: Int) {
        let neighbourhood = neighbourhood
        hashes.add(print, reference: reference) { neighbourhood.postedKeys($0, into: &$1) }
    }

    public func candidates(for query: HashFingerprint, limit: Int) -> [Candidate] {
        // Hits in query-time order (the query's hashes are), then grouped by reference with a stable
        // counting sort, so each reference's hits stay in query-time order.
        var references: [Int32] = [], found: [TimeHit] = []
        let postings = hashes.postings
        var perReference = [Int](repeating: 0, count: postings.referenceCount + 1)
        var keys: [UInt32] = []
        for (i, (hash, time)) in zip(query.hashes, query.times).enumerated() {
            keys.removeAll(keepingCapacity: true)
            neighbourhood.lookedUpKeys(hash, into: &keys)
            for key in keys {
                postings.forEachPosition(of: key, limit: commonHashLimit) { position in
                    let (reference, local) = postings.layout.locate(position)
                    references.append(Int32(reference))
                    found.append(TimeHit(id: Int32(i), queryTime: Int32(time), referenceTime: Int32(local)))
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
        // A reference whose bound cannot outrank the `limit`-th best (fewer, or as many with a higher
        // reference) is not aligned: the candidates are the same, the factor search is skipped. (The bound
        // holds for our line's factors; Panako's two-point line may lie outside them, so it is not pruned.)
        var candidates: [Candidate] = [], scratch = BinScratch()
        for (reference, run) in runs {
            if candidates.count >= limit && run.count <= candidates[limit - 1].hits { break }
            if candidates.count >= limit && matcher.fit == .histogram {
                let last = candidates[limit - 1]
                func couldRank(_ groups: Int) -> Bool {
                    let bound = matcher.alignmentBound(grouped[run], slopeGroups: groups, scratch: &scratch)
                    return bound > last.hits || (bound == last.hits && reference < last.reference)
                }
                // A coarse bound, then a finer one (about a quarter of the factor search's passes).
                guard couldRank(1), couldRank(8) else { continue }
            }
            guard let (line, aligned) = matcher.align(grouped[run]) else { continue }
            candidates.append(Candidate(reference: reference, offset: line.intercept * hashes.step, hits: aligned))
            candidates.sort { $0.hits != $1.hits ? $0.hits > $1.hits : $0.reference < $1.reference }
        }
        return Array(candidates.prefix(limit))
    }
}
