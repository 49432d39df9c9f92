import ArgumentParser
import BenchmarkEvaluation
import Evaluation
import Foundation

/// What the commands that run whole benchmarks (benchmark, sweep operating, sweep skew) choose alike.
enum BenchmarkChoice {
    /// `base` at these lengths (all when empty) and conditions (ids, kept in the spec's order; all when empty),
    /// with counts when given.
    static func spec(_ base: BenchmarkSpec = BenchmarkSpec(), lengths: [Double], conditions: [String], queries: Int?, negatives: Int?) throws -> BenchmarkSpec {
        var spec = base
        if !lengths.isEmpty { spec.queryLengths = lengths }
        if let queries { spec.queriesPerLength = queries }
        if let negatives { spec.negativesPerLength = negatives }
        let known = spec.conditions.map(\.id)
        if let unknown = conditions.first(where: { !known.contains($0) }) {
            throw ValidationError("unknown condition '\(unknown)'; known: \(known.joined(separator: ", "))")
        }
        if !conditions.isEmpty { spec.conditions = spec.conditions.filter { conditions.contains($0.id) } }
        try validated { try spec.validate(path: "options") }
        return spec
    }

    /// Where outside systems keep their indexes: as given, else systems/ beside the fingerprint cache (the
    /// output folder's with --no-cache).
    static func systemState(_ given: String?, options: RunOptions, out folder: URL) -> URL {
        given.map { URL(fileURLWithPath: $0) } ?? (options.cacheFolder?.deletingLastPathComponent() ?? folder).appendingPathComponent("systems")
    }
}

/// The counts and the systems' state folder of whole benchmarks (benchmark, sweep operating, sweep skew).
struct BenchmarkCounts: ParsableArguments {
    @Option(help: "Positions per query length, each degraded under every condition (default \(BenchmarkSpec().queriesPerLength)).") var queries: Int?
    @Option(help: "Negative queries per query length (default \(BenchmarkSpec().negativesPerLength)): those cut from one half of the negative recordings calibrate each algorithm's threshold, those of the other half measure its false positives, held out.") var negatives: Int?
    @Option(help: "Where outside systems keep their indexes (default: systems/ beside the fingerprint cache, .fpbench-cache/systems; OUT/systems with --no-cache).")
    var systemState: String?

    func spec(lengths: [Double], conditions: [String]) throws -> BenchmarkSpec {
        try BenchmarkChoice.spec(lengths: lengths, conditions: conditions, queries: queries, negatives: negatives)
    }
}
