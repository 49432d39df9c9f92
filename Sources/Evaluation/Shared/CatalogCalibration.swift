import AudioIO
import Fingerprinting
import Foundation

/// Calibrates a catalog's "no match" threshold as the benchmark does, for `fpbench index build
/// --negatives`: seeded excerpts of each query length cut from recordings that are not in the
/// catalog, each searched like a query; query i calibrates when i is even and is held out when odd.
public struct CatalogCalibration {
    public var negatives: [String]
    public var lengths: [Double]
    /// Negative queries per length (half calibrate, half are held out).
    public var perLength: Int
    public var falsePositiveTarget: Double
    public var seed: UInt64
    public var threads: Int

    public init(negatives: [String], lengths: [Double], perLength: Int, falsePositiveTarget: Double, seed: UInt64, threads: Int) {
        self.negatives = negatives
        self.lengths = lengths
        self.perLength = perLength
        self.falsePositiveTarget = falsePositiveTarget
        self.seed = seed
        self.threads = threads
    }

    /// One negative query: which file, from where.
    struct Draw { var file: Int; var start: Double }

    /// The `perLength` seeded windows of `length` seconds among files of these durations (files shorter
    /// than the length are never drawn).
    func draws(length: Double, durations: [Double]) -> [Draw] {
        let usable = durations.indices.filter { durations[$0] >= length }
        guard !usable.isEmpty else { return [] }
        return (0..<perLength).map { i in
            let pick = derivedSeed(seed, "calibration", String(format: "%g", length), "\(i)")
            let file = usable[Int(pick % UInt64(usable.count))]
            let fraction = Double(derivedSeed(seed, "calibration-start", String(format: "%g", length), "\(i)") >> 11) / Double(1 << 53)
            return Draw(file: file, start: fraction * (durations[file] - length))
        }
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
            throw DatasetError(path: negatives.joined(separator: ", "), reason: String(format: "no negative recording is %g s long", length))
        }
        let all = lengths.flatMap { length in draws(length: length, durations: durations).map { (length, $0) } }
        progress.start("calibrating on negatives", total: all.count)
        catalog.seal()
        let scores = parallelMap(all.count, threads: threads) { i -> Result<Double, Error> in
            defer { progress.advance() }
            let (length, draw) = all[i]
            return Result {
                do {
                    let print = try algorithm.fingerprint(file: negatives[draw.file], window: TimeWindow(start: draw.start, duration: length), role: .query)
                    return try catalog.search(print, limit: 1, applyingThreshold: false).first?.comparison.score ?? 0
                } catch is FingerprintError { return 0 }  // silence, too little audio: nothing to match
            }
        }
        progress.finish()
        var results: [Calibration.Length] = []
        for length in lengths {
            let mine = try all.indices.filter { all[$0].0 == length }.map { try scores[$0].get() }
            results.append(.init(length: length, calibrationScores: stride(from: 0, to: mine.count, by: 2).map { mine[$0] },
                                 heldOutScores: stride(from: 1, to: mine.count, by: 2).map { mine[$0] }, target: falsePositiveTarget))
        }
        return Calibration(falsePositiveTarget: falsePositiveTarget, seed: seed, negativeFiles: negatives, lengths: results)
    }
}
