import AudioIO
import Degradation
import Evaluation
import Fingerprinting
import Foundation
import SuiteEvaluation

/// What a sweep varies.
public enum SweepAxis: Sendable, Equatable {
    /// Test 3's noise at each level: a peak level in dBFS (more is worse) or an SNR in dB (less is worse).
    case noise(kind: NoiseSource, unit: NoiseUnit)
    /// Test 1's query length in seconds (more is better).
    case queryLength
    /// Test 1's crop through one degradation stage at each level of one of its parameters.
    case stage(StageAxis)

    public enum NoiseUnit: String, Sendable, CaseIterable { case dbfs, snr }

    /// How the level is written in tables and on axes.
    public var label: String {
        switch self {
        case .noise(let kind, .dbfs): return "\(kind) noise peak level (dBFS)"
        case .noise(let kind, .snr): return "\(kind) noise SNR (dB)"
        case .queryLength: return "query length (s)"
        case .stage(let axis): return "\(axis.unit) \(axis.parameter)" + (axis.fixed.isEmpty ? "" : " (" + axis.fixed.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + ")")
        }
    }

    /// The level that changes nothing, when harm lies on both sides of it.
    public var neutral: Double? { if case .stage(let axis) = self { return axis.neutral } else { return nil } }

    /// True when a larger level makes recognition harder.
    public var largerIsHarder: Bool {
        switch self {
        case .noise(_, .dbfs): return true
        case .noise(_, .snr), .queryLength: return false
        case .stage(let axis): return axis.largerIsHarder
        }
    }

    public func test(at level: Double) -> TestDefinition {
        let name = String(format: "%g", level)
        switch self {
        case .noise(let kind, let unit):
            return TestDefinition(id: "noise-\(name)", title: "Test 1 + \(kind) noise at \(name) \(unit == .dbfs ? "dBFS" : "dB SNR")",
                                  recipe: AddedNoise(noise: NoiseSpec(kind: kind, level: unit == .dbfs ? .peak(dBFS: level) : .snr(dB: level))))
        case .queryLength:
            return TestDefinition(id: "length-\(name)", title: "Test 1 with \(name) s queries", recipe: Cropping(), queryDuration: level)
        case .stage(let axis):
            // Levels are checked before a sweep runs (`check`); a level between two valid ones is valid.
            return TestDefinition(id: "\(axis.unit)-\(axis.parameter)-\(name)", title: "Test 1 + \(axis.unit) \(axis.parameter) \(name)",
                                  recipe: Degraded(stages: [(try? axis.spec(at: level))].compactMap { $0 }))
        }
    }

    /// Refuses a grid whose ends the axis cannot take, naming the level and the reason.
    public func check(_ levels: [Double]) throws {
        guard case .stage(let axis) = self, let low = levels.min(), let high = levels.max() else { return }
        _ = try axis.spec(at: low)
        _ = try axis.spec(at: high)
    }
}

public enum BreakingPoints {
    /// Finds the crossing of `threshold` on the grid `points` (one algorithm), then bisects between the
    /// bracketing levels with `evaluate` until the interval is narrower than `tolerance`.
    /// Without `evaluate`, the crossing is interpolated linearly between the bracketing grid levels (the
    /// benchmark, where each evaluation is a whole run).
    public static func find(_ points: [SweepPoint], threshold: Double, largerIsHarder: Bool, tolerance: Double,
                            evaluate: ((Double) -> SweepPoint)?) -> BreakingPoint {
        let ordered = points.sorted { largerIsHarder ? $0.level < $1.level : $0.level > $1.level }
        var result = BreakingPoint(algorithm: points.first?.algorithm ?? "", threshold: threshold, lastAbove: nil,
                                   firstBelow: nil, level: nil, tolerance: tolerance, evaluations: [])
        guard let fail = ordered.firstIndex(where: { $0.accuracy < threshold }) else {
            result.lastAbove = ordered.last
            return result
        }
        result.firstBelow = ordered[fail]
        guard fail > 0 else { return result }
        result.lastAbove = ordered[fail - 1]
        var good = ordered[fail - 1].level, bad = ordered[fail].level
        guard let evaluate else {
            let (a, b) = (ordered[fail - 1], ordered[fail])
            result.level = a.level + (b.level - a.level) * (a.accuracy - threshold) / max(1e-12, a.accuracy - b.accuracy)
            result.tolerance = abs(b.level - a.level)
            return result
        }
        while abs(bad - good) > tolerance {
            let middle = (good + bad) / 2
            let point = evaluate(middle)
            result.evaluations.append(point)
            if point.accuracy < threshold { bad = middle } else { good = middle }
        }
        result.level = (good + bad) / 2
        return result
    }
}

