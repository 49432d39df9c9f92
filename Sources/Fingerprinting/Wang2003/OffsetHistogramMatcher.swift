/// Wang's matching: every hash the query shares with the reference votes for the time offset between
/// them; the best offset's hits (±1 frame) are the time-aligned matches.
enum OffsetHistogramMatcher {
    static func compare(query: ConstellationFingerprint, reference: ConstellationFingerprint) -> Comparison {
        var referenceTimes: [UInt32: [Int]] = [:]
        for (hash, time) in zip(reference.hashes, reference.times) { referenceTimes[hash, default: []].append(Int(time)) }
        let (aligned, offset) = bestOffset(query: query) { referenceTimes[$0] ?? [] }
        guard aligned > 0, let lastQueryTime = query.times.last else { return Comparison(score: 0, offset: 0, rawFigure: 0) }
        // The reference's hashes over the stretch the query spans, and how many of them the query reproduced.
        var queryTimes: [UInt32: [Int]] = [:]
        for (hash, time) in zip(query.hashes, query.times) { queryTimes[hash, default: []].append(Int(time)) }
        let span = offset...(offset + Int(lastQueryTime))
        var spanned = 0, reproduced = 0
        for (hash, time) in zip(reference.hashes, reference.times) where span.contains(Int(time)) {
            spanned += 1
            if queryTimes[hash]?.contains(where: { abs(Int(time) - $0 - offset) <= 1 }) == true { reproduced += 1 }
        }
        return Comparison(score: spanned > 0 ? Double(reproduced) / Double(spanned) : 0,
                          offset: Double(offset) * query.step, rawFigure: Double(aligned))
    }

    /// The offset (in frames) with the most votes, and how many query hashes have a hit within ±1 frame of it.
    static func bestOffset(query: ConstellationFingerprint, referenceTimes: (UInt32) -> [Int]) -> (aligned: Int, offset: Int) {
        var votes: [Int: Int] = [:]
        var hits: [(queryIndex: Int, offset: Int)] = []
        for (i, (hash, time)) in zip(query.hashes, query.times).enumerated() {
            for referenceTime in referenceTimes(hash) {
                let offset = referenceTime - Int(time)
                votes[offset, default: 0] += 1
                hits.append((i, offset))
            }
        }
        // Most votes over the ±1 window; ties go to the earliest offset.
        func windowVotes(_ o: Int) -> Int { (votes[o - 1] ?? 0) + (votes[o] ?? 0) + (votes[o + 1] ?? 0) }
        guard let best = votes.keys.max(by: { windowVotes($0) != windowVotes($1) ? windowVotes($0) < windowVotes($1) : $0 > $1 }) else {
            return (0, 0)
        }
        let aligned = Set(hits.filter { abs($0.offset - best) <= 1 }.map(\.queryIndex)).count
        return (aligned, best)
    }
}

/// The inverted index: every hash points to the catalog positions (frames) of its anchors. A query's
/// hashes vote for (reference, offset) pairs through it; the references with the most time-aligned
/// votes (±1 frame) are the candidates, at their best offset.
public struct InvertedHashIndex: FingerprintIndex {
    private var postings = Postings(keyBits: 20)
    private var step = 0.0
    /// Hashes held at more catalog positions than this are skipped at lookup: they vote everywhere and
    /// cost most of a query's time (audfprint keeps at most 100 entries per hash). Higher: slower
    /// queries on large catalogs, slightly more aligned hits.
    static let commonHashLimit = 200

    public init() {}

    public mutating func add(_ print: ConstellationFingerprint, reference: Int) {
        precondition(reference == postings.referenceCount, "references are added in order")
        let length = max(Int(print.times.last ?? 0) + 1, Int((print.duration / print.step).rounded(.up)))
        let first = postings.addReference(length: length)
        for (hash, time) in zip(print.hashes, print.times) { postings.append(key: hash, position: first + time) }
        step = print.step
    }

    public mutating func seal() { postings.seal() }

    public func candidates(for query: ConstellationFingerprint, limit: Int) -> [Candidate] {
        var votes = OffsetVotes(tolerance: 1)
        for (hash, time) in zip(query.hashes, query.times) {
            postings.forEachPosition(of: hash, limit: Self.commonHashLimit) { votes.add(globalOffset: Int($0) - Int(time)) }
        }
        return votes.best(limit: limit, minimumVotes: 2, locate: postings.layout.locateOffset).map {
            Candidate(reference: $0.reference, offset: Double($0.offset) * step, hits: $0.votes)
        }
    }

    public var byteCount: Int { postings.byteCount }

    public func save(to writer: inout IndexFile.Writer) { postings.save("hashes", step: step, to: &writer) }
    public mutating func load(from reader: IndexFile.Reader) throws { (postings, step) = try Postings.load(keyBits: 20, "hashes", from: reader) }
}
