import ArgumentParser
import AudioIO
import BenchmarkEvaluation
import Evaluation
import Fingerprinting
import Foundation

extension IndexCommand {
    /// `--negatives` and how the threshold is calibrated on them.
    struct CalibrationOptions: ParsableArguments {
        @Option(parsing: .upToNextOption, help: "Recordings not in the catalog (files or folders): calibrate the \"no match\" threshold on negative queries cut from them, stored in the index.")
        var negatives: [String] = []
        @Option(parsing: .upToNextOption, help: "Query lengths in seconds to calibrate for (default: the benchmark's).") var lengths = BenchmarkSpec().queryLengths
        @Option(help: "Negative queries per length: half calibrate the threshold, half are held out to measure its false-positive rate (1,000: a held-out 1 % has a 95 % interval of 0.4-2.3 %; default: the benchmark's).")
        var negativesPerLength = BenchmarkSpec().negativesPerLength
        @Option(help: "The share of negative queries allowed to match (default: the benchmark's).") var falsePositiveRate = BenchmarkSpec().falsePositiveTarget
        @Option(help: "Seed of the negative queries' files and positions.") var seed: UInt64 = 2013

        func validate() throws {
            guard (2...100_000).contains(negativesPerLength) else { throw ValidationError("--negatives-per-length must be 2 to 100,000, got \(negativesPerLength)") }
            guard falsePositiveRate > 0 && falsePositiveRate < 1 else { throw ValidationError("--false-positive-rate must be between 0 and 1, got \(falsePositiveRate)") }
            guard !lengths.isEmpty, lengths.allSatisfy(BenchmarkSpec.queryLengthRange.contains) else { throw ValidationError("--lengths: each must be \(BenchmarkSpec.queryLengthRangeText)") }
        }

        /// `catalog`'s calibration, or nil without --negatives; a negative that is a catalog file is refused,
        /// one that cannot be read is named and left out
        /// (`leftOut` counts them, so the command can end with exit status 2 after writing the index).
        func calibrate(_ catalog: Catalog, threads: Int, progress: ProgressReporter, leftOut: inout Int) throws -> Calibration? {
            guard !negatives.isEmpty else { return nil }
            let files = try validated { try AudioFiles.expand(negatives) }
            if let shared = files.first(where: catalog.names.contains) { throw ValidationError("\(shared) is in the catalog, so it cannot be a negative") }
            var unread = 0
            defer { leftOut += unread }
            let calibration = try validated {
                try CatalogCalibration(negatives: files, lengths: lengths.sorted(), perLength: negativesPerLength, falsePositiveTarget: falsePositiveRate,
                                       seed: seed, threads: threads).calibrate(catalog, progress: progress) { file, reason in
                    Console.error("\(file): left out of the calibration (\(reason))")
                    unread += 1
                }
            }
            for l in calibration.lengths where l.calibrationScores.count + l.heldOutScores.count < negativesPerLength {
                Console.warning(String(format: "%@: the negative recordings hold %d windows that do not overlap, not the %d asked: give more or longer recordings",
                                  QueryLength(l.length).spoken, l.calibrationScores.count + l.heldOutScores.count, negativesPerLength))
            }
            return calibration
        }
    }
}
