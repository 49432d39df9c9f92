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

    /// Slides the shorter fingerprint over the longer in whole sub-fingerprint steps and keeps the best mean
    /// similarity. The offset is positive when the query starts inside the reference.
    static func compare(query: AFAFingerprint, reference: AFAFingerprint) -> Comparison {
        let q = query.subFingerprintCount, r = reference.subFingerprintCount
        guard q > 0, r > 0 else { return Comparison(score: 0, offset: 0, rawFigure: 0) }
        let overlap = min(q, r)
        var best = Comparison(score: -1, offset: 0, rawFigure: 0)
        for shift in 0...(max(q, r) - overlap) {
            var total = 0.0
            for i in 0..<overlap {
                let (hits, possible) = similarity(query.subFingerprint(q <= r ? i : i + shift),
                                                  reference.subFingerprint(q <= r ? i + shift : i))
                total += possible > 0 ? Double(hits) / Double(possible) : 0
            }
            let mean = total / Double(overlap)
            if mean > best.score {
                let offset = Double(q <= r ? shift : -shift) * query.imageDuration
                best = Comparison(score: mean, offset: offset, rawFigure: mean)
            }
        }
        return best
    }
}
