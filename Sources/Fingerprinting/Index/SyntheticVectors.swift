import CVectorSearch
import DSP
import Foundation

/// What the synthetic scale test draws vector fingerprints from, to grow a catalog of a vector algorithm
/// past its real tracks: the real segments' mean and covariance, and how alike a segment is to the next.
/// A synthetic track keeps a real track's times; its rows are a Gaussian AR(1) process with that mean,
/// covariance and neighbour correlation (z₀ = e₀, zₜ = ρ zₜ₋₁ + √(1 − ρ²) eₜ with eₜ white, xₜ = μ + L zₜ,
/// L the covariance's Cholesky factor), each scaled to unit length. Distractors drawn to match the real
/// embeddings' statistics are the field's practice for scaling a learned fingerprint's database
/// (arXiv 2509.18620); what they cannot show is real music's near-duplicates.
public struct VectorStatistics: Sendable {
    public let dimension: Int
    let mean: [Float]
    /// The covariance's lower Cholesky factor, row-major.
    let factor: [Float]
    /// ρ: the mean centred inner product of a segment with the next one, over their mean centred square norm.
    public let neighbourCorrelation: Double

    /// The statistics of `prints`' rows (nil: no rows, or rows of different dimensions).
    public init?(_ prints: [VectorFingerprint]) {
        guard let d = prints.first?.dimension, d > 0, prints.allSatisfy({ $0.dimension == d }) else { return nil }
        let rows = prints.reduce(0) { $0 + $1.times.count }
        guard rows > 1 else { return nil }
        var sum = [Double](repeating: 0, count: d)
        for print in prints { for (i, v) in print.values.enumerated() { sum[i % d] += Double(v) } }
        let mean = sum.map { $0 / Double(rows) }
        // The covariance's lower triangle, and the neighbours' centred products.
        var covariance = [Double](repeating: 0, count: d * d), centred = [Double](repeating: 0, count: d), previous = centred
        var together = 0.0, apart = 0.0
        for print in prints {
            for r in print.times.indices {
                for i in 0..<d { centred[i] = Double(print.values[r * d + i]) - mean[i] }
                for i in 0..<d { for j in 0...i { covariance[i * d + j] += centred[i] * centred[j] } }
                if r > 0, print.times[r] == print.times[r - 1] + 1 {
                    for i in 0..<d { together += centred[i] * previous[i]; apart += (centred[i] * centred[i] + previous[i] * previous[i]) / 2 }
                }
                swap(&centred, &previous)
            }
        }
        for i in 0..<d { for j in 0...i { covariance[i * d + j] /= Double(rows - 1) } }
        dimension = d
        self.mean = mean.map(Float.init)
        factor = Self.cholesky(covariance, d).map(Float.init)
        neighbourCorrelation = apart > 0 ? min(0.999, max(0, together / apart)) : 0
    }

    /// The lower Cholesky factor of a symmetric matrix given by its lower triangle, a ridge of a millionth
    /// of its mean variance added so that a rank-deficient covariance still has one.
    static func cholesky(_ a: [Double], _ d: Int) -> [Double] {
        let ridge = 1e-6 * max((0..<d).reduce(0) { $0 + a[$1 * d + $1] } / Double(d), .leastNormalMagnitude)
        var l = [Double](repeating: 0, count: d * d)
        for i in 0..<d {
            for j in 0...i {
                var s = a[i * d + j] + (i == j ? ridge : 0)
                for k in 0..<j { s -= l[i * d + k] * l[j * d + k] }
                l[i * d + j] = i == j ? max(s, 0).squareRoot() : (l[j * d + j] > 0 ? s / l[j * d + j] : 0)
            }
        }
        return l
    }

    /// A synthetic fingerprint with `model`'s times, step and duration, its rows drawn as above, seeded.
    public func synthetic(like model: VectorFingerprint, seed: UInt64) -> VectorFingerprint {
        let d = dimension, n = model.times.count, rho = Float(neighbourCorrelation)
        var z = SeededNoise(seed: seed).gaussian(count: n * d, sigma: 1)
        for r in 1..<max(1, n) {
            // ρ per step of time between the two rows.
            let gap = Int(model.times[r]) - Int(model.times[r - 1]), carried = gap > 0 ? Float(pow(Double(rho), Double(gap))) : 1
            let fresh = (1 - carried * carried).squareRoot()
            for i in 0..<d { z[r * d + i] = carried * z[(r - 1) * d + i] + fresh * z[r * d + i] }
        }
        var rows = [Float](repeating: 0, count: n * d)
        if n > 0 { vs_multiply_transposed(z, factor, &rows, Int32(n), Int32(d), Int32(d)) }
        for r in 0..<n { for i in 0..<d { rows[r * d + i] += mean[i] } }
        return VectorFingerprint(dimension: d, values: VectorFingerprint.normalized(rows, dimension: d), times: model.times,
                                 step: model.step, duration: model.duration)
    }
}

extension AnyFingerprint {
    /// A synthetic vector fingerprint with this one's timing, drawn from `statistics` (nil: this is not a
    /// vector fingerprint of their dimension). It stands for a track that is not in the catalog.
    public func drawingVectors(from statistics: VectorStatistics, seed: UInt64) -> AnyFingerprint? {
        guard let model = base as? VectorFingerprint, model.dimension == statistics.dimension else { return nil }
        return AnyFingerprint(algorithm: algorithm, base: statistics.synthetic(like: model, seed: seed))
    }
}
