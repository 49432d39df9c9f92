import ArgumentParser
import BenchmarkEvaluation
import Evaluation
import Foundation
import OutsidePrograms
import Reporting
import Sweeps

extension SweepCommand {

    struct Skew: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "skew",
            abstract: "Sub-frame time skew: each algorithm and system with its query starts on its own frame grid, then moved by shares of its hop.",
            discussion: """
            One identification benchmark per algorithm or system (its hop: the algorithm's frame step, a system \
            file's frameHopSeconds), its query starts rounded down to multiples of that hop, every condition also \
            asked with the queries started 1/steps, 2/steps ... 1 hop later. Writes skew.md, skew.csv and a figure \
            per condition and length into --out, and each run's benchmark into --out/NAME.

            Example (Reports/skew):
              fpbench sweep skew --algorithms constellation haitsma-kalker --system Systems/audfprint/audfprint.json
            """)

        @Option(parsing: .upToNextOption, help: AlgorithmNames.help("Algorithms to sweep."), completion: AlgorithmNames.completion) var algorithms: [String] = []
        @Option(help: "A system file (Systems/NAME/NAME.json, or FILE@VARIANT) with frameHopSeconds; repeatable.") var system: [String] = []
        @Option(help: "Shares of a hop: the queries are moved by 0, 1/steps, ... 1 hop.") var steps = 4
        @Option(parsing: .upToNextOption, help: "Query lengths in seconds.") var lengths: [Double] = [5, 10]
        @Option(parsing: .upToNextOption, help: "Condition ids (`fpbench benchmark --help` lists them).") var conditions: [String] = ["clean", "white-0dB"]
        @OptionGroup var counts: BenchmarkCounts
        @Option(help: "Output folder.") var out = "runs/skew"
        @OptionGroup var options: RunOptions

        func run() throws {
            guard (1...20).contains(steps) else { throw ValidationError("--steps: 1 to 20") }
            guard !algorithms.isEmpty || !system.isEmpty else { throw ValidationError("name at least one algorithm (--algorithms) or system (--system)") }
            let spec = try counts.spec(lengths: lengths, conditions: conditions)
            let systems = try options.external.apply(to: try system.map { file in try validated { try OutsideSystem(file: file) } })
            let chosen = algorithms.isEmpty ? [] : try options.external.resolve(algorithms, systems: systems)
            let targets = chosen.map(SkewSweep.Target.algorithm) + systems.map(SkewSweep.Target.system)
            if let blind = targets.first(where: { $0.hop == nil }) {
                throw ValidationError("\(blind.identifier) has no hop to put queries on"
                                      + (chosen.contains { $0.identifier == blind.identifier } ? " (it has no frames)" : " (its system file gives no frameHopSeconds)"))
            }
            let folder = URL(fileURLWithPath: out)
            var base = options.benchmarkConfiguration(dataset: try options.loadDataset(default: "catalog"), algorithms: [], spec: spec)
            base.systemStateFolder = BenchmarkChoice.systemState(counts.systemState, options: options, out: folder)
            let sweep = SkewSweep(base: base, steps: steps)
            var points: [SkewSweep.Point] = []
            for target in targets {
                points += try validated {
                    try sweep.run(target) { results, costs in try BenchmarkReport.write(results, costs: costs, to: folder.appendingPathComponent(target.identifier)) }
                }
            }
            try SkewReport.write(points, to: folder)
            print(folder.appendingPathComponent("skew.md").path)
        }
    }
}
