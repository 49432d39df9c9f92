import Foundation

/// A catalog's "no match" threshold calibrated on negative queries (recordings not in the catalog),
/// per query length, the way the benchmark calibrates: the lowest top score that at most the target
/// share of negatives exceed. Calibrated on the windows of one seeded half of the negative recordings and
/// checked on the other half's (held out), so the false-positive rate it reports is measured on other
/// recordings. Stored in index files.
public struct Calibration: Codable, Sendable, Equatable {
    public struct Length: Codable, Sendable, Equatable {
        /// Query length in seconds.
        public var length: Double
        /// A match must score above this.
        public var threshold: Double
        /// Top scores of the calibration half, highest first (0: no candidate).
        public var calibrationScores: [Double]
        /// Top scores of the held-out half, highest first.
        public var heldOutScores: [Double]

        public init(length: Double, calibrationScores: [Double], heldOutScores: [Double], target: Double) {
            self.length = length
            self.calibrationScores = calibrationScores.sorted(by: >)
            self.heldOutScores = heldOutScores.sorted(by: >)
            threshold = Calibration.threshold(self.calibrationScores, target: target)
        }

        /// The upper end of the held-out false-positive rate's 95 % interval with the recording as the unit
        /// (nil in an index calibrated before calibration was split by recording).
        public var heldOutUpper: Double?

        /// How many windows each negative file gave at this length, in `negativeFiles` order (nil in an
        /// index calibrated before calibration was split by recording).
        public var windowsPerFile: [Int]?

        /// Held-out negatives that score above the threshold: the out-of-sample false positives.
        public var heldOutFalsePositives: Int { heldOutScores.filter { $0 > threshold }.count }
    }

    public var falsePositiveTarget: Double
    public var seed: UInt64
    /// The files negatives were cut from.
    public var negativeFiles: [String]
    /// Those of them held out (nil in an index calibrated before calibration was split by recording).
    public var heldOutFiles: [String]?
    /// Each negative file's duration in seconds, in `negativeFiles` order (nil before the split by recording).
    public var negativeSeconds: [Double]?
    public var lengths: [Length]

    public init(falsePositiveTarget: Double, seed: UInt64, negativeFiles: [String], lengths: [Length],
                heldOutFiles: [String]? = nil, negativeSeconds: [Double]? = nil) {
        self.falsePositiveTarget = falsePositiveTarget
        self.seed = seed
        self.negativeFiles = negativeFiles
        self.heldOutFiles = heldOutFiles
        self.negativeSeconds = negativeSeconds
        self.lengths = lengths.sorted { $0.length < $1.length }
    }

    /// Fewer held-out recordings than this, and the held-out rate speaks for too few kinds of audio.
    public static let fewestHeldOutRecordings = 20
    /// One recording supplying more than this share of a length's negatives dominates its calibration.
    public static let largestRecordingShare = 0.2
    /// A negative recording shorter than this many query lengths gives a window that is nearly all of it.
    public static let barelyLonger = 1.5

    /// A threshold that rises with query length (a longer query should need no more) by more than 10 %,
    /// more than the calibration's own sampling moves it. From 0 it is no sign: at 0 the algorithm gave
    /// almost no negative any candidate at the shorter length.
    public static func rises(from shorter: Double, to longer: Double) -> Bool { shorter > 0 && longer > 1.1 * shorter }

