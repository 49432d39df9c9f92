import AudioIO
import Degradation
import Evaluation
import Fingerprinting
import Foundation

/// Everything a run produced, enough to regenerate every table (`fpbench report`). Contains no
/// timings or thread counts, so the same seed gives the same bytes however the run was scheduled.
public struct RunResults: Sendable, Codable, Equatable {

    public struct DatasetInfo: Sendable, Codable, Equatable {
        public var name: String
        public var manifestSHA256: String
        public var sources: [SourceInfo]
        /// Noises and impulse responses the dataset lacks, taken from the project's own set
        /// (`MissingRecordingPolicy.borrow`; absent: none).
        public var borrowed: [BorrowedRecording]? = nil
    }

    public struct SourceInfo: Sendable, Codable, Equatable {
        public var id: String
        public var name: String
        public var family: String
    }

    public struct AlgorithmInfo: Sendable, Codable, Equatable {
        public var identifier: String
        public var displayName: String
        public var sampleRate: Double
        public var rawFigureName: String
        public var profile: Profile
        /// Haitsma's "fingerprint size": bytes per second of reference audio, over every reference.
        public var bytesPerSecond: Double?
    }

    /// One query of a test: where it came from and everything done to it.
    public struct Query: Sendable, Codable, Equatable {
        public var source: String
        /// Which of the source's queries in this test, from 0; absent when the run made one per source.
        public var draw: Int?
        public var excerpt: Excerpt
        public var seed: UInt64
        public var degradations: [DegradationRecord]
        public var simulated: Bool
    }

    public struct TestRecord: Sendable, Codable, Equatable {
        public var definition: TestDefinition
        public var queries: [Query]
        /// Recordings the test names that the run could not have, run without the stages that use them
        /// (`MissingRecordingPolicy.leaveOut`, or `borrow` without the project's); marked † in every table. Nil: the test ran whole.
        public var stagesLeftOut: [String]? = nil
    }

    /// One algorithm's catalog (references + distractors, its own index and threshold) answering one
    /// test's queries: the top match is the right source, another recording, or "no match".
    public struct CatalogResult: Sendable, Codable, Equatable {
        public var algorithm: String
        public var test: String
        public var queries: Int
        public var correct: Int
        public var wrong: Int
        public var noMatch: Int
        public var references: Int
        public var distractors: Int
        public var referenceSeconds: Double
        public var bytes: Int
        /// Each query's answer, in the order of the test's queries.
        public var answers: [CatalogAnswer]?
        /// Catalog memory per hour of reference audio (fingerprints and index), in MiB.
        public var mebibytesPerHour: Double { referenceSeconds > 0 ? Double(bytes) / 1_048_576 / (referenceSeconds / 3600) : 0 }
    }

    /// What a catalog answered one query: its top recording (nil: no match, or the query failed) and
    /// that match's score and offset.
    public struct CatalogAnswer: Sendable, Codable, Equatable {
        public var answer: String?
        public var score: Double?
        public var offset: Double?
    }

    /// How alike a test's other recording is to its source's reference, by a fixed yardstick
    /// (`PairYardstick`), so a reader sees how hard each test-2 pair is whatever algorithms ran.
    public struct PairSimilarity: Sendable, Codable, Equatable {
        public var test: String
        public var source: String
        public var score: Double
    }


    /// Written by every run since it was added (`ResultsKind`); absent in older files, which keep their seal.
    public var kind: ResultsKind? = .suite
    public var tool: Tool
    public var seed: UInt64
    /// Queries per source and test; absent when 1 (the thesis).
    public var queriesPerSource: Int?
    public var dataset: DatasetInfo
    public var algorithms: [AlgorithmInfo]
    public var tests: [TestRecord]
    /// The references (columns of every matrix), in order.
    public var references: [String]
    public var matrices: [SimilarityMatrix]
    /// Catalog search with the dataset's distractors (empty when it has none).
    public var catalogs: [CatalogResult]
    /// Test-2 pair difficulty, by `PairYardstick` (absent in runs without such tests).
    public var pairs: [PairSimilarity]?
    /// Queries that could not be made (a source without an alternate recording, ...).
    public var skipped: [Problem]
    /// Items that failed (unreadable file, too-short input, ...), with the reason.
    public var failures: [Problem]
    /// Which part of a sharded run this is (absent: the whole run).
    public var shard: Shard?
    /// The whole file's checksum with this field empty (`ShardedResults.sealed()`): an edited or damaged file is refused.
    public var seal: String?

    /// Queries per source and test.
    public var draws: Int { queriesPerSource ?? 1 }

    /// A short id of what determined the run (tool version, seed, queries per source, dataset manifest and
    /// borrowed recordings, every algorithm's profile, every test's definition): two runs with the same id made the same queries
    /// with the same algorithms.
    public var runID: String {
        var text = "\(tool.name) \(tool.version)\(tool.decoder.map { " (\($0))" } ?? "")|seed \(seed)|draws \(draws)|\(dataset.manifestSHA256)"
        text += (dataset.borrowed ?? []).map { "|borrowed \($0.id) \($0.sha256)" }.joined()
        text += algorithms.map { "|\($0.identifier):\($0.profile.key)" }.joined()
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        text += tests.map { "|" + ((try? encoder.encode($0.definition)).map { String(decoding: $0, as: UTF8.self) } ?? $0.definition.id) }.joined()
        return String(sha256Hex(Data(text.utf8)).prefix(12))
    }

