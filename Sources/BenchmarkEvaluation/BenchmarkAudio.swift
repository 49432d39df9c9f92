import Evaluation
import Foundation

/// Where `benchmark --keep-audio` writes the audio behind an answer, inside the run's folder: each
/// degraded query (`BenchmarkQuestion.keptAudio`), and the reference excerpts it should have matched and
/// did match (at the working rate, 16-bit WAV). The report page links a player to each file that exists.
public enum BenchmarkAudio {
    public static let folder = "audio"

    /// A catalog track's excerpt: `length` seconds from `start` (clamped to the track by the writer).
    public static func reference(track: Int, start: Double, length: Double) -> String {
        "\(folder)/references/\(track)-\(Int((max(0, start) * 1000).rounded()))-\(Int((length * 1000).rounded())).wav"
    }
}
