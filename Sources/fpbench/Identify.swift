import ArgumentParser
import AudioIO
import Evaluation
import Fingerprinting
import Foundation

struct Identify: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Search a catalog of references for each query: ranked matches, or \"no match\".",
        discussion: """
        Fingerprints every --catalog file as a reference, indexes them with the algorithm's own index \
        (LSH buckets for waveprint, an inverted hash table for constellation, a sub-fingerprint lookup for \
        haitsma-kalker, brute force for the thesis algorithms), then prints each query's matches best first. \
        Files are fingerprinted on every core (--threads), the output in the order given. \
        A query whose best comparison is below the algorithm's threshold gets "no match" (see \
        `fpbench algorithms` for each threshold). Also prints the catalog's memory per hour of audio.

        Examples: fpbench identify -a constellation --catalog Datasets/ci/audio/birds/*.wav -- query.wav
                  fpbench identify -a constellation --index runs/constellation.fpindex -- query.wav
        """)

    @OptionGroup var algorithm: AlgorithmOption
    @Option(name: .long, parsing: .upToNextOption, help: "Reference recordings.") var catalog: [String] = []
    @Option(help: "An index file (fpbench index build) to search instead of --catalog.") var index: String?
    @Argument(help: "Query recordings.") var queries: [String]
    @Option(help: "Matches to print per query (1 or more).") var limit = 5
    @Option(help: "Worker threads (default: all cores).") var threads = ProcessInfo.processInfo.activeProcessorCount

    func validate() throws {
        guard limit >= 1 else { throw ValidationError("--limit must be 1 or more, got \(limit)") }
        guard threads >= 1 else { throw ValidationError("--threads must be 1 or more, got \(threads)") }
        guard (index == nil) != catalog.isEmpty else { throw ValidationError("give the references as --catalog FILE... or as --index FILE (one of the two)") }
    }

    func run() throws {
        let algorithm = try algorithm.resolve()
        let index = try self.index.map { path in try validated { try Catalog(algorithm: algorithm, indexFile: path) } } ?? Catalog(algorithm: algorithm)
        var failures = 0
        let references = parallelMap(catalog.count, threads: threads) { i in Result { try algorithm.fingerprint(file: catalog[i]) } }
        for (path, reference) in zip(catalog, references) {
            do { index.add(try reference.get(), name: path) } catch {
                failures += 1
                printError(describe(error, file: path))
            }
        }
        let hours = index.duration / 3600
        print("catalog: \(index.names.count) references, \(String(format: "%.1f", index.duration)) s, "
              + "\(index.byteCount) bytes (\(String(format: "%.2f", Double(index.byteCount) / 1_048_576 / max(hours, 1e-9))) MiB per hour of audio)")
        let answers = parallelMap(queries.count, threads: threads) { i in
            Result { index.search(try algorithm.fingerprint(file: queries[i], role: .query), limit: limit) }
        }
        for (path, answer) in zip(queries, answers) {
            do {
                let matches = try answer.get()
                print("\(path):")
                if matches.isEmpty { print("  no match") }
                for (rank, match) in matches.enumerated() {
                    print("  \(rank + 1). \(match.reference)  score \(String(format: "%.1f", 100 * match.comparison.score)) %  "
                          + "offset \(String(format: "%.3f", match.comparison.offset)) s  \(algorithm.rawFigureName) \(String(format: "%g", match.comparison.rawFigure))"
                          + (match.comparison.timeFactor.map { "  time factor \(String(format: "%.3f", $0))" } ?? ""))
                }
            } catch {
                failures += 1
                printError(describe(error, file: path))
            }
        }
        if failures > 0 { throw ExitCode.failure }
    }
}
