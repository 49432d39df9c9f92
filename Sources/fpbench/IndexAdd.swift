import ArgumentParser
import AudioIO
import Evaluation
import Fingerprinting
import Foundation

extension IndexCommand {
    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add tracks to an index file: the result equals a fresh build of all its tracks.",
            discussion: """
            The index's own fingerprints are read back from the file (lossless), the new tracks fingerprinted, \
            and the index built again over all of them in order, so every count it derives from the whole \
            catalog (the keys too common to index) is that of the union; a calibrated threshold is calibrated \
            again on the same negatives, lengths and seed. The file is replaced atomically.

            Example: fpbench index add music.fpindex ~/Music/new-album
            """)

        @Argument(help: "The index file.") var index: String
        @Argument(help: "Audio files or folders to add.") var files: [String]
        @Option(help: threadsHelp) var threads = ProcessInfo.processInfo.activeProcessorCount
        @OptionGroup var external: ExternalOption
        @OptionGroup var progress: ProgressOptions

        func run() throws {
            let started = Date(), reporter = ProgressReporter(progress.mode)
            let lock = try validated { try WriterLock(for: index, waiting: Console.error) }  // held until the file is replaced
            defer { withExtendedLifetime(lock) {} }
            let header = try validated { try IndexFile.Reader(path: index).header }
            let algorithm = try external.resolve([header.algorithm])[0]
            let old = try validated { try Catalog(algorithm: algorithm, indexFile: index) }
            let added = try validated { try AudioFiles.expand(files) }
            if let twice = added.first(where: old.names.contains) { throw ValidationError("\(twice) is already in \(index)") }
            let grown = Catalog(algorithm: algorithm)
            for (i, print) in old.fingerprints.enumerated() {
                guard let print else { throw ValidationError("\(index): the fingerprint of \(old.names[i]) cannot be read; rebuild the index") }
                grown.add(print, name: old.names[i], checksum: old.checksums[i])
            }
            let (new, failures) = AudioFiles.tracks(algorithm, files: added, threads: threads, progress: reporter)
            for failure in failures { Console.error("\(failure.item): \(failure.reason)") }
            grown.add(new)
            if let calibration = old.calibration {
                grown.calibration = try CatalogCalibration(negatives: calibration.negativeFiles, lengths: calibration.lengths.map(\.length),
                                                           perLength: (calibration.lengths.first.map { $0.calibrationScores.count + $0.heldOutScores.count } ?? 2),
                                                           falsePositiveTarget: calibration.falsePositiveTarget,
                                                           confidence: calibration.confidence ?? Calibration.standardConfidence, seed: calibration.seed,
                                                           threads: threads).calibrate(grown, progress: reporter)
            }
            try IndexCommand.save(grown, to: index)
            IndexCommand.describe(grown, path: index, seconds: Date().timeIntervalSince(started))
            if !failures.isEmpty { throw ExitCode(2) }
        }
    }
}
