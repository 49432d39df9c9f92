import ArgumentParser
import AudioIO
import Degradation
import Evaluation
import Fingerprinting
import Foundation
import Reporting
import SuiteEvaluation
import Sweeps

extension SweepCommand {

    struct Noise: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "noise",
            abstract: "Test 1's queries with noise at each level: top-1 accuracy, mean diagonal and margin, and breaking points.",
            discussion: """
            Levels are a peak level in dBFS (the thesis's 1.58 % and 3.16 % of full scale are -36 and -30 dBFS) \
            or an SNR in dB. Kinds: white (uniform, as the thesis), gaussian, pink, babble (the dataset's), or \
            the path of any audio file. For each algorithm, the levels where top-1 accuracy falls below 90 % \
            and 50 % are refined by bisection. Writes sweep.md, sweep.csv, accuracy.svg, diagonal.svg, sweep.json.

            Examples: fpbench sweep noise                                  (-48 to 0 dBFS, step 4: 13 levels)
                      fpbench sweep noise --unit snr --from 30 --to -6 --step 3 --kind babble
                      fpbench sweep noise --algorithms afa-thesis --image-grid   (the thesis's ~3 % threshold)
            """)

        @OptionGroup var common: Common
        @Option(help: "dbfs (peak level) or snr.") var unit: SweepAxis.NoiseUnit = .dbfs
        @Option(parsing: .unconditional, help: "First level (negative values welcome: --from -48).") var from: Double?
        @Option(parsing: .unconditional, help: "Last level (--to -6).") var to: Double?
        @Option(help: "Step between levels (positive).") var step: Double?
        @Option(help: "white, gaussian, pink, babble, or an audio file.") var kind = "white"
        @Option(help: "Output folder.") var out = "runs/sweep-noise"

        func run() throws {
            let kinds = ["white": "white-uniform", "gaussian": "white-gaussian", "pink": "pink"]
            let source = NoiseSource(kinds[kind] ?? kind)
            if let id = source.recording {
                let dataset = try common.options.loadDataset()
                guard let path = dataset.recordingPath(id) else {
                    throw ValidationError("--kind \(id): not white, gaussian, pink, a noise of the dataset (\(dataset.manifest.noises.map(\.id).joined(separator: ", "))) or an audio file")
                }
                do { _ = try AudioReader.duration(path) } catch { throw ValidationError("--kind \(id): cannot be read as audio: \(error)") }
            }
            let first = from ?? (unit == .dbfs ? -48 : 30), last = to ?? (unit == .dbfs ? 0 : -6)
            let levels = try grid(from: first, to: last, step: step ?? (unit == .dbfs ? 4 : 3))
            try SweepCommand.run(try common.suite(defaultTolerance: 0.5), axis: .noise(kind: source, unit: unit), levels: levels,
                                 thresholds: [0.9, 0.5], out: out)
        }
    }

    struct Length: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "length",
            abstract: "Test 1 with query lengths from 0.5 to 8 s: accuracy per length and the shortest length with 90 % top-1.",
            discussion: "Example: fpbench sweep length --algorithms haitsma-kalker constellation")

        @OptionGroup var common: Common
        @Option(parsing: .unconditional, help: "Shortest query, seconds.") var from: Double = 0.5
        @Option(parsing: .unconditional, help: "Longest query, seconds (at most the 9 s references).") var to: Double = 8
        @Option(help: "Step, seconds.") var step: Double = 0.5
        @Option(help: "Output folder.") var out = "runs/sweep-length"

        func run() throws {
            guard from > 0 else { throw ValidationError("--from must be above 0 s, got \(from)") }
            try SweepCommand.run(try common.suite(defaultTolerance: 0.05), axis: .queryLength, levels: try grid(from: from, to: to, step: step),
                                 thresholds: [0.9], out: out)
        }
    }
}