    public func family(of source: String) -> String { dataset.sources.first { $0.id == source }?.family ?? "unknown" }
    public func algorithm(_ id: String) -> AlgorithmInfo? { algorithms.first { $0.identifier == id } }
    public func test(_ id: String) -> TestRecord? { tests.first { $0.definition.id == id } }
    public func matrix(algorithm: String, test: String) -> SimilarityMatrix? {
        matrices.first { $0.algorithm == algorithm && $0.test == test }
    }

    /// The query behind each row of `m` (rows follow the test's queries).
    public func queries(of m: SimilarityMatrix) -> [Query] {
        guard let queries = test(m.test)?.queries, queries.count == m.rows.count else { return [] }
        return queries
    }

    /// `m` with only each source's first query: the thesis's layout, one row per source.
    public func firstQueries(_ m: SimilarityMatrix) -> SimilarityMatrix {
        let queries = queries(of: m)
        guard draws > 1, !queries.isEmpty else { return m }
        return m.selecting(rows: queries.indices.filter { (queries[$0].draw ?? 0) == 0 })
    }

}

extension RunResults: ResultsFile {
    /// Matrices whose shape or scores no run can produce (a hand-edited or damaged file).
    public var inconsistency: String? {
        guard tool.name == "fpbench" else { return "written by '\(tool.name)', not fpbench" }
        for m in matrices {
            let name = "matrix \(m.algorithm)/\(m.test)"
            guard m.scores.count == m.rows.count, m.rawFigures.count == m.rows.count, m.offsets.count == m.rows.count,
                  (m.matched?.count ?? m.rows.count) == m.rows.count else {
                return "\(name): \(m.rows.count) rows named but \(m.scores.count) rows of scores"
            }
            for (r, row) in m.scores.enumerated() {
                guard row.count == m.columns.count, m.rawFigures[r].count == m.columns.count, m.offsets[r].count == m.columns.count else {
                    return "\(name), row \(r + 1): \(row.count) scores for \(m.columns.count) references"
                }
                if let bad = row.compactMap({ $0 }).first(where: { !($0 >= 0 && $0 <= 1) }) {
                    return "\(name), row \(r + 1): score \(bad) is outside 0...1"
                }
            }
        }
        return nil
    }
}

extension RunResults: ShardedResults {
    public var itemCount: Int { tests.count }
    public static let partFields: Set<String> = ["tests", "matrices", "catalogs", "pairs", "skipped", "failures"]

    /// The parts of one sharded suite run (test i in part i mod N) gathered into the results the
    /// unsharded run writes: tests, matrices, catalogs and pair measures in the suite's order.
    public static func merge(_ parts: [(path: String, results: RunResults)]) throws -> RunResults {
        let shard = try Shard.check(parts.map { ($0.path, $0.results.shard) })
        let sorted = parts.sorted { $0.results.shard!.index < $1.results.shard!.index }.map(\.results)
        // The suite's order: test i is the (i / N)-th test of part i mod N.
        let total = sorted.reduce(0) { $0 + $1.tests.count }
        let tests = (0..<total).compactMap { i -> TestRecord? in
            let part = sorted[i % shard.count].tests
            return part.indices.contains(i / shard.count) ? part[i / shard.count] : nil
        }
        guard tests.count == total else { throw DatasetError(path: parts[0].path, reason: "the parts' tests do not interleave as one suite's") }
        let position = Dictionary(uniqueKeysWithValues: tests.enumerated().map { ($0.element.definition.id, $0.offset) })
        let algorithm = Dictionary(uniqueKeysWithValues: sorted[0].algorithms.enumerated().map { ($0.element.identifier, $0.offset) })
        var merged = sorted[0]
        merged.shard = nil
        merged.tests = tests
        merged.matrices = sorted.flatMap(\.matrices).sorted { (algorithm[$0.algorithm] ?? 0, position[$0.test] ?? 0) < (algorithm[$1.algorithm] ?? 0, position[$1.test] ?? 0) }
        merged.catalogs = sorted.flatMap(\.catalogs).sorted { (algorithm[$0.algorithm] ?? 0, position[$0.test] ?? 0) < (algorithm[$1.algorithm] ?? 0, position[$1.test] ?? 0) }
        let pairs = sorted.compactMap(\.pairs).flatMap { $0 }.enumerated().sorted { (position[$0.element.test] ?? 0, $0.offset) < (position[$1.element.test] ?? 0, $1.offset) }.map(\.element)
        merged.pairs = sorted.contains { $0.pairs != nil } ? pairs : nil
        func ordered(_ problems: [Problem]) -> [Problem] {
            problems.enumerated().sorted { (position[$0.element.test ?? ""] ?? -1, $0.offset) < (position[$1.element.test ?? ""] ?? -1, $1.offset) }.map(\.element)
        }
        merged.skipped = ordered(Shard.once(sorted.map(\.skipped)))
        merged.failures = ordered(Shard.once(sorted.map(\.failures)))
        return merged
    }
}
