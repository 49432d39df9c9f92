import ArgumentParser
import AudioIO
import BenchmarkEvaluation
import Degradation
import Evaluation
import Fingerprinting
import Foundation
import Reporting
import SuiteEvaluation
import Sweeps

extension SweepCommand {

    struct Stage: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "stage",
            abstract: "Sweep one parameter of a degradation stage: speed, tempo, pitch, codec bitrate, filters, clipping, gain...",
            discussion: """
            Units and parameters as in suite files: \(StageUnits.sweepableParameters) (a room is a simulated shoebox \
            room: rt60 its measured reverberation time in seconds, distance the metres between loudspeaker and microphone). \
            Speed, tempo, pitch and gain hurt in both directions: breaking points are found on each side of the neutral \
            level (1, 1, 0 and 0). Negative levels just work (--from -2).

            Examples:
              fpbench sweep stage --unit speed --parameter factor --from 0.9 --to 1.1 --step 0.02
              fpbench sweep stage --unit codec --parameter kbps --from 32 --to 320 --step 32 --benchmark --length 10
              fpbench sweep stage --unit room --parameter rt60 --from 0.2 --to 2.6 --step 0.2 --benchmark --length 10
            """)

        @OptionGroup var common: Common
        @OptionGroup var target: Target
        @Option(help: "The stage: a unit with a number to sweep.") var unit: StageUnitName
        @Option(help: "The parameter swept, a number of the unit: \(StageUnits.sweepableParameters).") var parameter: String
        @Option(help: "For codec: its format.") var format = Codec.Format.mp3
        @Option(parsing: .unconditional, help: "First level.") var from: Double
        @Option(parsing: .unconditional, help: "Last level.") var to: Double
        @Option(help: "Step between levels (positive).") var step: Double
        @Option(help: "Output folder (default: runs/sweep-UNIT-PARAMETER).") var out: String?

        func validate() throws {
            let numbers = unit.type.numberFields
            guard numbers.contains(parameter) else {
                throw ValidationError(numbers.isEmpty ? "--unit \(unit.name) has no number to sweep; units with one: \(StageUnits.sweepableParameters)"
                                                      : "--unit \(unit.name) sweeps \(numbers.joined(separator: " or ")), not '\(parameter)'")
            }
        }

        func run() throws {
            let axis = StageAxis(unit: unit.name, parameter: parameter, fixed: unit.type == CodecStage.self ? ["format": format.rawValue] : [:])
            let levels = try grid(from: from, to: to, step: step)
            try validated { try SweepAxis.stage(axis).check(levels) }
            let folder = out ?? "runs/sweep-\(unit.name)-\(parameter)"
            let engine: any SweepEngine
            if target.benchmark {
                try common.refuseSuiteOnlyOptions()
                engine = BenchmarkSweep(base: try target.configuration(common.options, algorithms: common.algorithms))
            } else {
                engine = try common.suite(defaultTolerance: step / 8)
            }
            try SweepCommand.run(engine, axis: .stage(axis), levels: levels, thresholds: [0.9, 0.5], out: folder)
        }
    }
}

/// `--unit`: a stage unit by the name suite files give it; help and shell completion list `StageUnits.all`.
struct StageUnitName: ExpressibleByArgument {
    let type: any StageUnit.Type
    var name: String { type.name }
    init?(argument: String) {
        guard let type = StageUnits.named(argument) else { return nil }
        self.type = type
    }
    var defaultValueDescription: String { name }
    static var allValueStrings: [String] { StageUnits.all.map { $0.name } }
    static var defaultCompletionKind: CompletionKind { .list(allValueStrings) }
}

extension Codec.Format: ExpressibleByArgument {}
