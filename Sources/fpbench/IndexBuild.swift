import ArgumentParser
import AudioIO
import BenchmarkEvaluation
import Evaluation
import Fingerprinting
import Foundation

extension IndexCommand {
    struct Build: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "build",
            abstract: "Write an algorithm's index of a catalog (a dataset's catalog tracks, or any files and folders) to a file.",
            discussion: """
            The file holds the algorithm's index (its postings, read in place through a memory mapping, so \
            a catalog larger than memory still answers), its identity (identifier, revision, every \
            parameter: a file made with other parameters is refused), each track's name and SHA-256, each \
            track's fingerprint for verification (read only when a candidate needs it) and, with --negatives, \
            the "no match" threshold calibrated as the benchmark does (per query length, at most \
            --false-positive-rate of negative queries matching; half the negatives calibrate, the other half \
            measure the false-positive rate out of sample). `fpbench identify --index` then answers with the \
            calibrated threshold for each query's length. Use the file with `fpbench benchmark --index FILE` too.

            Examples:
              fpbench index build -a constellation --dataset catalog --out runs/constellation.fpindex
              fpbench index build -a constellation --catalog ~/Music/albums --negatives ~/Music/other --out music.fpindex
              fpbench index build -a haitsma-kalker --catalog-list tracks.txt --out tracks.fpindex
              fpbench benchmark --algorithms constellation --index runs/constellation.fpindex
            """)

        @OptionGroup var algorithm: AlgorithmOption
        @Option(help: "Dataset with a catalog section (default: catalog, unless --catalog or --catalog-list is given).") var dataset: String?
        @Option(parsing: .upToNextOption, help: "Catalog tracks: audio files, or folders searched for them (no manifest needed).") var catalog: [String] = []
        @Option(help: "A text file listing catalog tracks, one path per line (relative to the list's folder, or absolute).") var catalogList: String?
        @Option(help: "Fingerprint cache folder (dataset catalogs).") var cache = ".fpbench-cache/fingerprints"
        @Option(help: threadsHelp) var threads = ProcessInfo.processInfo.activeProcessorCount
        @Option(help: "The index file to write.") var out: String
        @OptionGroup var calibration: CalibrationOptions
        @OptionGroup var progress: ProgressOptions

        func validate() throws {
            guard dataset == nil || (catalog.isEmpty && catalogList == nil) else { throw ValidationError("give --dataset or --catalog/--catalog-list, not both") }
            guard threads >= 1 else { throw ValidationError("--threads must be 1 or more, got \(threads)") }
        }

        func run() throws {
            let chosen = try algorithm.resolve()
            let started = Date(), reporter = ProgressReporter(progress.mode)
            let catalog: Catalog, failures: [Problem]
            let files = try catalogFiles()
            if files.isEmpty {
                let data = try validated { try Dataset.load(dataset ?? "catalog") }
                let indexer = CatalogIndexer(dataset: data, threads: threads, cacheFolder: URL(fileURLWithPath: cache))
                let built = try validated { try indexer.buildCatalogs([chosen], progress: reporter) }
                (catalog, failures) = (built.catalogs[0], built.failures)
            } else {
                let (tracks, problems) = AudioFiles.tracks(chosen, files: try validated { try AudioFiles.expand(files) }, threads: threads, progress: reporter)
                catalog = Catalog(algorithm: chosen)
                catalog.add(tracks)
                failures = problems
            }
            for failure in failures { Console.error("\(failure.item): \(failure.reason)") }
            guard !catalog.names.isEmpty else { throw ValidationError("no catalog track could be fingerprinted") }
            var leftOut = 0
            catalog.calibration = try calibration.calibrate(catalog, threads: threads, progress: reporter, leftOut: &leftOut)
            try IndexCommand.save(catalog, to: out)
            IndexCommand.describe(catalog, path: out, seconds: Date().timeIntervalSince(started))
            if !failures.isEmpty || leftOut > 0 { throw ExitCode(2) }
        }

        /// --catalog and --catalog-list together.
        func catalogFiles() throws -> [String] {
            guard let catalogList else { return catalog }
            return catalog + (try validated { try AudioFiles.list(catalogList) })
        }
    }
}
