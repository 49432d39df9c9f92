import Foundation

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
}

extension FingerprintIndex {
    public mutating func seal() {}
}

/// No index at all: every reference is a candidate (the thesis algorithms compare with every reference).
public struct BruteForceIndex<Print: Fingerprint>: FingerprintIndex {
    private var count = 0
    public init() {}
    public mutating func add(_ print: Print, reference: Int) { count = max(count, reference + 1) }
    public func candidates(for query: Print, limit: Int) -> [Candidate] {
        (0..<count).map { Candidate(reference: $0, offset: nil, hits: 0) }
    }
    public var byteCount: Int { 0 }
}

/// One answer of a catalog search.
public struct Match: Sendable, Equatable {
    public var reference: String
    public var comparison: Comparison
}

/// References of one algorithm, searchable: add references, then ask for the best matches of a query.
public final class Catalog {
    public let algorithm: AnyAlgorithm
    public private(set) var names: [String] = []
    private var prints: [AnyFingerprint] = []
    private let index: any AnyIndexBox
    private var sealed = false
    /// How many of the index's candidates are verified with `compare` (more: slower, fewer misses
    /// where the index ranks the right reference low).
    public var verified = 5
    /// Seconds of reference kept on either side of the proposed stretch when verifying (more: slower,
    /// tolerates more time stretch between query and reference).
    public var verifyMargin = 1.0

    public init(algorithm: AnyAlgorithm) {
        self.algorithm = algorithm
        index = algorithm.makeIndex()
    }

    public func add(_ fingerprint: AnyFingerprint, name: String) {
        precondition(!sealed, "Catalog.add after the first search")
        index.add(fingerprint.base, reference: prints.count)
        names.append(name)
        prints.append(fingerprint)
    }

    /// Whether the algorithm brings an index of its own (otherwise every search is brute force).
    public var isIndexed: Bool { index.isIndexed }

    private let sealing = NSLock()

    /// Finishes the index; searching does it on first use (once, whichever thread searches first).
    public func seal() {
        sealing.withLock { if !sealed { index.seal(); sealed = true } }
    }

    /// Matches best first, at most `limit`; empty means "no match" (nothing reached the algorithm's
    /// threshold). `applyingThreshold: false` returns the best comparisons whatever their score (for
    /// calibrating a threshold). `useIndex: false` compares with every whole reference (brute force),
    /// for checking the index.
    public func search(_ query: AnyFingerprint, limit: Int = 10, applyingThreshold: Bool = true, useIndex: Bool = true) -> [Match] {
        seal()
        let candidates = useIndex ? index.candidates(for: query.base, limit: max(limit, verified))
            : prints.indices.map { Candidate(reference: $0, offset: nil, hits: 0) }
        let verified: [(reference: Int, comparison: Comparison)] = candidates
            .map { (reference: $0.reference, comparison: verify(query, $0)) }
            .filter { !applyingThreshold || algorithm.isMatch($0.comparison) }
        let ranked = verified.sorted { a, b in
            a.comparison.score != b.comparison.score ? a.comparison.score > b.comparison.score : a.reference < b.reference
        }
        return ranked.prefix(limit).map { Match(reference: names[$0.reference], comparison: $0.comparison) }
    }

    /// The algorithm's comparison with the stretch of the reference around the candidate's offset
    /// (the whole reference when the index does not align or the fingerprint cannot be cut).
    private func verify(_ query: AnyFingerprint, _ candidate: Candidate) -> Comparison {
        let reference = prints[candidate.reference]
        guard let offset = candidate.offset,
              let stretch = algorithm.slice(reference, from: offset - verifyMargin, duration: query.duration + 2 * verifyMargin)
        else { return algorithm.compare(query: query, reference: reference) }
        var comparison = algorithm.compare(query: query, reference: stretch.print)
        comparison.offset += stretch.start
        return comparison
    }

    /// Seconds of reference audio held.
    public var duration: Double { prints.reduce(0) { $0 + $1.duration } }
    /// Bytes held: the fingerprints' payload plus the index.
    public var byteCount: Int { prints.reduce(0) { $0 + $1.byteCount } + index.byteCount }
    /// Bytes of the index alone.
    public var indexByteCount: Int { index.byteCount }
}

/// A type-erased index, made by `AnyAlgorithm.makeIndex()`.
protocol AnyIndexBox: AnyObject {
    func add(_ print: any Fingerprint, reference: Int)
    func seal()
    func candidates(for print: any Fingerprint, limit: Int) -> [Candidate]
    var byteCount: Int { get }
    var isIndexed: Bool { get }
}

final class IndexBox<Index: FingerprintIndex>: AnyIndexBox {
    private var index: Index
    init(_ index: Index) { self.index = index }
    func add(_ print: any Fingerprint, reference: Int) { index.add(print as! Index.Print, reference: reference) }
    func seal() { index.seal() }
    func candidates(for print: any Fingerprint, limit: Int) -> [Candidate] { index.candidates(for: print as! Index.Print, limit: limit) }
    var byteCount: Int { index.byteCount }
    var isIndexed: Bool { !(index is BruteForceIndex<Index.Print>) }
}
