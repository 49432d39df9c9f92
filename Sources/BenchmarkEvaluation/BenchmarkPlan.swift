import Fingerprinting
import AudioIO
import DSP
import Evaluation
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
    /// A negative query's half: it calibrates the threshold or measures it, held out (nil for a positive).
    public var half: NegativeSplit.Half? = nil

    /// A negative of the catalog's own negatives, calibration or held out (not the cross-check collection).
    public var calibrationNegative: Bool { negative && half != .crossCheck }
}

/// The catalog and the queries of a benchmark, drawn from the run's seed.
struct BenchmarkPlan {
    var tracks: [String]
    var trackDurations: [Double]
    var queries: [BenchmarkQuery]

    /// Draws, for every query length, `queriesPerLength` positions (a track uniformly among those long
    /// enough, then an offset uniformly within it) and `negativesPerLength` windows of the negative
    /// recordings, split by recording into a calibration and a held-out half (`NegativeSplit`); and
    /// `negativesPerLength / 2` windows of the cross-check recordings, if any (as many as are held out).
    static func draw(spec: BenchmarkSpec, tracks: [String], durations: [Double], negatives: [String], negativeDurations: [Double],
                     crossCheck: [String] = [], crossCheckDurations: [Double] = [], seed: UInt64) -> [BenchmarkQuery] {
        var queries: [BenchmarkQuery] = []
        let split = NegativeSplit(durations: negativeDurations, seed: seed)
        let other = NegativeSplit(durations: crossCheckDurations, seed: derivedSeed(seed, "cross-check"), allIn: .crossCheck)
        for length in spec.queryLengths {
            let name = QueryLength(length).tag
            let usable = tracks.indices.filter { durations[$0] >= length }
            for i in 0..<(usable.isEmpty ? 0 : spec.queriesPerLength) {
                let id = String(format: "%@-%03d", name, i)
                let random = SeededNoise(seed: derivedSeed(seed, "benchmark", id))
                let file = usable[min(usable.count - 1, Int(random.unit() * Double(usable.count)))]
                // Millisecond steps, so the recorded offset is exactly the one cut; or on the spec's grid.
                var start = ((durations[file] - length) * random.unit() * 1000).rounded(.down) / 1000
                if let grid = spec.startGrid { start = (start / grid).rounded(.down) * grid }
                queries.append(BenchmarkQuery(id: id, length: length, file: tracks[file], start: start, negative: false))
            }
            for (i, w) in split.windows(length: length, count: spec.negativesPerLength).windows.enumerated() {
                queries.append(BenchmarkQuery(id: String(format: "%@-neg-%03d", name, i), length: length, file: negatives[w.recording],
                                              start: w.start, negative: true, half: w.half))
            }
            for (i, w) in (crossCheck.isEmpty ? [] : other.windows(length: length, count: spec.negativesPerLength / 2).windows).enumerated() {
                queries.append(BenchmarkQuery(id: String(format: "%@-cross-%03d", name, i), length: length, file: crossCheck[w.recording],
                                              start: w.start, negative: true, half: .crossCheck))
            }
        }
        return queries
    }
}
