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
                          offset: Double(offset) * query.frameDuration, rawFigure: Double(aligned))
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

/// The inverted index: hash -> (reference, anchor time). A reference is a candidate when its best
/// offset gathers time-aligned hits; candidates are ranked by that count.
public struct InvertedHashIndex: FingerprintIndex {
    private var table: [UInt32: [(reference: Int32, time: UInt32)]] = [:]
    private var entries = 0
    private var referenceCount = 0

    public init() {}

    public mutating func add(_ print: ConstellationFingerprint, reference: Int) {
        for (hash, time) in zip(print.hashes, print.times) { table[hash, default: []].append((Int32(reference), time)) }
        entries += print.hashes.count
        referenceCount = max(referenceCount, reference + 1)
    }

    public func candidates(for query: ConstellationFingerprint) -> [Int] {
        var perReference: [Int: [UInt32: [Int]]] = [:]
        for hash in Set(query.hashes) {
            for entry in table[hash] ?? [] { perReference[Int(entry.reference), default: [:]][hash, default: []].append(Int(entry.time)) }
        }
        return perReference
            .map { reference, times in (reference, OffsetHistogramMatcher.bestOffset(query: query) { times[$0] ?? [] }.aligned) }
            .sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }
            .map(\.0)
    }

    /// A 4-byte hash key, a 4-byte reference and a 4-byte time per entry.
    public var byteCount: Int { entries * 12 }
}
