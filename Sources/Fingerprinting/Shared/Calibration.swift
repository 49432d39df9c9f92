import Foundation

/// A catalog's "no match" threshold calibrated on negative queries (recordings not in the catalog),
/// per query length, the way the benchmark calibrates: the lowest top score that at most the target
/// share of negatives exceed. Calibrated on one seeded half of the negatives and checked on the other
/// (held out), so the false-positive rate it reports is measured out of sample. Stored in index files.
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

        /// Held-out negatives that score above the threshold: the out-of-sample false positives.
        public var heldOutFalsePositives: Int { heldOutScores.filter { $0 > threshold }.count }
    }

    public var falsePositiveTarget: Double
    public var seed: UInt64
    /// The files negatives were cut from.
    public var negativeFiles: [String]
    public var lengths: [Length]

    public init(falsePositiveTarget: Double, seed: UInt64, negativeFiles: [String], lengths: [Length]) {
        self.falsePositiveTarget = falsePositiveTarget
        self.seed = seed
        self.negativeFiles = negativeFiles
        self.lengths = lengths.sorted { $0.length < $1.length }
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
