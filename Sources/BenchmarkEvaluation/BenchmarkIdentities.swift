import Fingerprinting
import Foundation

/// One cell of the benchmark's tables: an algorithm's answers to the queries of one length under one
/// condition. The metrics are grouped by it, and the report page opens the answers behind it.
public struct BenchmarkCell: Hashable, Sendable {
    public var algorithm: String
    public var length: Double
    public var condition: String

    public init(algorithm: String, length: Double, condition: String) {
        (self.algorithm, self.length, self.condition) = (algorithm, length, condition)
    }
}

/// One question the benchmark asks every algorithm: a query under a condition (a negative's is clean).
/// Its degradation chain's seed, its fingerprints' content key and its kept audio follow from it.
public struct BenchmarkQuestion: Hashable, Sendable {
    public var query: String
    public var condition: String

    public init(query: String, condition: String) { (self.query, self.condition) = (query, condition) }

    /// The seed of the question's degradation chain, from the run's seed.
    public func chainSeed(_ runSeed: UInt64) -> UInt64 { derivedSeed(runSeed, "benchmark", query, condition) }
    /// Where the run keeps the query's audio as the algorithms heard it (`--keep-audio`).
    public var keptAudio: String { "\(BenchmarkAudio.folder)/queries/\(query)/\(condition).wav" }
}

extension BenchmarkAnswer {
    public var question: BenchmarkQuestion { BenchmarkQuestion(query: query, condition: condition) }
}

extension ConditionMetrics {
    public var cell: BenchmarkCell { BenchmarkCell(algorithm: algorithm, length: length, condition: condition) }
}
