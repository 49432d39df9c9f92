import Foundation

/// What a sweep varies.
public enum SweepAxis: Sendable, Equatable {
    /// Test 3's noise at each level: a peak level in dBFS (more is worse) or an SNR in dB (less is worse).
    case noise(kind: NoiseSource, unit: NoiseUnit)
    /// Test 1's query length in seconds (more is better).
    case queryLength

    public enum NoiseUnit: String, Sendable, CaseIterable { case dbfs, snr }

    /// How the level is written in tables and on axes.
    public var label: String {
        switch self {
        case .noise(let kind, .dbfs): return "\(kind) noise peak level (dBFS)"
        case .noise(let kind, .snr): return "\(kind) noise SNR (dB)"
        case .queryLength: return "query length (s)"
        }
    }

    /// True when a larger level makes recognition harder.
    public var largerIsHarder: Bool {
        switch self {
        case .noise(_, .dbfs): return true
        case .noise(_, .snr), .queryLength: return false
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
        }
    }
}

/// One algorithm at one level.
public struct SweepPoint: Sendable, Codable, Equatable {
    public var algorithm: String
    public var level: Double
    public var identified: Int
    public var count: Int
    public var meanDiagonal: Double?
    public var meanMargin: Double?
    public var accuracy: Double { count == 0 ? 0 : Double(identified) / Double(count) }

    public init(algorithm: String, level: Double, identified: Int, count: Int, meanDiagonal: Double?, meanMargin: Double?) {
        self.algorithm = algorithm
        self.level = level
        self.identified = identified
        self.count = count
        self.meanDiagonal = meanDiagonal
        self.meanMargin = meanMargin
    }
}

/// Where an algorithm's top-1 accuracy first falls below a threshold, walking from easy to hard:
/// the grid levels on both sides, and the crossing refined by bisection between them.
public struct BreakingPoint: Sendable, Codable, Equatable {
    public var algorithm: String
    public var threshold: Double
    /// The last grid level (easy side) still at or above the threshold, with its accuracy.
    public var lastAbove: SweepPoint?
    /// The first grid level below it.
    public var firstBelow: SweepPoint?
    /// The refined crossing (nil when the accuracy never crosses on the grid).
    public var level: Double?
    public var tolerance: Double
    /// Every level bisection evaluated, in order.
    public var evaluations: [SweepPoint]
}

public enum BreakingPoints {
    /// Finds the crossing of `threshold` on the grid `points` (one algorithm), then bisects between the
    /// bracketing levels with `evaluate` until the interval is narrower than `tolerance`.
    public static func find(_ points: [SweepPoint], threshold: Double, largerIsHarder: Bool, tolerance: Double,
                            evaluate: (Double) -> SweepPoint) -> BreakingPoint {
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
                let planned = results.dataset.sources.count
                return SweepPoint(algorithm: algorithm.identifier, level: level, identified: s.identified,
                                  count: max(s.count, planned), meanDiagonal: s.meanDiagonal, meanMargin: s.meanMargin)
            }
        }
        return (points, results)
    }

    public func breakingPoints(_ points: [SweepPoint], thresholds: [Double], tolerance: Double) -> [BreakingPoint] {
        base.algorithms.flatMap { algorithm in
            thresholds.map { threshold in
                BreakingPoints.find(points.filter { $0.algorithm == algorithm.identifier }, threshold: threshold,
                                    largerIsHarder: axis.largerIsHarder, tolerance: tolerance) { level in
                    evaluate([level], algorithms: [algorithm.identifier]).points[0]
                }
            }
        }
    }
}
