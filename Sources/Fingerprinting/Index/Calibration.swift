import Foundation

/// A catalog's "no match" threshold calibrated on negative queries (recordings not in the catalog),
/// per query length, the way the benchmark calibrates: the lowest top score that few enough negatives
/// exceed for the false-positive rate to be at most the target with the stated confidence. Calibrated on
/// the windows of one seeded half of the negative recordings and checked on the other half's (held out),
/// so the false-positive rate it reports is measured on other recordings. Stored in index files.
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

        public init(length: Double, calibrationScores: [Double], heldOutScores: [Double], target: Double, confidence: Double?) {
            self.length = length
            self.calibrationScores = calibrationScores.sorted(by: >)
            self.heldOutScores = heldOutScores.sorted(by: >)
            threshold = Calibration.threshold(self.calibrationScores, target: target, confidence: confidence)
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
    /// How sure the threshold holds the target (`allowedAbove`); nil in an index calibrated before thresholds
    /// carried a confidence (the ⌊target·n⌋ rule).
    public var confidence: Double?
    public var seed: UInt64
    /// The files negatives were cut from.
    public var negativeFiles: [String]
    /// Those of them held out (nil in an index calibrated before calibration was split by recording).
    public var heldOutFiles: [String]?
    /// Each negative file's duration in seconds, in `negativeFiles` order (nil before the split by recording).
    public var negativeSeconds: [Double]?
    public var lengths: [Length]

    public init(falsePositiveTarget: Double, confidence: Double?, seed: UInt64, negativeFiles: [String], lengths: [Length],
                heldOutFiles: [String]? = nil, negativeSeconds: [Double]? = nil) {
        self.falsePositiveTarget = falsePositiveTarget
        self.confidence = confidence
        self.seed = seed
        self.negativeFiles = negativeFiles
        self.heldOutFiles = heldOutFiles
        self.negativeSeconds = negativeSeconds
        self.lengths = lengths.sorted { $0.length < $1.length }
    }

    /// The confidence the benchmark and `index build` calibrate with: the rate is at most the target in nine
    /// calibrations of ten. The ⌊target·n⌋ rule before it was right only on average: 500 windows put the
    /// held-out rate of three algorithms at 1.6-2.2 % for a 1 % target.
    public static let standardConfidence = 0.9

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
        let name = QueryLength(length).spoken, used = windows.filter { $0.count > 0 }
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
            if let tooFew = Self.tooFewToBeSure(l.calibrationScores.count, length: l.length, target: falsePositiveTarget, confidence: confidence) { said.append(tooFew) }
            guard let counts = l.windowsPerFile, let seconds = negativeSeconds, counts.count == negativeFiles.count, seconds.count == negativeFiles.count else { continue }
            said += Self.recordingWarnings(length: l.length, windows: negativeFiles.indices.map { (negativeFiles[$0], seconds[$0], counts[$0]) })
        }
        for (shorter, longer) in zip(lengths, lengths.dropFirst()) where Self.rises(from: shorter.threshold, to: longer.threshold) {
            said.append(String(format: "the threshold rises from %.3f at %@ to %.3f at %@ (a longer query should need no more): too few or too alike negatives?",
                               shorter.threshold, QueryLength(shorter.length).spoken, longer.threshold, QueryLength(longer.length).spoken))
        }
        for l in lengths where l.heldOutScores.count > 0 && Double(l.heldOutFalsePositives) / Double(l.heldOutScores.count) > falsePositiveTarget {
            said.append(String(format: "at %@, %d of %d held-out negatives match (the target is %g %%)%@", QueryLength(l.length).spoken, l.heldOutFalsePositives,
                               l.heldOutScores.count, 100 * falsePositiveTarget, l.heldOutUpper.map { String(format: "; by recording, up to %.1f %%", 100 * $0) } ?? ""))
        }
        return said
    }

    /// How many of `n` calibration scores may lie above the threshold for the false-positive rate to be at most
    /// `target` with probability `confidence`: the largest k with P(Binomial(n, target) ≤ k) ≤ 1 − confidence
    /// (Vovk 2012, "Conditional validity of inductive conformal predictors": training-conditional validity), 0 when
    /// even none is too many for so few scores. nil confidence: ⌊target·n⌋, right on average only.
    public static func allowedAbove(_ n: Int, target: Double, confidence: Double?) -> Int {
        guard let confidence else { return Int((target * Double(n)).rounded(.down)) }
        var cumulative = 0.0, allowed = 0
        for k in 0..<n {
            // The binomial term in logarithms, so thousands of scores cannot underflow it to a wrong 0.
            cumulative += exp(lgamma(Double(n + 1)) - lgamma(Double(k + 1)) - lgamma(Double(n - k + 1))
                              + Double(k) * log(target) + Double(n - k) * log1p(-target))
            guard cumulative <= 1 - confidence else { break }
            allowed = k
        }
        return allowed
    }

    /// The fewest calibration scores with which the target can be held at `confidence` at all: below it, even a
    /// threshold no calibration score exceeds is not sure enough (230 at 1 % and 90 %).
    public static func fewestToBeSure(target: Double, confidence: Double) -> Int {
        let needed = (log(1 - confidence) / log1p(-target)).rounded(.up)
        return needed < Double(Int.max / 2) ? Int(needed) : Int.max / 2  // a vanishing target: more than any run has
    }

    /// The warning for a length calibrated on too few scores to hold the target at its confidence, or nil.
    public static func tooFewToBeSure(_ n: Int, length: Double, target: Double, confidence: Double?) -> String? {
        guard let confidence, n > 0, n < fewestToBeSure(target: target, confidence: confidence) else { return nil }
        return String(format: "%@: %d calibration negatives are too few to hold %g %% false positives with %g %% confidence (%d needed); the threshold is their highest score",
                      QueryLength(length).spoken, n, 100 * target, 100 * confidence, fewestToBeSure(target: target, confidence: confidence))
    }

    /// The lowest threshold t that at most `allowedAbove` scores exceed: the (allowed + 1)-th highest score
    /// (0 without scores).
    public static func threshold(_ scores: [Double], target: Double, confidence: Double?) -> Double {
        let sorted = scores.sorted(by: >)
        let allowed = allowedAbove(sorted.count, target: target, confidence: confidence)
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
        if let confidence, !(confidence > 0 && confidence < 1) { return "its confidence \(confidence) is not between 0 and 1" }
        for l in lengths {
            guard l.length.isFinite, l.length > 0 else { return "a calibrated query length is \(l.length) s" }
            guard (l.calibrationScores + l.heldOutScores + [l.threshold]).allSatisfy({ $0.isFinite && $0 >= 0 && $0 <= 1 }) else {
                return "the \(l.length) s calibration holds a score outside 0...1"
            }
            guard l.threshold == Calibration.threshold(l.calibrationScores, target: falsePositiveTarget, confidence: confidence) else {
                return "the \(l.length) s threshold does not follow from its scores"
            }
        }
        return nil
    }
}
