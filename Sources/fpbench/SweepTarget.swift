import ArgumentParser
import AudioIO
import BenchmarkEvaluation
import Evaluation
import Fingerprinting
import Foundation
import Reporting
import SuiteEvaluation

extension SweepCommand {
    /// Where a sweep runs: the thesis suite (default) or the identification benchmark.
    struct Target: ParsableArguments {
        @Flag(help: "Sweep on the identification benchmark (default dataset: catalog) instead of the thesis suite.") var benchmark = false
        @Option(help: "With --benchmark: the query length in seconds.") var length = 10.0
        @Option(help: "With --benchmark: positions per level (default \(BenchmarkSpec().queriesPerLength)).") var queries: Int?
        @Option(help: "With --benchmark: negative queries per length, half to calibrate the threshold, half held out (default \(BenchmarkSpec().negativesPerLength), the benchmark's).") var negatives: Int?

        func configuration(_ options: RunOptions, algorithms: [String]) throws -> BenchmarkConfiguration {
            guard BenchmarkSpec.queryLengthRange.contains(length) else { throw ValidationError("--length must be \(BenchmarkSpec.queryLengthRangeText)") }
            var spec = BenchmarkSpec()
            spec.queryLengths = [length]
            if let queries { spec.queriesPerLength = queries }
            if let negatives { spec.negativesPerLength = negatives }
            try validated { try spec.validate(path: "options") }
            return options.benchmarkConfiguration(dataset: try options.loadDataset(default: "catalog"), algorithms: try options.external.resolve(algorithms), spec: spec)
        }

        /// Writes a benchmark sweep's report; breaking points interpolated.
        func write(_ points: [SweepPoint], axis: SweepAxis, thresholds: [Double], results: BenchmarkResults, out: String) throws {
            let breaking = thresholds.isEmpty ? [] : BreakingPoints.all(points, axis: axis, algorithms: SweepReport.orderedUnique(points.map(\.algorithm)),
                                                                      thresholds: thresholds, tolerance: 0, evaluate: nil)
            let folder = URL(fileURLWithPath: out)
            try SweepReport.write(.init(tool: fpbenchVersion, decoder: DecoderLibrary.policy, seed: results.seed, dataset: results.catalog.dataset, axis: axis.label, points: points,
                                        breakingPoints: breaking, failures: results.failures.count, references: nil,
                                        rate: String(format: "correct top-1 (%g s queries, %.0f %% false positives)", length, 100 * results.spec.falsePositiveTarget),
                                        refinement: "interpolation"), to: folder)
            print(folder.appendingPathComponent("sweep.md").path)
        }
    }
}
