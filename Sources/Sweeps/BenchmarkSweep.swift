import AudioIO
import BenchmarkEvaluation
import Evaluation
import Fingerprinting
import Foundation

/// A sweep on the identification benchmark: each level is a condition (or, for an algorithm
/// parameter, a variant) of one benchmark run at one query length; the rate is correct top-1 at each
/// algorithm's threshold calibrated to the spec's false-positive target on the negatives. Breaking
/// points are interpolated between grid levels (each bisection step would be a whole run).
public struct BenchmarkSweep: SweepEngine {
    public var base: BenchmarkConfiguration

    public init(base: BenchmarkConfiguration) { self.base = base }

    public var algorithms: [AnyAlgorithm] { base.algorithms }

    /// A stage's parameter at each level (the benchmark sweeps stages only: noise is a stage there, and a query
    /// length is one run's spec).
    public func sweep(_ axis: SweepAxis, levels: [Double], thresholds: [Double]) throws -> SweepRecord {
        guard case .stage(let stage) = axis else {
            throw ChoiceError("--benchmark", reason: "sweeps a stage's parameter (fpbench sweep stage), not the \(axis.label) of the thesis suite")
        }
        return try run(stage, levels: levels, thresholds: thresholds)
    }

    /// One condition per level of a stage parameter, every algorithm; breaking points at `thresholds` interpolated
    /// between grid levels.
    public func run(_ axis: StageAxis, levels: [Double], thresholds: [Double]) throws -> SweepRecord {
        var configuration = base
        configuration.spec.conditions = try levels.map { level in
            let name = String(format: "%g", level)
            return BenchmarkCondition(id: "\(axis.unit)-\(axis.parameter)-\(name)", title: "\(axis.unit) \(axis.parameter) \(name)",
                                      stages: [try axis.spec(at: level)])
        }
        let results = try Benchmark(configuration).run().results
        let metrics = BenchmarkMetrics(results)
        let points = zip(levels, configuration.spec.conditions).flatMap { level, condition in
            configuration.algorithms.compactMap { algorithm in point(metrics, algorithm: algorithm.identifier, as: algorithm.identifier, level: level, condition: condition.id) }
        }
        var seen = Set<String>()
        let measured = points.map(\.algorithm).filter { seen.insert($0).inserted }
        let breaking = thresholds.isEmpty ? [] : BreakingPoints.all(points, axis: .stage(axis), algorithms: measured, thresholds: thresholds,
                                                                  tolerance: 0, evaluate: nil)
        return record(results, axis: SweepAxis.stage(axis).label, points: points, breaking: breaking, condition: nil)
    }

    /// One variant per value of an algorithm parameter (`constellation.fanOut`), under one condition.
    public func run(_ algorithm: AnyAlgorithm, parameter: String, values: [Double], condition: BenchmarkCondition) throws -> SweepRecord {
        var configuration = base
        configuration.algorithms = try values.map { value in
            try algorithm.variant([(parameter, String(format: "%g", value))], identifier: "\(algorithm.identifier)@\(parameter)=\(String(format: "%g", value))")
        }
        configuration.spec.conditions = [condition]
        let results = try Benchmark(configuration).run().results
        let metrics = BenchmarkMetrics(results)
        let points = zip(values, configuration.algorithms).compactMap { value, variant in
            point(metrics, algorithm: variant.identifier, as: algorithm.identifier, level: value, condition: condition.id)
        }
        return record(results, axis: "\(algorithm.identifier) \(parameter)", points: points, breaking: [], condition: condition.id)
    }

    /// A benchmark sweep's record: its rate is correct top-1 at the calibrated threshold, at the run's one length.
    private func record(_ results: BenchmarkResults, axis: String, points: [SweepPoint], breaking: [BreakingPoint], condition: String?) -> SweepRecord {
        let length = base.spec.queryLengths.first ?? 0
        let rate = "correct top-1 (\(QueryLength(length).spoken) queries, " + (condition.map { "\($0), " } ?? "")
            + String(format: "%.0f %% false positives)", 100 * results.spec.falsePositiveTarget)
        return SweepRecord(tool: base.toolVersion, decoder: DecoderLibrary.policy, seed: results.seed, dataset: results.catalog.dataset, axis: axis,
                           points: points, breakingPoints: breaking, failures: results.failures.count, references: nil, rate: rate,
                           refinement: "interpolation")
    }

    private func point(_ metrics: BenchmarkMetrics, algorithm: String, as name: String, level: Double, condition: String) -> SweepPoint? {
        guard let length = base.spec.queryLengths.first, let m = metrics.condition(BenchmarkCell(algorithm: algorithm, length: length, condition: condition)) else { return nil }
        return SweepPoint(algorithm: name, level: level, identified: m.correctCalibrated.successes, count: m.correctCalibrated.total,
                          meanDiagonal: nil, meanMargin: nil)
    }
}
