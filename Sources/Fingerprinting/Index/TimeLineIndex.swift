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
    /// Keys held at more catalog positions than this are skipped at lookup (as constellation's index) ...
    let commonHashLimit: Int
    /// ... and, if set, a query's limit is lowered until its hits stay within this budget.
    let hitBudget: HitBudget?

    init(matcher: TimeLineMatcher, neighbourhood: Neighbourhood, commonHashLimit: Int, hitBudget: HitBudget? = nil) {
        self.matcher = matcher
        self.neighbourhood = neighbourhood
        self.commonHashLimit = commonHashLimit
        self.hitBudget = hitBudget
        hashes = HashPostings(keyBits: neighbourhood.keyBits, name: neighbourhood.sectionName)
    }

    public mutating func add(_ print: HashFingerprint, reference: Int) {
        let neighbourhood = neighbourhood
        hashes.add(print, reference: reference) { neighbourhood.postedKeys($0, into: &$1) }
    }

    public func candidates(for query: HashFingerprint, limit: Int) -> [Candidate] {
        // Hits in query-time order (the query's hashes are), then grouped by reference with a stable
        // counting sort, so each reference's hits stay in query-time order.
        let postings = hashes.postings
        var looked: [LookedUp] = [], keys: [UInt32] = []
        for (i, (hash, time)) in zip(query.hashes, query.times).enumerated() {
            keys.removeAll(keepingCapacity: true)
            neighbourhood.lookedUpKeys(hash, into: &keys)
            for key in keys {
                let (entries, count) = postings.lookUp(key, limit: commonHashLimit)
                // A key with no entries here matters only to a budget that counts it (a slice's common key).
                if !entries.isEmpty || (hitBudget != nil && count > KeyCounts.floor && count <= commonHashLimit) {
                    looked.append(LookedUp(entries: entries, count: count, id: Int32(i), time: Int32(time)))
                }
            }
        }
        let limit = hitBudget?.limit(counts: looked.map(\.count), commonHashLimit: commonHashLimit) ?? commonHashLimit
        var references: [Int32] = [], found: [TimeHit] = []
        var perReference = [Int](repeating: 0, count: postings.referenceCount + 1)
        for key in looked where key.count <= limit {
            for entry in key.entries {
                let (reference, local) = postings.layout.locate(postings.position(at: entry))
                references.append(Int32(reference))
                found.append(TimeHit(id: key.id, queryTime: key.time, referenceTime: Int32(local)))
                perReference[reference + 1] += 1
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

/// A key a query looked up: its entries (in this slice), how often the whole catalog holds it, and the query hash's number and time.
private struct LookedUp {
    var entries: Range<Int>, count: Int, id: Int32, time: Int32
}

/// At most this many hits per query: a query keeps its rarest keys, lowering its lookup limit until the hits of
/// the keys held more than `KeyCounts.floor` times fit (a key held at most that often is always looked up and
/// not counted, so every catalog slice, which knows only the common keys' counts, finds the same limit). A
/// query's cost then stays bounded as the catalog grows and every key's count with it; a fixed limit instead
/// skips more and more of them (Reports/scale-synthetic).
public struct HitBudget: Sendable, Equatable {
    public var hits: Int

    /// The largest lookup limit up to `commonHashLimit` whose counted keys bring at most `hits` hits
    /// (`counts`: how often the catalog holds each looked-up key; equal counts are kept or skipped together).
    func limit(counts: [Int], commonHashLimit: Int) -> Int {
        let counted = counts.filter { $0 > KeyCounts.floor && $0 <= commonHashLimit }.sorted()
        var total = 0, k = 0
        while k < counted.count {
            let count = counted[k]
            var next = k
            while next < counted.count && counted[next] == count { next += 1 }
            total += count * (next - k)
            if total > hits { return k == 0 ? KeyCounts.floor : counted[k - 1] }
            k = next
        }
        return commonHashLimit
    }
}
