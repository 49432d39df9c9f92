import Evaluation
import Fingerprinting

/// How alike two recordings of a source are, whatever algorithms a run compares: the chroma baseline's
/// score (mean cosine of 12 pitch-class energies at the best alignment, default profile) of the middle
/// `seconds` of the other recording against the reference. Pitch classes stand for what two renderings
/// of one score share; 1 is the same sound, about 0.5 unrelated music.
public struct PairYardstick: Sendable {
    /// The middle 6 s of a 9 s excerpt leaves ±1.5 s for the two recordings to be out of step (our choice:
    /// longer is steadier, shorter forgives more misalignment).
    public static let seconds = 6.0
    public static let name = "chroma-baseline (default profile): the middle 6 s of the other recording against the reference"

    let algorithm: AnyAlgorithm = AnyAlgorithm(ChromaBaseline())

    func middle(of excerpt: Excerpt, available: Double) -> Excerpt {
        let duration = min(Self.seconds, available)
        return Excerpt(file: excerpt.file, start: excerpt.start + (available - duration) / 2, duration: duration)
    }

    func score(reference: AnyFingerprint, other: AnyFingerprint) -> Double {
        algorithm.compare(query: other, reference: reference).score
    }
}
