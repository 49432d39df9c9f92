/// Slides the shorter of two sub-fingerprint sequences along the longer, one sub-fingerprint at a time,
/// and keeps the best-scoring position (the first on ties). `shift` > 0: the query starts `shift`
/// sub-fingerprints into the reference; < 0: the reference starts inside the query.
/// Returns nil when either sequence is empty.
func bestAlignment(queryCount: Int, referenceCount: Int,
                   score: (_ queryStart: Int, _ referenceStart: Int, _ length: Int) -> Double) -> (score: Double, shift: Int)? {
    guard queryCount > 0, referenceCount > 0 else { return nil }
    let length = min(queryCount, referenceCount)
    var best: (score: Double, shift: Int)?
    for slide in 0...(max(queryCount, referenceCount) - length) {
        let queryStart = queryCount <= referenceCount ? 0 : slide
        let referenceStart = queryCount <= referenceCount ? slide : 0
        let value = score(queryStart, referenceStart, length)
        if best == nil || value > best!.score { best = (value, referenceStart - queryStart) }
    }
    return best
}
