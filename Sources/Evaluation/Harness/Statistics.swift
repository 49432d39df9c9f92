import DSP
import Fingerprinting
import Foundation

/// A proportion with its 95 % Wilson score interval.
public struct Rate: Sendable, Codable, Equatable {
    public var successes: Int
    public var total: Int
    public var low: Double
    public var high: Double

    public init(_ successes: Int, of total: Int) {
        self.successes = successes
        self.total = total
        (low, high) = Rate.wilson(successes, total)
    }

    public var value: Double { total > 0 ? Double(successes) / Double(total) : 0 }

    /// Wilson (1927): the interval of p̂ that a z = 1.96 score test does not reject.
    public static func wilson(_ k: Int, _ n: Int, z: Double = 1.959963984540054) -> (Double, Double) {
        guard n > 0 else { return (0, 1) }
        let p = Double(k) / Double(n), n = Double(n), z2 = z * z
        let centre = (p + z2 / (2 * n)) / (1 + z2 / n)
        let half = z / (1 + z2 / n) * (p * (1 - p) / n + z2 / (4 * n * n)).squareRoot()
        return (max(0, centre - half), min(1, centre + half))
    }
}

/// A mean with its 95 % percentile-bootstrap interval: the values resampled with replacement
/// `resamples` times from a seeded generator, so the interval is the same on every rerun.
public struct MeanInterval: Sendable, Equatable {
    public var mean: Double
    public var low: Double
    public var high: Double

    /// 2,000 resamples: the 2.5 and 97.5 percentiles move by well under a point between seeds.
    public init?(_ values: [Double], seed: UInt64, resamples: Int = 2000) {
        guard !values.isEmpty else { return nil }
        mean = values.reduce(0, +) / Double(values.count)
        let random = SeededNoise(seed: seed)
        let means = (0..<resamples).map { _ in
            (0..<values.count).reduce(0.0) { sum, _ in sum + values[min(values.count - 1, Int(random.unit() * Double(values.count)))] }
                / Double(values.count)
        }.sorted()
        low = means[Int(0.025 * Double(resamples - 1))]
        high = means[Int((0.975 * Double(resamples - 1)).rounded(.up))]
    }
}

/// McNemar's exact test on paired outcomes: `b` pairs where only the first method succeeded, `c` where
/// only the second did. The two-sided p-value of "both succeed equally often" (binomial, p = 1/2).
public func mcNemarExactP(_ b: Int, _ c: Int) -> Double {
    let n = b + c
    guard n > 0 else { return 1 }
    // Σ_{i ≤ min(b, c)} C(n, i) / 2^n, in logarithms so large n cannot overflow.
    func logChoose(_ n: Int, _ k: Int) -> Double { lgamma(Double(n + 1)) - lgamma(Double(k + 1)) - lgamma(Double(n - k + 1)) }
    let tail = (0...min(b, c)).reduce(0.0) { $0 + exp(logChoose(n, $1) - Double(n) * log(2)) }
    return min(1, 2 * tail)
}
