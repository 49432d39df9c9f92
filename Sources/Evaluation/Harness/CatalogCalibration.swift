import AudioIO
import Fingerprinting
import Foundation

/// Calibrates a catalog's "no match" threshold as the benchmark does, for `fpbench index build
/// --negatives`: seeded windows of each query length cut from recordings that are not in the catalog,
/// each searched like a query; the recordings are split into a calibration and a held-out half
/// (`NegativeSplit`), so the held-out false positives come from other recordings.
public struct CatalogCalibration {
    public var negatives: [String]
    public var lengths: [Double]
    /// Negative queries per length (half calibrate, half are held out).
    public var perLength: Int
    public var falsePositiveTarget: Double
    /// How sure each threshold holds the target (`Calibration.allowedAbove`).
    public var confidence: Double
    public var seed: UInt64
    public var threads: Int

    public init(negatives: [String], lengths: [Double], perLength: Int, falsePositiveTarget: Double, confidence: Double = Calibration.standardConfidence,
                seed: UInt64, threads: Int) {
        self.negatives = negatives
        self.lengths = lengths
        self.perLength = perLength
        self.falsePositiveTarget = falsePositiveTarget
        self.confidence = confidence
        self.seed = seed
        self.threads = threads
    }

    /// The calibration of `catalog`: every draw fingerprinted as a query and searched (threshold not
    /// applied); a silent window scores 0. A negative file that cannot be read is left out, named with the
    /// reason through `leftOut`, and the calibration goes on with the others.
    public func calibrate(_ catalog: Catalog, progress: ProgressReporter, leftOut: (_ file: String, _ reason: String) -> Void = { _, _ in }) throws -> Calibration {
        var readable: [String] = [], durations: [Double] = []
        for file in negatives {
            do { durations.append(try AudioReader.duration(file)); readable.append(file) } catch { leftOut(file, "\(error)") }
        }
        guard !readable.isEmpty else { throw DatasetError(path: negatives.joined(separator: ", "), reason: "no negative recording can be read") }
        var usable = self
        usable.negatives = readable
        return try usable.calibrateReadable(catalog, durations: durations, progress: progress)
    }

    private func calibrateReadable(_ catalog: Catalog, durations: [Double], progress: ProgressReporter) throws -> Calibration {
        let algorithm = catalog.algorithm
        for length in lengths where !durations.contains(where: { $0 >= length }) {
            throw DatasetError(path: negatives.joined(separator: ", "), reason: "no negative recording is \(QueryLength(length).spoken) long")
        }
        let split = NegativeSplit(durations: durations, seed: seed)
        let all = lengths.flatMap { length in split.windows(length: length, count: perLength).windows.map { (length, $0) } }
        progress.start("calibrating on negatives", total: all.count)
        catalog.seal()
        let scores = parallelMap(all.count, threads: threads) { i -> Result<Double, Error> in
            defer { progress.advance() }
            let (length, window) = all[i]
            return Result {
                do {
                    let print = try algorithm.fingerprint(file: negatives[window.recording], window: TimeWindow(start: window.start, duration: length), role: .query)
                    return try catalog.search(print, limit: 1, applyingThreshold: false).first?.comparison.score ?? 0
                } catch is FingerprintError { return 0 }  // silence, too little audio: nothing to match
            }
        }
        progress.finish()
        let values = try scores.map { try $0.get() }
        var results: [Calibration.Length] = []
        for length in lengths {
            let mine = all.indices.filter { all[$0].0 == length }
            let heldOut = mine.filter { all[$0].1.half == .heldOut }
            var calibrated = Calibration.Length(length: length, calibrationScores: mine.filter { all[$0].1.half == .calibration }.map { values[$0] },
                                                heldOutScores: heldOut.map { values[$0] }, target: falsePositiveTarget, confidence: confidence)
            let byRecording = Dictionary(grouping: heldOut) { all[$0].1.recording }.sorted { $0.key < $1.key }.map { $0.value.map { values[$0] } }
            calibrated.heldOutUpper = ClusteredRate(scoresByRecording: byRecording, above: calibrated.threshold,
                                                    seed: derivedSeed(seed, "held-out", QueryLength(length).number)).high
            calibrated.windowsPerFile = negatives.indices.map { r in mine.filter { all[$0].1.recording == r }.count }
            results.append(calibrated)
        }
        return Calibration(falsePositiveTarget: falsePositiveTarget, confidence: confidence, seed: seed, negativeFiles: negatives, lengths: results,
                           heldOutFiles: split.recordings(in: .heldOut).map { negatives[$0] }, negativeSeconds: durations)
    }
}
