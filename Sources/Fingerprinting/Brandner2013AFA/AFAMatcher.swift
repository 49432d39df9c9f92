/// AFA's comparison: sub-fingerprint similarity as hits / possible hits, fingerprint similarity as the
/// best mean over whole-sub-fingerprint offsets (Brandner 2013).
enum AFAMatcher {
    /// Even bit of each 2-bit pair.
    static let pairMask: UInt64 = 0x5555_5555_5555_5555

    /// Over the bit pairs set in `first` (its non-zero signs), the share that are equal in `second`.
    static func similarity(_ first: ArraySlice<UInt64>, _ second: ArraySlice<UInt64>) -> (hits: Int, possible: Int) {
        var hits = 0, possible = 0
        for (a, b) in zip(first, second) {
            let setPairs = (a | (a >> 1)) & pairMask
            let equal = ~(a ^ b)
            let equalPairs = equal & (equal >> 1) & pairMask
            possible += setPairs.nonzeroBitCount
            hits += (equalPairs & setPairs).nonzeroBitCount
        }
        return (hits, possible)
    }

    /// The best mean similarity over whole-sub-fingerprint offsets; the offset is positive when the
    /// query starts inside the reference.
    static func compare(query: AFAFingerprint, reference: AFAFingerprint) -> Comparison {
        let best = bestAlignment(queryCount: query.subFingerprintCount, referenceCount: reference.subFingerprintCount) {
            queryStart, referenceStart, length in
            (0..<length).reduce(0.0) { total, i in
                let (hits, possible) = similarity(query.subFingerprint(queryStart + i), reference.subFingerprint(referenceStart + i))
                return total + (possible > 0 ? Double(hits) / Double(possible) : 0)
            } / Double(length)
        }
        guard let best else { return Comparison(score: 0, offset: 0, rawFigure: 0) }
        return Comparison(score: best.score, offset: Double(best.shift) * query.step, rawFigure: best.score)
    }
}
