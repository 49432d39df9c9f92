import Fingerprinting
import AudioIO
import DSP
import Foundation

/// Negative queries that are out of sample in the sense a reviewer means: each negative recording belongs
/// to the calibration half or to the held-out half, never to both, so the false positives counted on the
/// held-out half come from other music than the threshold saw. Within a recording, windows of one length
/// never overlap, so a short file cannot supply many copies of the same audio. Used by the benchmark and
/// by `fpbench index build --negatives` alike.
public struct NegativeSplit: Sendable, Equatable {
    public enum Half: String, Sendable, Codable, CaseIterable {
        case calibration
        case heldOut = "held-out"
        /// Another kind of audio than the negatives (`CatalogSection.crossCheck`): never calibrates.
        case crossCheck = "cross-check"
    }

    /// One negative query: which recording, from where, and the half it belongs to.
    public struct Window: Sendable, Equatable {
        public var recording: Int
        public var start: Double
        public var half: Half
    }

    /// Each recording's half, in the order given.
    public let halves: [Half]
    public let durations: [Double]
    package let seed: UInt64

    /// Every recording in one half: the cross-check collection, cut into windows the same way.
    public init(durations: [Double], seed: UInt64, allIn half: Half) {
        self.durations = durations
        self.seed = seed
        halves = Array(repeating: half, count: durations.count)
    }

    /// Recordings in a seeded order, each given to the half with less audio so far: the halves hold about
    /// the same duration, and which recording goes where depends only on the seed and the list.
    public init(durations: [Double], seed: UInt64) {
        self.durations = durations
        self.seed = seed
        let order = durations.indices.map { (derivedSeed(seed, "negative-half", "\($0)"), $0) }.sorted { $0 < $1 }.map(\.1)
        var halves = [Half](repeating: .calibration, count: durations.count), total: [Half: Double] = [:]
        for r in order {
            let half: Half = total[.calibration, default: 0] <= total[.heldOut, default: 0] ? .calibration : .heldOut
            halves[r] = half
            total[half, default: 0] += durations[r]
        }
        self.halves = halves
    }

    /// The recordings of one half.
    public func recordings(in half: Half) -> [Int] { halves.indices.filter { halves[$0] == half } }

    /// `count` windows of `length` seconds, half from each half (the first `count / 2` rounded up calibrate);
    /// all `count` from the one half of a split made `allIn` it.
    /// Each recording is cut into ⌊duration / length⌋ equal slots and a window lies at a seeded place inside
    /// one slot, so no two windows of a recording overlap; the slots of a half are drawn without replacement,
    /// so a recording gives windows in proportion to its length. A half with fewer slots than asked gives
    /// what it has (`shortfall` says how many are missing).
    public func windows(length: Double, count: Int) -> (windows: [Window], shortfall: Int) {
        var windows: [Window] = [], shortfall = 0
        let quotas = halves.allSatisfy({ $0 == .crossCheck }) && !halves.isEmpty ? [(Half.crossCheck, count)] : [(Half.calibration, (count + 1) / 2), (.heldOut, count / 2)]
        for (half, wanted) in quotas {
            let tag = exactText(length)
            var slots: [(key: UInt64, recording: Int, slot: Int, of: Int)] = []
            for r in recordings(in: half) where durations[r] >= length {
                let n = Int((durations[r] / length).rounded(.down))
                slots += (0..<n).map { (derivedSeed(seed, "negative-slot", tag, "\(r)", "\($0)"), r, $0, n) }
            }
            let chosen = slots.sorted { ($0.key, $0.recording, $0.slot) < ($1.key, $1.recording, $1.slot) }.prefix(wanted)
            shortfall += wanted - chosen.count
            for s in chosen {
                let width = durations[s.recording] / Double(s.of)
                let unit = Double(derivedSeed(seed, "negative-start", tag, "\(s.recording)", "\(s.slot)") >> 11) / Double(1 << 53)
                // Millisecond steps, so the recorded start is exactly the one cut.
                let start = ((Double(s.slot) * width + unit * (width - length)) * 1000).rounded(.down) / 1000
                windows.append(Window(recording: s.recording, start: start, half: half))
            }
        }
        return (windows, shortfall)
    }
}

/// A false-positive rate over windows clustered in recordings, with a 95 % interval that treats the
/// recording as the unit: recordings resampled with replacement (a cluster bootstrap, 2,000 seeded
/// resamples), the rate of each resample being its false positives over its windows. Windows of one
/// recording are not independent trials, so a plain binomial interval over windows would be too narrow.
public struct ClusteredRate: Sendable, Codable, Equatable {
    public var successes: Int
    public var total: Int
    public var recordings: Int
    public var low: Double
    public var high: Double
    public var value: Double { total > 0 ? Double(successes) / Double(total) : 0 }

    /// The share of scores above `threshold`, each recording's scores one cluster.
    public init(scoresByRecording: [[Double]], above threshold: Double, seed: UInt64) {
        self.init(scoresByRecording.map { scores in (scores.filter { $0 > threshold }.count, scores.count) }, seed: seed)
    }

    /// `perRecording`: for each recording, (false positives, windows).
    public init(_ perRecording: [(hits: Int, windows: Int)], seed: UInt64, resamples: Int = 2000) {
        let used = perRecording.filter { $0.windows > 0 }
        successes = used.reduce(0) { $0 + $1.hits }
        total = used.reduce(0) { $0 + $1.windows }
        recordings = used.count
        guard !used.isEmpty else { low = 0; high = 0; return }
        let random = SeededNoise(seed: seed)
        let rates = (0..<resamples).map { _ -> Double in
            var hits = 0, windows = 0
            for _ in used.indices {
                let r = used[min(used.count - 1, Int(random.unit() * Double(used.count)))]
                hits += r.hits
                windows += r.windows
            }
            return Double(hits) / Double(windows)
        }.sorted()
        low = rates[Int(0.025 * Double(resamples - 1))]
        high = rates[Int((0.975 * Double(resamples - 1)).rounded(.up))]
    }
}
