import Evaluation
import Fingerprinting
import Foundation
import OutsidePrograms

/// One of the best answers to a query, as the catalog ranked them (threshold not applied).
public struct BenchmarkMatch: Sendable, Codable, Equatable {
    /// Index into `BenchmarkResults.catalog.tracks`.
    public var track: Int
    public var offset: Double
    public var score: Double
    public var rawFigure: Double
    /// Whether the algorithm's documented threshold calls it a match.
    public var matched: Bool
    /// Seconds of reference per second of query, for algorithms that find it (Panako).
    public var timeFactor: Double? = nil
    /// In a part holding one slice of the catalog (`--catalog-shard`): the index's hits, by which the
    /// merge ranks the slices' candidates as the whole index does; absent in whole results.
    public var candidateHits: Int? = nil
}

/// One algorithm's answer to one query under one condition: its best matches, best first.
public struct BenchmarkAnswer: Sendable, Codable, Equatable {
    public var algorithm: String
    public var query: String
    public var condition: String
    public var top: [BenchmarkMatch]
    /// Where in the track the query's first moment came from, when the condition moved time (a delay,
    /// a speed or tempo change: its time map); absent when it is the query's start.
    public var expectedOffset: Double?
    /// Why there is no answer (the query could not be read or degraded).
    public var failure: String?
    /// Why the answer is "no match" without a search (a silent query: the algorithm refuses it).
    public var note: String?
}

/// Everything a benchmark produced, enough to regenerate every table (`fpbench report`). No timings:
/// the same seed gives the same bytes whatever the thread count (costs are in `costs.json`).
public struct BenchmarkResults: Sendable, Codable, Equatable {
    public struct CatalogInfo: Sendable, Codable, Equatable {
        public var dataset: String
        public var manifestSHA256: String
        public var tracks: [String]
        public var trackSeconds: [Double]
        public var negatives: [String]
        public var negativeSeconds: [Double]
        /// Recordings of another kind, never calibrating (`CatalogSection.crossCheck`; absent: none).
        public var crossCheck: [String]?
        /// Noises and impulse responses the dataset lacks, taken from the project's own set (absent: none).
        public var borrowed: [BorrowedRecording]?
        public var hours: Double { trackSeconds.reduce(0, +) / 3600 }
    }

    public struct AlgorithmInfo: Sendable, Codable, Equatable {
        public var identifier: String
        public var displayName: String
        public var profile: Profile
        /// "index", "brute force", "outside system" or "outside system, no score" (then only its own answers count:
        /// no threshold is calibrated).
        public var search: String
        /// Shorter queries are not supported by the system's own design (nil: every length is); the reason is in `skipped`.
        public var shortestQuery: Double?

        /// Whether queries of `length` are below what it supports.
        public func supports(_ length: Double) -> Bool { shortestQuery.map { length >= $0 } ?? true }

        static let unscoredSystem = "outside system, no score"
        /// Its answers carry scores a threshold can be calibrated on.
        public var isScored: Bool { search != Self.unscoredSystem }
        /// An outside system's row (its scores are its own: a count may rise with query length).
        public var isSystem: Bool { search.hasPrefix("outside system") }
    }

    public var kind = ResultsKind.benchmark
    public var tool: Tool
    public var seed: UInt64
    public var spec: BenchmarkSpec
    /// How each query's degradation seed is derived (the chain's stages are the condition's).
    public var seedRule = "chain seed = first 8 bytes of SHA-256(\"SEED/benchmark/QUERY/CONDITION\")"
    public var catalog: CatalogInfo
    public var algorithms: [AlgorithmInfo]
    public var queries: [BenchmarkQuery]
    public var answers: [BenchmarkAnswer]
    public var skipped: [Problem]
    public var failures: [Problem]
    /// The wrong-offset answers' passages that are one repeated (`RepeatedPassages`); absent: not judged (a
    /// catalog slice, or a file written before the rule: `fpbench report --judge-repeats` judges it).
    public var repeats: [RepeatedPassage]?
    /// Which part of a sharded benchmark this is (absent: the whole benchmark).
    public var shard: Shard?
    /// The whole file's checksum with this field empty (`ShardedResults.sealed()`): an edited or damaged file is refused.
    public var seal: String?
}

extension BenchmarkResults: ResultsFile {
    /// Answers that point at no query or no catalog track (a hand-edited or damaged file).
    public var inconsistency: String? {
        guard tool.name == "fpbench" else { return "written by '\(tool.name)', not fpbench" }
        let ids = Set(queries.map(\.id))
        guard ids.count == queries.count else { return "query ids repeat" }
        if let q = queries.first(where: { $0.negative && $0.half == nil }) {
            return "negative query \(q.id) belongs to no half (written before calibration was split by recording): run the benchmark again"
        }
        for answer in answers {
            guard ids.contains(answer.query) else { return "an answer of \(answer.algorithm) names query '\(answer.query)', which is not listed" }
            if let bad = answer.top.first(where: { !catalog.tracks.indices.contains($0.track) || !($0.score >= 0 && $0.score <= 1) }) {
                return "the answer of \(answer.algorithm) to \(answer.query): track \(bad.track) or score \(bad.score) out of range"
            }
        }
        if catalog.negativeSeconds.count != catalog.negatives.count { return "catalog: \(catalog.negatives.count) negatives but \(catalog.negativeSeconds.count) durations" }
        return catalog.trackSeconds.count == catalog.tracks.count ? nil : "catalog: \(catalog.tracks.count) tracks but \(catalog.trackSeconds.count) durations"
    }
}
extension BenchmarkCosts: ResultsFile {}

