import ArgumentParser
import Evaluation
import Foundation
import Reporting

struct CompareAlgorithms: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare-algorithms",
        abstract: "Two algorithms side by side: per test, the deltas, and the sources that went from miss to hit and back.",
        discussion: """
        Runs both algorithms on the same queries (same dataset, tests and seed), or reads an existing \
        results.json that holds both. Prints Markdown; --out also writes it.

        Examples: fpbench compare-algorithms --baseline afa-thesis --candidate waveprint
                  fpbench compare-algorithms --baseline haitsma-kalker --candidate chromaprint \\
                      --external Algorithms/chromaprint-fpcalc.json --dataset ci
                  fpbench compare-algorithms --baseline afa-thesis --candidate constellation --results Reports/reference/results.json
        """)

    @Option(help: "The algorithm to compare against.") var baseline: String
    @Option(help: "The algorithm under test.") var candidate: String
    @Option(help: "Read this results.json instead of running.") var results: String?
    @Option(help: "Dataset name or manifest path (when running).") var dataset = "default"
    @Option(parsing: .upToNextOption, help: "Test ids (default: the whole thesis suite).") var tests: [String] = []
    @Option(help: "Seed (when running).") var seed: UInt64 = 2013
    @Option(help: "Fingerprint cache folder.") var cache = ".fpbench-cache/fingerprints"
    @Option(help: "Also write the Markdown here.") var out: String?
    @OptionGroup var external: ExternalOption

    func run() throws {
        let runResults: RunResults
        if let results {
            guard let data = FileManager.default.contents(atPath: results) else { throw ValidationError("\(results): no such file") }
            runResults = try validated { try RunResults.decode(data, path: results) }
            for id in [baseline, candidate] where runResults.algorithm(id) == nil {
                throw ValidationError("\(results) has no results for '\(id)'")
            }
        } else {
            runResults = Runner(RunConfiguration(
                dataset: try validated { try Dataset.load(dataset) }, algorithms: try external.resolve([baseline, candidate]),
                suite: try validated { try Suite.thesis.selecting(tests) }, seed: seed,
                threads: ProcessInfo.processInfo.activeProcessorCount, cacheFolder: URL(fileURLWithPath: cache),
                keepAudioFolder: nil, showProgress: true, toolVersion: fpbenchVersion)).run()
            for failure in runResults.failures { printError("\(failure.item): \(failure.reason)") }
        }
        let markdown = algorithmComparisonMarkdown(runResults, baseline: baseline, candidate: candidate)
        print(markdown, terminator: "")
        if let out { try writeAtomically(Data(markdown.utf8), to: out) }
    }
}
