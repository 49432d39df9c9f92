/// Haitsma & Kalker's comparison: the bit-error rate between aligned sub-fingerprints, at the best alignment.
enum BitErrorMatcher {
    static func compare(query: HKFingerprint, reference: HKFingerprint) -> Comparison {
        let best = bestAlignment(queryCount: query.words.count, referenceCount: reference.words.count) {
            queryStart, referenceStart, length in
            -bitErrorRate(query.words[queryStart..<(queryStart + length)], reference.words[referenceStart..<(referenceStart + length)])
        }
        guard let best else { return Comparison(score: 0, offset: 0, rawFigure: 1) }
        let ber = -best.score
        return Comparison(score: 1 - ber, offset: Double(best.shift) * query.frameDuration, rawFigure: ber)
    }

    static func bitErrorRate(_ a: ArraySlice<UInt32>, _ b: ArraySlice<UInt32>) -> Double {
        var errors = 0
        for (x, y) in zip(a, b) { errors += (x ^ y).nonzeroBitCount }
        return Double(errors) / Double(32 * a.count)
    }
}

/// Haitsma & Kalker's lookup table: every 32-bit sub-fingerprint points to the references holding it;
/// a reference becomes a candidate when it shares at least one exact sub-fingerprint with the query.
public struct SubFingerprintLookup: FingerprintIndex {
    private var table: [UInt32: [Int32]] = [:]
    private var entries = 0

    public init() {}

    public mutating func add(_ print: HKFingerprint, reference: Int) {
        for word in Set(print.words) { table[word, default: []].append(Int32(reference)) }
        entries += print.words.count
    }

    /// References ranked by how many of the query's distinct sub-fingerprints they hold.
    public func candidates(for query: HKFingerprint) -> [Int] {
        var votes: [Int: Int] = [:]
        for word in Set(query.words) { for reference in table[word] ?? [] { votes[Int(reference), default: 0] += 1 } }
        return votes.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map(\.key)
    }

    /// A 4-byte key and a 4-byte reference per entry.
    public var byteCount: Int { entries * 8 }
}
