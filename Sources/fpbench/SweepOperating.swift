import ArgumentParser
import Evaluation
import Fingerprinting
import Foundation
import Reporting
import OutsidePrograms
import Sweeps

extension SweepCommand {

    struct Operating: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "operating",
            abstract: "Operating points: algorithms and outside systems at several settings of a density-like parameter, accuracy against index size and query CPU.",
            discussion: """
            Every value of every --point is a variant (ALGORITHM@PARAMETER=VALUE, SYSTEM@NAME=VALUE; each system's \
            index kept apart by setting), and all of them run in one identification benchmark: the same queries, \
            conditions and negatives, each calibrated to its own "no match" threshold. Beside the benchmark's \
            tables, the folder gets operating.md, operating.csv (one tidy row per point, condition and length: \
            correct top-1 at the calibrated threshold, index MiB per hour, indexing CPU per hour, query CPU per \
            query) and two SVG figures per condition and length (against index size, against query CPU), one line \
            per algorithm or system through its points, the Pareto front marked. `fpbench report OUT/results.json` \
            writes them again.

            Examples (scripts/operating-points.sh runs the one in Reports/operating-points):
              fpbench sweep operating --point constellation.fanOut=1,3,10 --point haitsma-kalker.hop=32,64,128
              fpbench sweep operating --system Systems/audfprint/audfprint.json --point audfprint.density=10,20,60
            """)

        @Option(name: .customLong("point"), help: ArgumentHelp(
            "TARGET.PARAMETER=V1,V2,...: an algorithm (or a named variant, panako@dense) or a system given with --system, at each value (repeatable).",
            valueName: "TARGET.PARAMETER=VALUES"))
        var points: [String]
        @Option(help: "A system file (Systems/NAME/NAME.json, or FILE@VARIANT) whose settings a --point names; repeatable.") var system: [String] = []
        @Option(parsing: .upToNextOption, help: "Query lengths in seconds.") var lengths: [Double] = [5, 10]
        @Option(parsing: .upToNextOption, help: "Condition ids (`fpbench benchmark --help` lists them).")
        var conditions: [String] = ["clean", "white-0dB", "babble-5dB", "room-0.8s"]
        @OptionGroup var counts: BenchmarkCounts
        @Option(help: "Output folder.") var out = "runs/operating-points"
        @OptionGroup var options: RunOptions

        func run() throws {
            let spec = try counts.spec(lengths: lengths, conditions: conditions)
            let systems = try system.map { file in try validated { try OutsideSystem(file: file) } }
            var algorithms: [AnyAlgorithm] = [], variants: [OutsideSystem] = []
            for point in try points.map(Self.parse) {
                if let found = systems.first(where: { $0.identifier == point.target }) {
                    variants += try point.values.map { value in try validated { try found.variant([(point.parameter, value)]) } }
                } else {
                    guard let base = try? options.external.resolve([point.target])[0] else {
                        throw ValidationError("--point \(point.target).\(point.parameter): '\(point.target)' is neither an algorithm (`fpbench algorithms`) nor a system given with --system"
                                              + (systems.isEmpty ? "" : " (\(systems.map(\.identifier).joined(separator: ", ")))"))
                    }
                    algorithms += try point.values.map { value in
                        try validated { try base.variant([(point.parameter, value)], identifier: "\(point.target)@\(point.parameter)=\(value)") }
                    }
                }
            }
            let names = algorithms.map(\.identifier) + variants.map(\.identifier)
            if let twice = names.first(where: { name in names.filter { $0 == name }.count > 1 }) { throw ValidationError("\(twice) is asked for twice") }
            let folder = URL(fileURLWithPath: out)
            var configuration = options.benchmarkConfiguration(dataset: try options.loadDataset(default: "catalog"), algorithms: algorithms, spec: spec)
            configuration.systems = variants
            configuration.systemStateFolder = BenchmarkChoice.systemState(counts.systemState, options: options, out: folder)
            try BenchmarkCommand.run(configuration, writingTo: folder)
        }

        /// "constellation.fanOut=1,3,10" as its target, parameter and values.
        static func parse(_ text: String) throws -> (target: String, parameter: String, values: [String]) {
            let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let dot = parts[0].lastIndex(of: "."), dot != parts[0].startIndex, parts[0].index(after: dot) != parts[0].endIndex else {
                throw ValidationError("--point \(text): write TARGET.PARAMETER=V1,V2,..., as --point constellation.fanOut=1,3,10")
            }
            let values = parts[1].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard values.count >= 2, !values.contains(where: \.isEmpty), Set(values).count == values.count else {
                throw ValidationError("--point \(text): give at least two different values, separated by commas")
            }
            return (String(parts[0][..<dot]), String(parts[0][parts[0].index(after: dot)...]), values)
        }
    }
}
