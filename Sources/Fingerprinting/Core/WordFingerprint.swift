/// A fingerprint that is a sequence of 32-bit words, `step` seconds apart (Haitsma-Kalker's
/// sub-fingerprints, Chromaprint's words).
public protocol WordFingerprint: Fingerprint {
    var words: [UInt32] { get set }
    var step: Double { get }
    var duration: Double { get set }
}

extension WordFingerprint {
    /// The words covering [start, start + duration), and the second the first of them starts at.
    public func slice(from start: Double, duration: Double) -> (print: Self, start: Double)? {
        let range = sliceRange(count: words.count, step: step, from: start, duration: duration)
        var cut = self
        cut.words = Array(words[range])
        cut.duration = Double(range.count) * step
        return (cut, Double(range.lowerBound) * step)
    }
}