/// What the benchmark cost, measured by the tool itself (times vary from run to run).
public struct BenchmarkCosts: Sendable, Codable, Equatable {
    public struct Percentiles: Sendable, Codable, Equatable {
        public var median: Double
        public var p95: Double

        init(_ values: [Double]) {
            let sorted = values.sorted()
            func at(_ q: Double) -> Double { sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int((q * Double(sorted.count - 1)).rounded()))] }
            median = at(0.5)
            p95 = at(0.95)
        }
    }

    public struct AlgorithmCosts: Sendable, Codable, Equatable {
        public var identifier: String
        /// CPU seconds spent fingerprinting the catalog (decoding not included) and the audio it covered.
        public var fingerprintCPUSeconds: Double
        public var catalogSeconds: Double
        public var fingerprintsFromCache: Int
        public var indexBuildSeconds: Double
        public var indexBytes: Int
        public var fingerprintBytes: Int
        /// Query CPU time in milliseconds per query length: fingerprinting the query, and searching the catalog.
        public var queryFingerprintMilliseconds: [String: Percentiles]
        public var searchMilliseconds: [String: Percentiles]
        /// fpcalc's CPU time over ours (decoding + fingerprinting) on the same files, median of the per-file ratios.
        public var speedRatioToPeer: Double?
        /// With `--index FILE`: the file's size and the seconds to map and check it (instead of indexing).
        public var indexFileBytes: Int?
        public var indexLoadSeconds: Double?

        /// Seconds of audio fingerprinted per CPU second (decoding excluded).
        public var audioSecondsPerCPUSecond: Double? {
            fingerprintCPUSeconds > 0 && fingerprintsFromCache == 0 ? catalogSeconds / fingerprintCPUSeconds : nil
        }
        public func mebibytesPerHour(_ bytes: Int) -> Double { catalogSeconds > 0 ? Double(bytes) / 1_048_576 / (catalogSeconds / 3600) : 0 }
    }

    /// One catalog size of the scaling curve, for one algorithm.
    public struct ScalingPoint: Sendable, Codable, Equatable {
        public var algorithm: String
        public var fraction: Double
        public var tracks: Int
        public var hours: Double
        public var correct: Rate
        public var falsePositives: Rate
        public var searchMilliseconds: Percentiles
        public var indexBytes: Int
    }

    public var threads: Int
    public var wallSeconds: Double
    public var decodeCPUSeconds: Double
    public var peakResidentBytes: Int
    public var algorithms: [AlgorithmCosts]
    public var peer: PeerTiming?
    /// Outside systems (`--system`), measured per process.
    public var systems: [SystemCosts]?
    public var scalingLength: Double?
    public var scaling: [ScalingPoint]
    /// Fitted k in search time ∝ hours^k, per algorithm (least squares on the log-log scaling curve).
    public var scalingExponents: [String: Double]
}

extension BenchmarkResults: ShardedResults {
    public var itemCount: Int { answers.count }
    public static let partFields: Set<String> = ["answers", "skipped", "failures", "repeats"]

    /// The parts of one sharded benchmark (each with its file's path, for messages) gathered into the
    /// results the unsharded run writes: answers in query order, problems each once, in shard order.
    public static func merge(_ parts: [(path: String, results: BenchmarkResults)]) throws -> BenchmarkResults {
        let parts = try mergeCatalogShards(parts)
        _ = try Shard.check(parts.map { ($0.path, $0.results.shard) })
        let sorted = parts.sorted { $0.results.shard!.index < $1.results.shard!.index }
        var merged = sorted[0].results
        merged.shard = nil
        let order = Dictionary(uniqueKeysWithValues: merged.queries.enumerated().map { ($0.element.id, $0.offset) })
        // Each part lists its answers in query order; a stable sort by query interleaves them.
        merged.answers = sorted.flatMap(\.results.answers).enumerated()
            .sorted { (order[$0.element.query] ?? 0, $0.offset) < (order[$1.element.query] ?? 0, $1.offset) }.map(\.element)
        merged.skipped = Shard.once(sorted.map(\.results.skipped))
        merged.failures = Shard.once(sorted.map(\.results.failures))
        merged.repeats = RepeatedPassages.merged(parts.map(\.results), into: merged)
        return merged
    }
}
