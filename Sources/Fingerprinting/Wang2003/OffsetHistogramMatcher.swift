/// Wang's matching: every hash the query shares with the reference votes for the time offset between
/// them; the best offset's hits (±1 frame) are the time-aligned matches.
public enum OffsetHistogramMatcher {
    public static func compare(query: HashFingerprint, reference: HashFingerprint) -> Comparison {
        let shared = SharedHashes(query, reference)
        guard let lastQueryTime = query.times.last, let best = bestOffset(shared, lowest: -Int(lastQueryTime),
                                                                          highest: Int(reference.times.last ?? 0)) else {
            return Comparison(score: 0, offset: 0, rawFigure: 0)
        }
        // How many query hashes have a hit within ±1 frame of the best offset.
        var aligned = 0
        shared.forEachGroup { queryTimes, referenceTimes in
            aligned += queryTimes.count { q in referenceTimes.contains { abs($0 - q - best) <= 1 } }
        }
        // The reference's hashes over the stretch the query spans, and how many of them the query reproduced.
        let span = best...(best + Int(lastQueryTime))
        let spanned = reference.times.count { span.contains(Int($0)) }
        var reproduced = 0
        shared.forEachGroup { queryTimes, referenceTimes in
            reproduced += referenceTimes.count { r in span.contains(r) && queryTimes.contains { abs(r - $0 - best) <= 1 } }
        }
        return Comparison(score: spanned > 0 ? Double(reproduced) / Double(spanned) : 0,
                          offset: Double(best) * query.step, rawFigure: Double(aligned))
    }

    /// The offset (reference time - query time, in frames, between `lowest` and `highest`) with the most
    /// votes over its ±1 window, among offsets voted for; ties go to the earliest. Nil without votes.
    static func bestOffset(_ shared: SharedHashes, lowest: Int, highest: Int) -> Int? {
        var votes = [Int32](repeating: 0, count: highest - lowest + 3)
        shared.forEachGroup { queryTimes, referenceTimes in
            for q in queryTimes { for r in referenceTimes { votes[r - q - lowest + 1] += 1 } }
        }
        var best: (votes: Int32, offset: Int)?
        for i in 1..<(votes.count - 1) where votes[i] > 0 {
            let window = votes[i - 1] + votes[i] + votes[i + 1]
            if best == nil || window > best!.votes { best = (window, i - 1 + lowest) }
        }
        return best?.offset
    }
}

/// The hashes two fingerprints share, with the times each holds them at: both fingerprints' (hash,
/// time) pairs sorted by hash and walked side by side.
struct SharedHashes {
    /// hash << 32 | time, sorted, for each side.
    private let query: [UInt64]
    private let reference: [UInt64]

    init(_ query: HashFingerprint, _ reference: HashFingerprint) {
        func keys(_ print: HashFingerprint) -> [UInt64] { radixSorted(zip(print.hashes, print.times).map { UInt64($0) << 32 | UInt64($1) }) }
        self.query = keys(query)
        self.reference = keys(reference)
    }

    /// Calls `body` once per shared hash with the query's and the reference's times of it (ascending).
    func forEachGroup(_ body: (_ queryTimes: Times, _ referenceTimes: Times) -> Void) {
        var q = 0, r = 0
        func group(_ keys: [UInt64], from start: inout Int) -> Times {
            let first = start, hash = keys[start] >> 32
            while start < keys.count && keys[start] >> 32 == hash { start += 1 }
            return Times(keys: keys[first..<start])
        }
        while q < query.count && r < reference.count {
            let a = query[q] >> 32, b = reference[r] >> 32
            if a < b { q += 1 } else if b < a { r += 1 } else { body(group(query, from: &q), group(reference, from: &r)) }
        }
    }

    /// The times of one hash: the low halves of its keys.
    struct Times: Sequence {
        let keys: ArraySlice<UInt64>
        var count: Int { keys.count }
        func makeIterator() -> LazyMapSequence<ArraySlice<UInt64>, Int>.Iterator { keys.lazy.map { Int($0 & 0xFFFF_FFFF) }.makeIterator() }
    }
}

/// The inverted index: every hash points to the catalog positions (frames) of its anchors. A query's
/// hashes vote for (reference, offset) pairs through it; the references with the most time-aligned
/// votes (±1 frame) are the candidates, at their best offset.
public struct InvertedHashIndex: StoredIndex, HashPostingsIndex {
    var hashes: HashPostings
    /// Hashes held at more catalog positions than this are skipped at lookup (`Constellation.Parameters`).
    let commonHashLimit: Int

    public init(keyBits: Int, commonHashLimit: Int) {
        hashes = HashPostings(keyBits: keyBits, name: "hashes")
        self.commonHashLimit = commonHashLimit
    }

    public mutating func add(_ print: HashFingerprint, reference: Int) { hashes.add(print, reference: reference) }

    public func candidates(for query: HashFingerprint, limit: Int) -> [Candidate] {
        var votes = OffsetVotes(tolerance: 1)
        for (hash, time) in zip(query.hashes, query.times) {
            hashes.postings.forEachPosition(of: hash, limit: commonHashLimit) { votes.add(globalOffset: Int($0) - Int(time)) }
        }
        return votes.best(limit: limit, minimumVotes: 2, locate: hashes.postings.layout.locateOffset).map {
            Candidate(reference: $0.reference, offset: Double($0.offset) * hashes.step, hits: $0.votes)
        }
    }
}