    /// What one length's negatives say against themselves, for the benchmark and for index files alike:
    /// recordings barely longer than the query (named, with their durations), and one recording supplying
    /// more than `largestRecordingShare` of the windows. `windows`: each recording that gave any, its
    /// duration and how many windows it gave.
    public static func recordingWarnings(length: Double, windows: [(file: String, seconds: Double, count: Int)]) -> [String] {
        var said: [String] = []
        let name = String(format: "%g s", length), used = windows.filter { $0.count > 0 }
        let barely = used.filter { $0.seconds < barelyLonger * length }.sorted { $0.file < $1.file }
        if !barely.isEmpty {
            said.append("\(name): \(barely.count) negative recordings are barely longer than the query (under \(barelyLonger)×), so their window is nearly all of them: "
                        + barely.prefix(5).map { String(format: "%@ (%.1f s)", $0.file, $0.seconds) }.joined(separator: ", ") + (barely.count > 5 ? ", …" : ""))
        }
        let total = used.reduce(0) { $0 + $1.count }
        if let most = used.max(by: { ($0.count, $1.file) < ($1.count, $0.file) }), Double(most.count) > largestRecordingShare * Double(total) {
            said.append("\(name): \(most.file) supplies \(most.count) of the \(total) negatives (more than \(Int(100 * largestRecordingShare)) %)")
        }
        return said
    }

    /// Why this calibration should not be trusted, each said at build time and by `index info`.
    public var warnings: [String] {
        var said: [String] = []
        if let held = heldOutFiles?.count, held < Self.fewestHeldOutRecordings {
            said.append("calibrated on \(negativeFiles.count - held) negative recordings and held out on \(held) (fewer than \(Self.fewestHeldOutRecordings)): "
                        + "too few to speak for other audio; give more negative recordings")
        }
        for l in lengths {
            guard let counts = l.windowsPerFile, let seconds = negativeSeconds, counts.count == negativeFiles.count, seconds.count == negativeFiles.count else { continue }
            said += Self.recordingWarnings(length: l.length, windows: negativeFiles.indices.map { (negativeFiles[$0], seconds[$0], counts[$0]) })
        }
        for (shorter, longer) in zip(lengths, lengths.dropFirst()) where Self.rises(from: shorter.threshold, to: longer.threshold) {
            said.append(String(format: "the threshold rises from %.3f at %g s to %.3f at %g s (a longer query should need no more): too few or too alike negatives?",
                               shorter.threshold, shorter.length, longer.threshold, longer.length))
        }
        for l in lengths where l.heldOutScores.count > 0 && Double(l.heldOutFalsePositives) / Double(l.heldOutScores.count) > falsePositiveTarget {
            said.append(String(format: "at %g s, %d of %d held-out negatives match (the target is %g %%)%@", l.length, l.heldOutFalsePositives,
                               l.heldOutScores.count, 100 * falsePositiveTarget, l.heldOutUpper.map { String(format: "; by recording, up to %.1f %%", 100 * $0) } ?? ""))
        }
        return said
    }

    /// The lowest threshold t such that at most ⌊target·n⌋ scores exceed t: the (⌊target·n⌋ + 1)-th
    /// highest score (0 without scores).
    public static func threshold(_ scores: [Double], target: Double) -> Double {
        let sorted = scores.sorted(by: >)
        let allowed = Int((target * Double(sorted.count)).rounded(.down))
        return allowed < sorted.count ? sorted[allowed] : 0
    }

    /// The calibration for a query of `duration` seconds: the longest calibrated length it covers
    /// (a query shorter than every length gets the shortest).
    public func length(for duration: Double) -> Length? {
        lengths.last { $0.length <= duration + 1e-9 } ?? lengths.first
    }

    /// Why a stored calibration cannot be used, or nil.
    var inconsistency: String? {
        guard falsePositiveTarget > 0 && falsePositiveTarget < 1 else { return "its false-positive target \(falsePositiveTarget) is not between 0 and 1" }
        for l in lengths {
            guard l.length.isFinite, l.length > 0 else { return "a calibrated query length is \(l.length) s" }
            guard (l.calibrationScores + l.heldOutScores + [l.threshold]).allSatisfy({ $0.isFinite && $0 >= 0 && $0 <= 1 }) else {
                return "the \(l.length) s calibration holds a score outside 0...1"
            }
            guard l.threshold == Calibration.threshold(l.calibrationScores, target: falsePositiveTarget) else {
                return "the \(l.length) s threshold does not follow from its scores"
            }
        }
        return nil
    }
}
