import ArgumentParser
import AudioIO
import BenchmarkEvaluation
import Evaluation
import Fingerprinting
import Foundation
import Reporting
import SuiteEvaluation
import Sweeps

extension SweepCommand {

    struct Parameter: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "parameter",
            abstract: "Sweep one of an algorithm's own parameters: each value a variant (ALGORITHM@PARAMETER=VALUE).",
            discussion: """
            On the thesis suite the variants answer --test's queries (default test3-noise-3.16); with --benchmark, \
            the --condition's (default white-5dB). `fpbench algorithms` lists each algorithm's parameters.

            Example: fpbench sweep parameter --algorithm-parameter constellation.fanOut --values 1 3 5 10 --benchmark
            """)

        @Option(help: "ALGORITHM.PARAMETER, as constellation.fanOut.") var algorithmParameter: String
        @Option(parsing: .upToNextOption, help: "The values (negative ones welcome).") var values: [String]
        @Option(help: "Thesis-suite test whose queries the variants answer.") var test = "test3-noise-3.16"
        @Option(help: "With --benchmark: the condition (see `fpbench benchmark --help`).") var condition = "white-5dB"
        @OptionGroup var target: Target
        @OptionGroup var options: RunOptions
        @OptionGroup var draws: DrawOptions
        @Option(help: "Output folder (default: runs/sweep-ALGORITHM.PARAMETER).") var out: String?

        func run() throws {
            guard let dot = algorithmParameter.firstIndex(of: ".") else { throw ValidationError("--algorithm-parameter is ALGORITHM.PARAMETER, as constellation.fanOut") }
            let name = String(algorithmParameter[..<dot]), parameter = String(algorithmParameter[algorithmParameter.index(after: dot)...])
            let numbers = try values.map { text -> Double in
                guard let value = Double(text), value.isFinite else { throw ValidationError("--values: '\(text)' is not a number") }
                return value
            }
            guard !numbers.isEmpty else { throw ValidationError("--values needs at least one value") }
            let algorithm = try options.external.resolve([name])[0]
            for value in numbers {  // every value is checked before anything runs
                _ = try validated { try algorithm.variant([(parameter, String(format: "%g", value))], identifier: name) }
            }
            let folder = URL(fileURLWithPath: out ?? "runs/sweep-\(algorithmParameter)")
            if target.benchmark {
                guard draws.count == 1 else { throw ValidationError("--queries-per-source is for the thesis suite's sweep; with --benchmark, use --queries") }
                var base = try target.configuration(options, algorithms: [name])
                guard let chosen = base.spec.conditions.first(where: { $0.id == condition }) else {
                    throw ValidationError("unknown condition '\(condition)'; known: \(base.spec.conditions.map(\.id).joined(separator: ", "))")
                }
                base.algorithms = [algorithm]
                try SweepReport.write(try validated { try BenchmarkSweep(base: base).run(algorithm, parameter: parameter, values: numbers, condition: chosen) },
                                      to: folder)
            } else {
                let suite = try validated { try Suite.thesis.selecting([test]) }
                let base = try options.configuration(algorithms: [name], suite: suite, draws: draws)
                try SweepReport.write(SweepRunner.variants(of: algorithm, parameter: parameter, values: numbers, base: base, test: test), to: folder)
            }
            print(folder.appendingPathComponent("sweep.md").path)
        }
    }
}
