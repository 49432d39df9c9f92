import ArgumentParser
import AudioIO
import Evaluation
import Foundation
import Reporting
import SuiteEvaluation

struct CompareAlgorithms: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare-algorithms",
        abstract: "Two algorithms side by side: per test, the deltas, and the sources that went from miss to hit and back.",
        discussion: """
        Runs both algorithms on the same queries (same dataset, tests and seed), or reads an existing \
        results.json that holds both. Prints Markdown; --out also writes it.

        Examples: fpbench compare-algorithms --baseline afa-thesis --candidate waveprint
                  fpbench compare-algorithms --baseline haitsma-kalker --candidate chromaprint \\
                      --external Algorithms/chromaprint-fpcalc.json --dataset ci --tests test1-cropping test3-noise-3.16
                  fpbench compare-algorithms --baseline afa-thesis --candidate constellation --results Reports/reference/results.json
        """)

    @Option(help: "The algorithm to compare against.") var baseline: String
    @Option(help: "The algorithm under test.") var candidate: String
    @Option(help: "Read this results.json instead of running.") var results: String?
    @OptionGroup var suite: SuiteOptions
    @Option(help: "Also write the Markdown here.") var out: String?
    @OptionGroup var options: RunOptions

    func run() throws {
        let runResults: RunResults
        if let results {
            guard let data = RegularFile.contents(results) else { throw ValidationError("\(results): no such file") }
            try Report.refuseNewer(data, path: results)
            runResults = try validated { try RunResults.decode(data, path: results) }
            try Report.checkSeal(runResults, path: results)
            for id in [baseline, candidate] where runResults.algorithm(id) == nil {
                throw ValidationError("\(results) has no results for '\(id)'")
            }
        } else {
            runResults = Runner(try suite.checked(options.configuration(algorithms: [baseline, candidate], suite: try suite.load(), draws: suite.draws),
                                                 given: options.missingRecordings)).run()
            for failure in runResults.failures { Console.error("\(failure.item): \(failure.reason)") }
        }
        let markdown = algorithmComparisonMarkdown(runResults, baseline: baseline, candidate: candidate)
        print(markdown, terminator: "")
        if let out { try writeAtomically(Data(markdown.utf8), to: out) }
    }
}
