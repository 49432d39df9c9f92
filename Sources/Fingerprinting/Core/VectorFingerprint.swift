/// Embeddings of a recording's segments (a learned fingerprint's 1 s segments, NAFP's unit), each a unit
/// vector at the time its segment starts, in time order: the sub-fingerprint of the vector algorithms.
public struct VectorFingerprint: Fingerprint, Equatable {
    public var dimension: Int
    /// `times.count` rows of `dimension` floats, each of length 1 (or 0 for a silent segment).
    public var values: [Float]
    /// Each row's start in steps, non-decreasing.
    public var times: [UInt32]
    public var step: Double
    public var duration: Double

    public init(dimension: Int, values: [Float], times: [UInt32], step: Double, duration: Double) {
        precondition(values.count == times.count * dimension, "one row of \(dimension) values per time")
        self.dimension = dimension
        self.values = values
        self.times = times
        self.step = step
        self.duration = duration
    }

    /// Rows scaled to unit length (a zero row stays zero): similarity is then the inner product.
    public static func normalized(_ rows: [Float], dimension: Int) -> [Float] {
        var rows = rows
        for start in stride(from: 0, to: rows.count, by: dimension) {
            var sum: Float = 0
            for i in start..<(start + dimension) { sum += rows[i] * rows[i] }
            guard sum > 0 else { continue }
            let scale = 1 / sum.squareRoot()
            for i in start..<(start + dimension) { rows[i] *= scale }
        }
        return rows
    }

    public var subFingerprintCount: Int { times.count }
    /// A float per value and a 4-byte time per row.
    public var byteCount: Int { values.count * 4 + times.count * 4 }

    func row(_ i: Int) -> ArraySlice<Float> { values[(i * dimension)..<((i + 1) * dimension)] }

    public func slice(from start: Double, duration: Double) -> (print: VectorFingerprint, start: Double)? {
        let frames = sliceRange(count: Int((self.duration / step).rounded(.up)) + 1, step: step, from: start, duration: duration)
        let first = UInt32(frames.lowerBound)
        let kept = indices(of: times, from: first, to: UInt32(frames.upperBound))
        return (VectorFingerprint(dimension: dimension, values: Array(values[(kept.lowerBound * dimension)..<(kept.upperBound * dimension)]),
                                  times: times[kept].map { $0 - first }, step: step, duration: Double(frames.count) * step),
                Double(first) * step)
    }
}

/// NAFP's sequence matching, as a comparison (Chang et al., ICASSP 2021, §3.4): at each offset between
/// query and reference, the query's segments are paired with the reference's at the same time; the
/// score is their mean inner product (a query segment with no partner adds 0), at the best offset.
public enum SequenceMatcher {
    public static func compare(query: VectorFingerprint, reference: VectorFingerprint) -> Comparison {
        guard !query.times.isEmpty, !reference.times.isEmpty, query.dimension == reference.dimension else {
            return Comparison(score: 0, offset: 0, rawFigure: 0)
        }
        // Sums of similarity per offset (reference time - query time), offsets shifted to start at 0.
        let low = Int(reference.times.first!) - Int(query.times.last!), high = Int(reference.times.last!) - Int(query.times.first!)
        var sums = [Float](repeating: 0, count: high - low + 1)
        let d = query.dimension
        query.values.withUnsafeBufferPointer { q in
            reference.values.withUnsafeBufferPointer { r in
                for i in query.times.indices {
                    for j in reference.times.indices {
                        var dot: Float = 0
                        for k in 0..<d { dot += q[i * d + k] * r[j * d + k] }
                        sums[Int(reference.times[j]) - Int(query.times[i]) - low] += dot
                    }
                }
            }
        }
        // The best offset; on a tie the earliest.
        var best = 0
        for o in sums.indices where sums[o] > sums[best] { best = o }
        let mean = Double(sums[best]) / Double(query.times.count)
        return Comparison(score: max(0, min(1, mean)), offset: Double(best + low) * query.step, rawFigure: mean)
    }
}
