import BenchmarkEvaluation
import Degradation
import Evaluation
import Fingerprinting
import Foundation
import OutsidePrograms

/// Sub-frame time skew (Ellis, audfprint issue #36): how much an algorithm or system loses when a query
/// starts between two of its analysis frames. For each one, a benchmark whose query starts lie on its own
/// frame grid (`BenchmarkSpec.startGrid` = its hop), each condition then also asked with the query moved
/// by k/steps of a hop (a `skip` stage), k = 0...steps: 0 and a whole hop fall on the grid, the rest between.
public struct SkewSweep {
    /// What is swept: a built-in algorithm (its hop is `offsetResolution`) or an outside system (its file's `frameHopSeconds`).
    public enum Target {
        case algorithm(AnyAlgorithm)
        case system(OutsideSystem)

        public var identifier: String {
            switch self {
            case .algorithm(let a): return a.identifier
            case .system(let s): return s.identifier
            }
        }

        public var hop: Double? {
            switch self {
            case .algorithm(let a): return a.offsetResolution
            case .system(let s): return s.description.frameHopSeconds
            }
        }
    }

    public struct Point: Sendable, Equatable {
        public var target: String
        public var hop: Double
        public var length: Double
        public var condition: String
        /// The skew as a share of the hop (k / steps).
        public var share: Double
        /// Correct top-1 at the target's calibrated threshold.
        public var correct: Rate
    }

    public var base: BenchmarkConfiguration
    public var steps: Int

    public init(base: BenchmarkConfiguration, steps: Int) {
        self.base = base
        self.steps = steps
    }

    /// The conditions of one target's run: each of the base's at every skew.
    func conditions(hop: Double) -> [(condition: BenchmarkCondition, base: String, share: Double)] {
        base.spec.conditions.flatMap { condition in
            (0...steps).map { k in
                var skewed = condition
                let share = Double(k) / Double(steps)
                skewed.id = "\(condition.id)-skew-\(k)of\(steps)"
                skewed.title = "\(condition.title), started \(String(format: "%g", share)) of a hop later"
                skewed.stages = (condition.stages ?? []) + [StageSpec(SkipStage(hop * share))]
                return (skewed, condition.id, share)
            }
        }
    }

    /// One target's run (its benchmark written by `write`, for instance into a folder of its own), and its points.
    public func run(_ target: Target, write: (BenchmarkResults, BenchmarkCosts) throws -> Void) throws -> [Point] {
        guard let hop = target.hop else {
            throw SystemError(system: target.identifier, reason: "no hop to put queries on (a system file gives it as frameHopSeconds)")
        }
        var configuration = base
        let planned = conditions(hop: hop)
        configuration.spec.startGrid = hop
        configuration.spec.conditions = planned.map(\.condition)
        switch target {
        case .algorithm(let a): (configuration.algorithms, configuration.systems) = ([a], [])
        case .system(let s): (configuration.algorithms, configuration.systems) = ([], [s])
        }
        let (results, costs) = try Benchmark(configuration).run()
        try write(results, costs)
        let metrics = BenchmarkMetrics(results)
        return configuration.spec.queryLengths.flatMap { length in
            planned.compactMap { plan in
                metrics.condition(BenchmarkCell(algorithm: target.identifier, length: length, condition: plan.condition.id)).map {
                    Point(target: target.identifier, hop: hop, length: length, condition: plan.base, share: plan.share, correct: $0.correctCalibrated)
                }
            }
        }
    }
}
