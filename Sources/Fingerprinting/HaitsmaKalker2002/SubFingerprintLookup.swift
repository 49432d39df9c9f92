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
