import AudioIO
import DSP
import Foundation

/// One benchmark query: a window of a catalog track (its ground truth) or of a negative recording.
public struct BenchmarkQuery: Sendable, Codable, Equatable {
    /// "10s-042", "10s-neg-007".
    public var id: String
    public var length: Double
    /// The file, relative to the dataset's audio folder.
    public var file: String
    /// Where the window starts in the file, in seconds: the true offset for a positive query.
    public var start: Double
    public var negative: Bool
}

/// The catalog and the queries of a benchmark, drawn from the run's seed.
struct BenchmarkPlan {
    var tracks: [String]
    var trackDurations: [Double]
    var queries: [BenchmarkQuery]

    /// Draws, for every query length, `queriesPerLength` positions (a track uniformly among those long
    /// enough, then an offset uniformly within it) and `negativesPerLength` from the negative recordings.
    static func draw(spec: BenchmarkSpec, tracks: [String], durations: [Double],
                     negatives: [String], negativeDurations: [Double], seed: UInt64) -> [BenchmarkQuery] {
        var queries: [BenchmarkQuery] = []
        for length in spec.queryLengths {
            let name = String(format: "%gs", length)
            func cut(_ files: [String], _ lengths: [Double], count: Int, negative: Bool) {
                let usable = files.indices.filter { lengths[$0] >= length }
                guard !usable.isEmpty else { return }
                for i in 0..<count {
                    let id = negative ? String(format: "%@-neg-%03d", name, i) : String(format: "%@-%03d", name, i)
                    let random = SeededNoise(seed: derivedSeed(seed, "benchmark", id))
                    let file = usable[min(usable.count - 1, Int(random.unit() * Double(usable.count)))]
                    // Millisecond steps, so the recorded offset is exactly the one cut.
                    let start = ((lengths[file] - length) * random.unit() * 1000).rounded(.down) / 1000
                    queries.append(BenchmarkQuery(id: id, length: length, file: files[file], start: start, negative: negative))
                }
            }
            cut(tracks, durations, count: spec.queriesPerLength, negative: false)
            cut(negatives, negativeDurations, count: spec.negativesPerLength, negative: true)
        }
        return queries
    }
}
