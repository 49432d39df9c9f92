import ArgumentParser
import AudioIO
import Evaluation
import Fingerprinting
import Foundation
import Reporting

struct Identify: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "identify",
        abstract: "Search a catalog of references for each query: ranked matches, or \"no match\".",
        discussion: """
        Fingerprints every --catalog file (or every audio file in a --catalog folder) as a reference and \
        indexes them with the algorithm's own index, or maps an index file (--index), then prints each \
        query's matches best first, each with its score, and the threshold it had to pass and where that \
        came from: calibrated on negative queries (an index built with --negatives, or --negatives here: \
        at most 1 % of recordings not in the catalog match with 90 % confidence, per query length), \
        --threshold, or the \
        algorithm's documented threshold (said once on standard error: it is not calibrated for your \
        catalog and can match what is not in it). A silent query, or one too short to fingerprint, is \
        answered "no match" with the reason; an unreadable one is named and the others still answered.

        Examples: fpbench identify -a constellation --catalog Datasets/ci/audio/birds -- query.wav
                  fpbench identify -a constellation --catalog ~/Music/albums --negatives ~/Music/other -- query.wav
                  fpbench identify -a constellation --index music.fpindex -- query.wav
        """)

    @OptionGroup var algorithm: AlgorithmOption
    @Option(name: .long, parsing: .upToNextOption, help: "Reference recordings (files or folders).") var catalog: [String] = []
    @Option(help: "An index file (fpbench index build) to search instead of --catalog; its calibrated threshold is used.") var index: String?
    @Argument(help: "Query recordings.") var queries: [String]
    @Option(help: "Matches to print per query (1 or more).") var limit = 5
    @Option(help: "A match must score above this (0 to 1), instead of the calibrated or documented threshold.") var threshold: Double?
    @Option(help: threadsHelp) var threads = ProcessInfo.processInfo.activeProcessorCount
    @Option(help: "text (to read), or csv for scripts and `benchmark --system` (\(Format.csvHeader); one row per match above the threshold, none for \"no match\").")
    var format = Format.text
    @OptionGroup var calibration: IndexCommand.CalibrationOptions
    @OptionGroup var progress: ProgressOptions

    func validate() throws {
        guard limit >= 1 else { throw ValidationError("--limit must be 1 or more, got \(limit)") }
        guard threads >= 1 else { throw ValidationError("--threads must be 1 or more, got \(threads)") }
        guard (index == nil) != catalog.isEmpty else { throw ValidationError("give the references as --catalog FILE... or as --index FILE (one of the two)") }
        guard index == nil || calibration.negatives.isEmpty else {
            throw ValidationError("--negatives calibrates a --catalog; an index carries its calibration from `fpbench index build --negatives`")
        }
        if let threshold, !(threshold >= 0 && threshold <= 1) { throw ValidationError("--threshold must be a score from 0 to 1, got \(threshold)") }
    }

    /// The rule a match passes: a score above a calibrated or given threshold, or the algorithm's documented test.
    enum Rule {
        case documented
        case given(Double)
        case calibrated(Calibration)

        /// The matches that pass for a query of `duration`: those above its threshold, or every one the
        /// index returned when the documented test applies (the index applied it).
        func passing(_ found: [Match], duration: Double) -> [Match] {
            threshold(for: duration).map { t in found.filter { $0.comparison.score > t.value } } ?? found
        }

        func threshold(for duration: Double) -> (value: Double, source: String)? {
            switch self {
            case .documented: return nil
            case .given(let t): return (t, "--threshold")
            case .calibrated(let c):
                guard let l = c.length(for: duration) else { return nil }
                return (l.threshold, String(format: "calibrated for %@ queries on %d negatives; held out: %d of %d matched",
                                            QueryLength(l.length).spoken, l.calibrationScores.count, l.heldOutFalsePositives, l.heldOutScores.count))
            }
        }
    }

    func run() throws {
        let algorithm = try algorithm.resolve()
        let reporter = ProgressReporter(progress.mode)
        var failures = 0
        let index = try searchedCatalog(algorithm, reporter: reporter, failures: &failures)
        let hours = index.duration / 3600
        if format == .text {
            print("catalog: \(index.names.count) references, \(String(format: "%.1f", index.duration)) s, "
                  + "\(index.byteCount) bytes (\(String(format: "%.2f", Double(index.byteCount) / 1_048_576 / max(hours, 1e-9))) MiB per hour of audio)")
        } else {
            print(Format.csvHeader)
        }
        let rule: Rule = threshold.map(Rule.given) ?? index.calibration.map(Rule.calibrated) ?? .documented
        if case .documented = rule {
            Console.note("identify: \(algorithm.identifier)'s documented threshold is not calibrated for this catalog and can answer recordings "
                + "that are not in it with a match (the benchmark's false positives at the documented threshold: Reports/benchmark/summary.md); "
                + "calibrate with --negatives FOLDER here or in `fpbench index build`, or give --threshold")
        }
        reporter.start("identifying", total: queries.count)
        let answers = parallelMap(queries.count, threads: threads) { i in
            defer { reporter.advance() }
            return Result { () -> (print: AnyFingerprint, matches: [Match]) in
                let duration = try AudioReader.duration(queries[i])
                let print = duration > longestQuery
                    ? try algorithm.fingerprint(file: queries[i], window: TimeWindow(start: 0, duration: longestQuery), role: .query)
                    : try algorithm.fingerprint(file: queries[i], role: .query)
                return (print, try index.search(print, limit: limit, applyingThreshold: rule.threshold(for: print.duration) == nil))
            }
        }
        reporter.finish()
        for (path, answer) in zip(queries, answers) where !report(answer, for: path, rule: rule, algorithm: algorithm) { failures += 1 }
        if failures > 0 { throw ExitCode.failure }
    }

    /// The index file read, or the catalog's files fingerprinted and calibrated (files that fail counted).
    private func searchedCatalog(_ algorithm: AnyAlgorithm, reporter: ProgressReporter, failures: inout Int) throws -> Catalog {
        if let path = index { return try validated { try Catalog(algorithm: algorithm, indexFile: path) } }
        let (tracks, problems) = AudioFiles.tracks(algorithm, files: try validated { try AudioFiles.expand(catalog) }, threads: threads, progress: reporter)
        for problem in problems { Console.error(problem.reason.contains(problem.item) ? problem.reason : "\(problem.item): \(problem.reason)") }
        failures += problems.count
        let made = Catalog(algorithm: algorithm)
        made.add(tracks)
        made.calibration = try calibration.calibrate(made, threads: threads, progress: reporter, leftOut: &failures)
        return made
    }

    /// How answers are printed.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, csv
        static let csvHeader = "query,rank,reference,score,offset_s,raw_figure"
    }

    /// A query's matches above the threshold as CSV rows; false when the query failed (an error, said on stderr).
    private func reportCSV(_ answer: Result<(print: AnyFingerprint, matches: [Match]), Error>, for path: String, rule: Rule) -> Bool {
        do {
            let (queryPrint, found) = try answer.get()
            for (rank, match) in rule.passing(found, duration: queryPrint.duration).enumerated() {
                print(CSV.row([path, String(rank + 1), match.reference, String(match.comparison.score),
                               String(format: "%.3f", match.comparison.offset), String(format: "%g", match.comparison.rawFigure)]))
            }
        } catch is FingerprintError {
            // silence or too little audio: no match, no row
        } catch {
            Console.error(describe(error, file: path))
            return false
        }
        return true
    }

    /// Prints a query's answer; false when the query failed (an error, said on stderr).
    private func report(_ answer: Result<(print: AnyFingerprint, matches: [Match]), Error>, for path: String, rule: Rule, algorithm: AnyAlgorithm) -> Bool {
        if format == .csv { return reportCSV(answer, for: path, rule: rule) }
        print("\(path):")
        if let duration = try? AudioReader.duration(path), duration > longestQuery {
            print(String(format: "  (searched on its first %@ of %.1f s)", QueryLength(longestQuery).spoken, duration))
        }
        do {
            let (queryPrint, found) = try answer.get()
            let threshold = rule.threshold(for: queryPrint.duration)
            let matches = rule.passing(found, duration: queryPrint.duration)
            if matches.isEmpty {
                print("  no match" + (threshold.map { t in found.first.map { String(format: " (best: %@, score %.1f %% is not above %.1f %%)", $0.reference, 100 * $0.comparison.score, 100 * t.value) } ?? "" } ?? ""))
            }
            for (rank, match) in matches.enumerated() {
                print("  \(rank + 1). \(match.reference)  score \(String(format: "%.1f", 100 * match.comparison.score)) %  "
                      + "offset \(String(format: "%.3f", match.comparison.offset)) s  \(algorithm.rawFigureName) \(String(format: "%g", match.comparison.rawFigure))"
                      + (match.comparison.timeFactor.map { "  time factor \(String(format: "%.3f", $0))" } ?? ""))
            }
            print("  threshold: " + (threshold.map { String(format: "score above %.1f %% (%@)", 100 * $0.value, $0.source) } ?? "documented, uncalibrated"))
        } catch let error as FingerprintError {
            print("  no match (\(error))")  // silence or too little audio: nothing to look up, an answer rather than an error
        } catch {
            Console.error(describe(error, file: path))
            return false
        }
        return true
    }
}
