import ArgumentParser
import Evaluation
import Fingerprinting
import Foundation

struct IndexCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "index",
        abstract: "Index a catalog once, into a file that many benchmarks, shards and searches map; grow it; see what it holds.",
        subcommands: [Build.self, Add.self, Info.self, Verify.self])

    /// `--negatives` and how the threshold is calibrated on them.
    struct CalibrationOptions: ParsableArguments {
        @Option(parsing: .upToNextOption, help: "Recordings not in the catalog (files or folders): calibrate the \"no match\" threshold on negative queries cut from them, stored in the index.")
        var negatives: [String] = []
        @Option(parsing: .upToNextOption, help: "Query lengths in seconds to calibrate for (default 1 2 5 10, the benchmark's).") var lengths: [Double] = [1, 2, 5, 10]
        @Option(help: "Negative queries per length: half calibrate the threshold, half are held out to measure its false-positive rate (1,000: a held-out 1 % has a 95 % interval of 0.4-2.3 %).")
        var negativesPerLength = 1000
        @Option(help: "The share of negative queries allowed to match (the benchmark's 1 %).") var falsePositiveRate = 0.01
        @Option(help: "Seed of the negative queries' files and positions.") var seed: UInt64 = 2013

        func validate() throws {
            guard (2...100_000).contains(negativesPerLength) else { throw ValidationError("--negatives-per-length must be 2 to 100,000, got \(negativesPerLength)") }
            guard falsePositiveRate > 0 && falsePositiveRate < 1 else { throw ValidationError("--false-positive-rate must be between 0 and 1, got \(falsePositiveRate)") }
            guard !lengths.isEmpty, lengths.allSatisfy({ $0 > 0 && $0 <= 600 }) else { throw ValidationError("--lengths must be above 0 and at most 600 s") }
        }

        /// `catalog`'s calibration, or nil without --negatives; a negative that is a catalog file is refused.
        /// The calibration, or nil without --negatives; a negative that cannot be read is named and left out
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
                    printError("\(file): left out of the calibration (\(reason))")
                    unread += 1
                }
            }
            for l in calibration.lengths where l.calibrationScores.count + l.heldOutScores.count < negativesPerLength {
                printWarning(String(format: "%g s: the negative recordings hold %d windows that do not overlap, not the %d asked: give more or longer recordings",
                                  l.length, l.calibrationScores.count + l.heldOutScores.count, negativesPerLength))
            }
            return calibration
        }
    }

    struct Build: ParsableCommand {
        static let configuration = CommandConfiguration(
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
        @Option(help: "Worker threads (default: all cores).") var threads = ProcessInfo.processInfo.activeProcessorCount
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
            let catalog: Catalog, failures: [RunResults.Problem]
            let files = try catalogFiles()
            if files.isEmpty {
                let data = try validated { try Dataset.load(dataset ?? "catalog") }
                let configuration = BenchmarkConfiguration(dataset: data, algorithms: [chosen], spec: BenchmarkSpec(), seed: 0, threads: threads,
                                                           cacheFolder: URL(fileURLWithPath: cache), progress: progress.mode, toolVersion: fpbenchVersion)
                let built = try validated { try Benchmark(configuration).buildCatalogs() }
                (catalog, failures) = (built.catalogs[0], built.failures)
            } else {
                let (tracks, problems) = AudioFiles.tracks(chosen, files: try validated { try AudioFiles.expand(files) }, threads: threads, progress: reporter)
                catalog = Catalog(algorithm: chosen)
                catalog.add(tracks)
                failures = problems
            }
            for failure in failures { printError("\(failure.item): \(failure.reason)") }
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

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
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
        @Option(help: "Worker threads (default: all cores).") var threads = ProcessInfo.processInfo.activeProcessorCount
        @OptionGroup var external: ExternalOption
        @OptionGroup var progress: ProgressOptions

        func run() throws {
            let started = Date(), reporter = ProgressReporter(progress.mode)
            let lock = try validated { try WriterLock(for: index, waiting: printError) }  // held until the file is replaced
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
            for failure in failures { printError("\(failure.item): \(failure.reason)") }
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

    struct Info: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "What an index file holds: algorithm, parameters, tracks, size, and its calibrated thresholds.",
            discussion: "Opening the file checks its header (`fpbench index verify` checks every byte).\n\nExample: fpbench index info music.fpindex")

        @Argument(help: "The index file.") var index: String
        @Flag(help: "List every track with its duration and SHA-256.") var tracks = false

        func run() throws {
            let reader = try validated { try IndexFile.Reader(path: index) }
            let h = reader.header
            let hours = h.durations.reduce(0, +) / 3600
            print("\(index): \(h.algorithm) (revision \(h.revision)), \(h.references.count) tracks, \(String(format: "%.2f", hours)) h, "
                  + String(format: "%.1f MiB (%.2f MiB per hour of audio)", Double(reader.byteCount) / 1_048_576, Double(reader.byteCount) / 1_048_576 / max(hours, 1e-9)))
            print("parameters: \(h.profile)")
            if let c = h.calibration {
                let held = c.heldOutFiles.map { "\($0.count) held out" } ?? "halves not split by recording: built by an older fpbench"
                let sure = c.confidence.map { String(format: " with %g %% confidence", 100 * $0) } ?? ""
                print(String(format: "calibrated \"no match\" threshold (at most %g %% false positives%@; seed %llu; negatives from %d recordings, %@):",
                             100 * c.falsePositiveTarget, sure, c.seed, c.negativeFiles.count, held))
                for l in c.lengths {
                    let rate = Rate(l.heldOutFalsePositives, of: l.heldOutScores.count)
                    print(String(format: "  %g s queries: score > %.3f (calibrated on %d negatives); held out: %d of %d false positives, %.1f %% [95 %% interval %.1f-%.1f over windows%@]",
                                 l.length, l.threshold, l.calibrationScores.count, rate.successes, rate.total, 100 * rate.value, 100 * rate.low, 100 * rate.high,
                                 l.heldOutUpper.map { String(format: ", up to %.1f over recordings", 100 * $0) } ?? ""))
                }
                for warning in c.warnings { print("  warning: \(warning)") }
            } else {
                print("threshold: the algorithm's documented one, not calibrated (build with --negatives FILES|FOLDER to calibrate)")
            }
            if tracks {
                for (i, name) in h.references.enumerated() {
                    print(String(format: "  %8.1f s  %@  %@", h.durations[i], h.checksums[i].isEmpty ? "(no checksum)" : String(h.checksums[i].prefix(16)), name))
                }
            }
        }
    }

    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check every byte of index files: each section's checksum, each block of the postings, each fingerprint.",
            discussion: """
            Searching an index file verifies only what it reads (the header when the file is opened, then \
            each 512-byte block of the postings and each track's fingerprint on first use), so opening a large \
            file stays cheap and damage is still refused where it would change an answer. This reads \
            everything: run it after copying an index to another machine or before a long benchmark. \
            Exits 1 naming the first damaged section of each damaged file.

            Examples:
              fpbench index verify runs/*.fpindex
              fpbench index verify --external Algorithms/chromaprint-fpcalc-indexed.json chromaprint.fpindex
            """)

        @Argument(help: "Index files.") var indexes: [String]
        @OptionGroup var external: ExternalOption

        func run() throws {
            var damaged = 0
            for path in indexes {
                do {
                    let started = Date()
                    let header = try IndexFile.Reader(path: path).header
                    let available = try external.algorithms()
                    let algorithm = try AlgorithmRegistry.algorithm(header.algorithm, among: available)
                    let catalog = try Catalog(algorithm: algorithm, indexFile: path)
                    try catalog.verifyAll()
                    let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
                    print(String(format: "%@: ok (%@, %d tracks, %d sections, %.1f MiB verified in %.2f s)", path, header.algorithm,
                                 header.references.count, header.sections.count, Double(bytes) / 1_048_576, Date().timeIntervalSince(started)))
                } catch let unknown as UnknownAlgorithm {
                    damaged += 1
                    printError("\(path): \(unknown) (an external algorithm's index? give its file with --external)")
                } catch {
                    damaged += 1
                    printError(error is IndexFileError ? "\(error)" : "\(path): \(error)")
                }
            }
            if damaged > 0 { throw ExitCode.failure }
        }
    }

    static func save(_ catalog: Catalog, to path: String) throws {
        let target = URL(fileURLWithPath: path)
        do {
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try catalog.save(to: target.path)
        } catch {
            printError("\(path): cannot be written (\(error.localizedDescription))")
            throw ExitCode.failure
        }
    }

    static func describe(_ catalog: Catalog, path: String, seconds: Double) {
        let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        let hours = catalog.duration / 3600
        var line = String(format: "fpbench index: %d tracks, %.2f h, %.1f MiB (%.2f MiB per hour of audio) in %.1f s", catalog.names.count, hours,
                          Double(bytes) / 1_048_576, Double(bytes) / 1_048_576 / max(hours, 1e-9), seconds)
        if let c = catalog.calibration {
            line += "; calibrated: " + c.lengths.map { String(format: "%g s > %.3f (held out %d/%d)", $0.length, $0.threshold, $0.heldOutFalsePositives, $0.heldOutScores.count) }.joined(separator: ", ")
        }
        FileHandle.standardError.write(Data((line + "\n").utf8))
        for warning in catalog.calibration?.warnings ?? [] { printWarning("the calibration: \(warning)") }
        print(path)
    }
}
