import Evaluation
import Foundation

/// A sweep's sweep.json: accuracy at each level for each algorithm and the breaking points, enough for
/// `SweepReport` to write every table and figure again (`fpbench report`).
public struct SweepRecord: Codable {
    /// Written by every sweep since it was added (`ResultsKind`); absent in older files, which keep their seal.
    public var kind: ResultsKind? = .sweep
    public var tool: String
    /// The libraries that decoded the audio, per format (`DecoderLibrary.policy`; absent in sweeps from
    /// before FFmpeg's decoder, when libsndfile decoded everything).
    public var decoder: String?
    public var seed: UInt64
    public var dataset: String
    public var axis: String
    public var points: [SweepPoint]
    public var breakingPoints: [BreakingPoint]
    public var failures: Int
    /// References each query is ranked among: chance is one in this many (nil on the benchmark).
    public var references: Int?
    /// What the rate is: "top-1 accuracy" (the thesis suite) or the benchmark's calibrated correct rate.
    public var rate: String
    /// How breaking points were refined: "bisection" or "interpolation" between grid levels.
    public var refinement: String
    /// For a part of a sharded sweep: which part, and every algorithm of the whole sweep in order.
    public var shard: Shard?
    public var algorithms: [String]?
    /// The whole file's checksum with this field empty (`ShardedResults.sealed()`): an edited or damaged file is refused.
    public var seal: String?

    /// The parts of one sharded sweep (algorithm i in part i mod N) gathered into the whole sweep's record.
    public static func merge(_ parts: [(path: String, results: SweepRecord)]) throws -> SweepRecord {
        _ = try Shard.check(parts.map { ($0.path, $0.results.shard) })
        var merged = parts[0].results
        let order = Dictionary(uniqueKeysWithValues: (merged.algorithms ?? []).enumerated().map { ($0.element, $0.offset) })
        var levels: [Double: Int] = [:]
        for point in parts.flatMap(\.results.points) where levels[point.level] == nil { levels[point.level] = levels.count }
        let points = parts.flatMap(\.results.points)
        merged.points = points.sorted { (levels[$0.level]!, order[$0.algorithm] ?? 0) < (levels[$1.level]!, order[$1.algorithm] ?? 0) }
        merged.breakingPoints = parts.flatMap(\.results.breakingPoints).enumerated()
            .sorted { (order[$0.element.algorithm] ?? 0, $0.offset) < (order[$1.element.algorithm] ?? 0, $1.offset) }.map(\.element)
        merged.failures = parts.reduce(0) { $0 + $1.results.failures }
        merged.shard = nil
        merged.algorithms = nil
        return merged
    }
    public init(tool: String, decoder: String?, seed: UInt64, dataset: String, axis: String, points: [SweepPoint], breakingPoints: [BreakingPoint],
                failures: Int, references: Int?, rate: String = "top-1 accuracy", refinement: String = "bisection") {
        self.tool = tool; self.decoder = decoder; self.seed = seed; self.dataset = dataset; self.axis = axis
        self.points = points; self.breakingPoints = breakingPoints; self.failures = failures; self.references = references
        self.rate = rate; self.refinement = refinement
    }
    package var chance: Double? { references.map { 1 / Double(max(1, $0)) } }
}

extension SweepRecord: ShardedResults {
    public var itemCount: Int { points.count }
    public static let partFields: Set<String> = ["points", "breakingPoints", "failures", "algorithms"]
}