/// Runs sweeps through the ordinary runner: one test per level, every algorithm, references through the
/// fingerprint cache.
public struct SweepRunner {
    public var base: RunConfiguration
    public var axis: SweepAxis
    /// When set, crop offsets snap to multiples of this many seconds (the thesis AFA's image grid).
    public var cropGrid: Double?
    /// The dataset's excerpts, decoded once for every level and bisection step.
    private let excerptAudio: ExcerptAudio

    public init(base: RunConfiguration, axis: SweepAxis, cropGrid: Double? = nil) {
        self.base = base
        self.base.searchCatalogs = false
        self.axis = axis
        self.cropGrid = cropGrid
        excerptAudio = ExcerptAudio(dataset: base.dataset)
    }

    func test(at level: Double) -> TestDefinition {
        var test = axis.test(at: level)
        test.cropGrid = cropGrid
        return test
    }

    /// Accuracy, mean diagonal and margin per algorithm and level, and the underlying results.
    public func evaluate(_ levels: [Double], algorithms: [String]? = nil) -> (points: [SweepPoint], results: RunResults) {
        var configuration = base
        configuration.suite = Suite(name: "sweep", tests: levels.map(test))
        if let algorithms { configuration.algorithms = configuration.algorithms.filter { algorithms.contains($0.identifier) } }
        let results = Runner(configuration, excerptAudio: excerptAudio).run()
        let points = zip(levels, configuration.suite.tests).flatMap { level, test in
            configuration.algorithms.compactMap { algorithm -> SweepPoint? in
                guard let m = results.matrix(algorithm: algorithm.identifier, test: test.id) else { return nil }
                // Queries that could not be made or fingerprinted (too short) count as misses.
                let s = m.statistics
                let planned = results.dataset.sources.count * results.draws
                return SweepPoint(algorithm: algorithm.identifier, level: level, identified: s.identified,
                                  count: max(s.count, planned), meanDiagonal: s.meanDiagonal, meanMargin: s.meanMargin)
            }
        }
        return (points, results)
    }

    /// One variant of `algorithm` per value of `parameter`, answering `base`'s suite in one run; each
    /// point named by the algorithm, at the value.
    public static func evaluate(variants algorithm: AnyAlgorithm, parameter: String, values: [Double], base: RunConfiguration) -> (points: [SweepPoint], results: RunResults) {
        var configuration = base
        configuration.searchCatalogs = false
        configuration.algorithms = values.compactMap { value in
            let text = String(format: "%g", value)
            return try? algorithm.variant([(parameter, text)], identifier: "\(algorithm.identifier)@\(parameter)=\(text)")
        }
        let results = Runner(configuration).run()
        let points = zip(values, configuration.algorithms).compactMap { value, variant -> SweepPoint? in
            let matrices = results.matrices.filter { $0.algorithm == variant.identifier }
            guard !matrices.isEmpty else { return nil }
            let stats = matrices.map(\.statistics)
            let diagonals = stats.flatMap(\.diagonals)
            return SweepPoint(algorithm: algorithm.identifier, level: value, identified: stats.reduce(0) { $0 + $1.identified },
                              count: stats.reduce(0) { $0 + $1.count }, meanDiagonal: diagonals.isEmpty ? nil : diagonals.reduce(0, +) / Double(diagonals.count),
                              meanMargin: nil)
        }
        return (points, results)
    }

    /// `evaluate(variants:)` as a sweep's record, on `base`'s one test (named in the axis).
    public static func variants(of algorithm: AnyAlgorithm, parameter: String, values: [Double], base: RunConfiguration, test: String) -> SweepRecord {
        let (points, results) = evaluate(variants: algorithm, parameter: parameter, values: values, base: base)
        return SweepRecord(tool: base.toolVersion, decoder: DecoderLibrary.policy, seed: base.seed, dataset: results.dataset.name,
                           axis: "\(algorithm.identifier) \(parameter) (\(test))", points: points, breakingPoints: [],
                           failures: results.failures.count, references: results.references.count)
    }

    public func breakingPoints(_ points: [SweepPoint], thresholds: [Double], tolerance: Double) -> [BreakingPoint] {
        BreakingPoints.all(points, axis: axis, algorithms: base.algorithms.map(\.identifier), thresholds: thresholds, tolerance: tolerance) { level, algorithm in
            evaluate([level], algorithms: [algorithm]).points[0]
        }
    }
}

