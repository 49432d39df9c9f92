/// The lowest bit-error rate over every alignment of two word sequences (the shorter slid along the
/// longer one word at a time, the first on ties), as a comparison: score 1 - BER, raw figure the BER,
/// offset in seconds (`step` seconds per word). An alignment stops counting once it has as many
/// errors as the best so far, since it can no longer win; the result is that of counting them all.
public func bestBitErrorComparison(query: [UInt32], reference: [UInt32], step: Double) -> Comparison {
    guard !query.isEmpty, !reference.isEmpty else { return Comparison(score: 0, offset: 0, rawFigure: 1) }
    let length = min(query.count, reference.count)
    var best: (errors: Int, shift: Int)?
    query.withUnsafeBufferPointer { q in
        reference.withUnsafeBufferPointer { r in
            for slide in 0...(max(q.count, r.count) - length) {
                let queryStart = q.count <= r.count ? 0 : slide, referenceStart = q.count <= r.count ? slide : 0
                let bound = best?.errors ?? .max
                let a = q.baseAddress! + queryStart, b = r.baseAddress! + referenceStart
                var errors = 0, i = 0
                while i < length && errors < bound {
                    // Blocks of 64 words between checks keep the inner loop vectorised.
                    let end = min(length, i &+ 64)
                    var block = 0
                    for k in i..<end { block &+= (a[k] ^ b[k]).nonzeroBitCount }
                    errors &+= block
                    i = end
                }
                if errors < bound { best = (errors, referenceStart - queryStart) }
            }
        }
    }
    let rate = Double(best!.errors) / Double(32 * length)
    return Comparison(score: 1 - rate, offset: Double(best!.shift) * step, rawFigure: rate)
}
