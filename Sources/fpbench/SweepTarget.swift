import ArgumentParser
import AudioIO
import BenchmarkEvaluation
import Evaluation
import Fingerprinting
import Foundation
import Reporting
import SuiteEvaluation
import Sweeps

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
    }
}