extension BreakingPoints {
    /// Every algorithm's breaking point at every threshold; on a two-sided axis, one on each side of
    /// the neutral level, walking away from it.
    public static func all(_ points: [SweepPoint], axis: SweepAxis, algorithms: [String], thresholds: [Double], tolerance: Double,
                           evaluate: ((Double, String) -> SweepPoint)?) -> [BreakingPoint] {
        let sides: [(name: String?, keep: (Double) -> Bool, largerIsHarder: Bool)] = axis.neutral.map { neutral in
            [("below", { $0 <= neutral }, false), ("above", { $0 >= neutral }, true)]
        } ?? [(nil, { _ in true }, axis.largerIsHarder)]
        return algorithms.flatMap { algorithm in
            thresholds.flatMap { threshold in
                sides.compactMap { side -> BreakingPoint? in
                    let mine = points.filter { $0.algorithm == algorithm && side.keep($0.level) }
                    guard mine.count > 1 || side.name == nil else { return nil }
                    var point = find(mine, threshold: threshold, largerIsHarder: side.largerIsHarder, tolerance: tolerance,
                                     evaluate: evaluate.map { evaluate in { evaluate($0, algorithm) } })
                    point.side = side.name
                    return point
                }
            }
        }
    }
}

/// Where a sweep's levels are measured: the thesis suite (`SuiteSweep`, breaking points refined by bisection) or
/// the identification benchmark (`BenchmarkSweep`, interpolated between grid levels). A command builds one and
/// hands it the axis; the record it returns is what `SweepReport` writes.
public protocol SweepEngine {
    /// The algorithms measured.
    var algorithms: [AnyAlgorithm] { get }
    /// `axis` measured at `levels` for every algorithm, with breaking points at `thresholds`, as one record.
    func sweep(_ axis: SweepAxis, levels: [Double], thresholds: [Double]) throws -> SweepRecord
}

/// A sweep of the thesis suite as `fpbench sweep` asks for it: every algorithm of `base`, or the part of them
/// `part` names (algorithm i in part i mod N: each algorithm's levels and bisections are its own, so
/// `fpbench merge` gathers the parts' records into the whole sweep's).
public struct SuiteSweep: SweepEngine {
    public var base: RunConfiguration
    /// Crop on the thesis AFA's image grid (8,192 samples at 5,512 Hz), as the thesis's test 1 did.
    public var imageGrid: Bool
    public var part: Shard?
    /// How narrow bisection makes a breaking point's interval, in the level's unit.
    public var tolerance: Double

    public init(base: RunConfiguration, imageGrid: Bool, part: Shard?, tolerance: Double) {
        self.base = base
        self.imageGrid = imageGrid
        self.part = part
        self.tolerance = tolerance
    }

    /// The algorithms this sweep (or its part) runs.
    public var algorithms: [AnyAlgorithm] {
        guard let part else { return base.algorithms }
        return base.algorithms.indices.filter { $0 % part.count == part.index }.map { base.algorithms[$0] }
    }

    /// A part's record is keyed by what defines the whole sweep (the dataset's manifest, the grid, every
    /// algorithm's profile).
    public func sweep(_ axis: SweepAxis, levels: [Double], thresholds: [Double]) -> SweepRecord {
        var mine = base
        mine.algorithms = algorithms
        let runner = SweepRunner(base: mine, axis: axis, cropGrid: imageGrid ? 8192.0 / 5512 : nil)
        let (points, results) = runner.evaluate(levels)
        var record = SweepRecord(tool: base.toolVersion, decoder: DecoderLibrary.policy, seed: base.seed, dataset: results.dataset.name,
                                 axis: axis.label, points: points,
                                 breakingPoints: runner.breakingPoints(points, thresholds: thresholds, tolerance: tolerance),
                                 failures: results.failures.count, references: results.references.count)
        if let part {
            let all = base.algorithms
            let definition = "\(results.dataset.manifestSHA256)|\(levels)|\(thresholds)|\(tolerance)|\(imageGrid)|\(base.queriesPerSource)|"
                + all.map { "\($0.identifier):r\($0.revision):\($0.profile.key)" }.joined(separator: ",")
            record.algorithms = all.map(\.identifier)
            record = record.keyed(part, definition: definition)
        }
        return record
    }
}
