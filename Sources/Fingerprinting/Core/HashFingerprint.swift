/// Hashes with the frame of their anchor event point, in time order: constellation's peak pairs,
/// Panako's triplets.
public struct HashFingerprint: Fingerprint, Equatable {
    public var hashes: [UInt32]
    public var times: [UInt32]
    public var step: Double
    public var duration: Double

    public init(hashes: [UInt32], times: [UInt32], step: Double, duration: Double) {
        self.hashes = hashes
        self.times = times
        self.step = step
        self.duration = duration
    }

    /// From (time << 32 | hash) keys in any order, repeats dropped: sorted by time, then hash.
    public init(keys: [UInt64], step: Double, duration: Double) {
        var keys = keys
        keys.sort()
        var unique = 0
        for key in keys where unique == 0 || key != keys[unique - 1] {
            keys[unique] = key
            unique += 1
        }
        keys.removeLast(keys.count - unique)
        self.init(hashes: keys.map { UInt32(truncatingIfNeeded: $0) }, times: keys.map { UInt32($0 >> 32) }, step: step, duration: duration)
    }

    public var subFingerprintCount: Int { hashes.count }
    /// A hash and an anchor time, stored as 4 + 4 bytes.
    public var byteCount: Int { hashes.count * 8 }

    public func slice(from start: Double, duration: Double) -> (print: HashFingerprint, start: Double)? {
        let frames = sliceRange(count: Int((self.duration / step).rounded(.up)) + 1, step: step, from: start, duration: duration)
        let first = UInt32(frames.lowerBound), end = UInt32(frames.upperBound)
        let kept = indices(of: times, from: first, to: end)
        return (HashFingerprint(hashes: Array(hashes[kept]), times: times[kept].map { $0 - first },
                                         step: step, duration: Double(frames.count) * step),
                Double(first) * step)
    }
}
