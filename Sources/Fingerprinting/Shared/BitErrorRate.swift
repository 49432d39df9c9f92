/// The bit-error rate between two runs of 32-bit words.
func bitErrorRate(_ a: ArraySlice<UInt32>, _ b: ArraySlice<UInt32>) -> Double {
    var errors = 0
    for (x, y) in zip(a, b) { errors += (x ^ y).nonzeroBitCount }
    return Double(errors) / Double(32 * a.count)
}

/// The lowest bit-error rate over every alignment of two word sequences, as a comparison:
/// score 1 - BER, raw figure the BER, offset in seconds (`step` seconds per word).
func bestBitErrorComparison(query: [UInt32], reference: [UInt32], step: Double) -> Comparison {
    let best = bestAlignment(queryCount: query.count, referenceCount: reference.count) { q, r, length in
        -bitErrorRate(query[q..<(q + length)], reference[r..<(r + length)])
    }
    guard let best else { return Comparison(score: 0, offset: 0, rawFigure: 1) }
    return Comparison(score: 1 + best.score, offset: Double(best.shift) * step, rawFigure: -best.score)
}
