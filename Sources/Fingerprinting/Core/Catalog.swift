/// A catalog's index over reference fingerprints: it proposes the references worth comparing with a
/// query; the catalog then ranks them with the algorithm's own `compare`, so index search and brute
/// force agree on order wherever the index proposes the reference.
public protocol FingerprintIndex {
    associatedtype Print: Fingerprint
    mutating func add(_ print: Print, reference: Int)
    /// Candidate references for `query`, most promising first.
    func candidates(for query: Print) -> [Int]
    /// Bytes the index itself holds, beyond the fingerprints.
    var byteCount: Int { get }
}

/// No index at all: every reference is a candidate (the thesis algorithms compare with every reference).
public struct BruteForceIndex<Print: Fingerprint>: FingerprintIndex {
    private var count = 0
    public init() {}
    public mutating func add(_ print: Print, reference: Int) { count = max(count, reference + 1) }
    public func candidates(for query: Print) -> [Int] { Array(0..<count) }
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

    public init(algorithm: AnyAlgorithm) {
        self.algorithm = algorithm
        index = algorithm.makeIndex()
    }

    public func add(_ fingerprint: AnyFingerprint, name: String) {
        index.add(fingerprint.base, reference: prints.count)
        names.append(name)
        prints.append(fingerprint)
    }

    /// Matches best first, at most `limit`; empty means "no match" (nothing reached the algorithm's threshold).
    /// `useIndex: false` compares with every reference (brute force), for checking the index.
    public func search(_ query: AnyFingerprint, limit: Int = 10, useIndex: Bool = true) -> [Match] {
        let candidates = useIndex ? index.candidates(for: query.base) : Array(prints.indices)
        return candidates
            .map { (reference: $0, comparison: algorithm.compare(query: query, reference: prints[$0])) }
            .filter { algorithm.isMatch($0.comparison) }
            .sorted { $0.comparison.score != $1.comparison.score ? $0.comparison.score > $1.comparison.score : $0.reference < $1.reference }
            .prefix(limit)
            .map { Match(reference: names[$0.reference], comparison: $0.comparison) }
    }

    /// Seconds of reference audio held.
    public var duration: Double { prints.reduce(0) { $0 + $1.duration } }
    /// Bytes held: the fingerprints' payload plus the index.
    public var byteCount: Int { prints.reduce(0) { $0 + $1.byteCount } + index.byteCount }
}

/// A type-erased index, made by `AnyAlgorithm.makeIndex()`.
protocol AnyIndexBox: AnyObject {
    func add(_ print: any Fingerprint, reference: Int)
    func candidates(for print: any Fingerprint) -> [Int]
    var byteCount: Int { get }
}

final class IndexBox<Index: FingerprintIndex>: AnyIndexBox {
    private var index: Index
    init(_ index: Index) { self.index = index }
    func add(_ print: any Fingerprint, reference: Int) { index.add(print as! Index.Print, reference: reference) }
    func candidates(for print: any Fingerprint) -> [Int] { index.candidates(for: print as! Index.Print) }
    var byteCount: Int { index.byteCount }
}
