/// A reference an index proposes for a query, with the index's own evidence.
public struct Candidate: Sendable, Equatable {
    public var reference: Int
    /// Where the query would start in the reference, in seconds; nil when the index does not align
    /// (brute force: the whole reference is compared).
    public var offset: Double?
    /// The index's evidence: time-aligned hits for the best offset (0 for brute force).
    public var hits: Int

    public init(reference: Int, offset: Double?, hits: Int) {
        self.reference = reference
        self.offset = offset
        self.hits = hits
    }
}

/// A catalog's index over reference fingerprints: it proposes the few references worth verifying,
/// scored and aligned, so a query's cost follows the index's hits, not the catalog's size. The catalog
/// then verifies each with the algorithm's own `compare` on the stretch of the reference around the
/// proposed offset, so index search and brute force agree wherever the index proposes the reference.
public protocol FingerprintIndex {
    associatedtype Print: Fingerprint
    /// References are added in order 0, 1, 2, ...
    mutating func add(_ print: Print, reference: Int)
    /// Called once after the last `add`, before the first search (sorting, compacting).
    mutating func seal()
    /// At most `limit` candidates for `query`, best first.
    func candidates(for query: Print, limit: Int) -> [Candidate]
    /// Bytes the index itself holds, beyond the fingerprints.
    var byteCount: Int { get }
    /// False for brute force (every reference a candidate).
    var isIndexed: Bool { get }
}

extension FingerprintIndex {
    public mutating func seal() {}
    /// An index proposes candidates (a brute-force catalog is skipped above the benchmark's hour limit).
    public var isIndexed: Bool { true }
}

/// No index at all: every reference is a candidate (the thesis algorithms compare with every reference).
public struct BruteForceIndex<Print: Fingerprint>: FingerprintIndex {
    var count = 0
    public init() {}
    public var isIndexed: Bool { false }
    public mutating func add(_ print: Print, reference: Int) { count = max(count, reference + 1) }
    public func candidates(for query: Print, limit: Int) -> [Candidate] {
        (0..<count).map { Candidate(reference: $0, offset: nil, hits: 0) }
    }
    public var byteCount: Int { 0 }
}
