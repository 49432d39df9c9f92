import ArgumentParser
import Evaluation
import Fingerprinting
import Foundation
import Reporting

struct SweepCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sweep",
        abstract: "Sweep noise level or query length to find each algorithm's breaking point.",
        subcommands: [Noise.self, Length.self])

    /// Options every sweep shares.
    struct Common: ParsableArguments {
        @Option(parsing: .upToNextOption, help: "Algorithms (default: all).") var algorithms: [String] = []
        @Option(help: "Bisection tolerance, in the level's unit.") var tolerance: Double?
        @OptionGroup var options: RunOptions
        @OptionGroup var draws: DrawOptions
        @Flag(help: "Crop on the thesis AFA's image grid (8,192 samples at 5,512 Hz), as the thesis's test 1 did.")
        var imageGrid = false

        func run(axis: SweepAxis, levels: [Double], thresholds: [Double], defaultTolerance: Double, out: String) throws {
            if let tolerance, !(tolerance.isFinite && tolerance > 0) { throw ValidationError("--tolerance must be a positive number, got \(tolerance)") }
            let started = Date()
            let base = try options.configuration(algorithms: algorithms, suite: .thesis, draws: draws)
            let sweep = SweepRunner(base: base, axis: axis, cropGrid: imageGrid ? 8192.0 / 5512 : nil)
            let (points, results) = sweep.evaluate(levels)
            let breaking = sweep.breakingPoints(points, thresholds: thresholds, tolerance: tolerance ?? defaultTolerance)
            let folder = URL(fileURLWithPath: out)
            try SweepReport.write(.init(tool: fpbenchVersion, seed: options.seed, dataset: results.dataset.name, axis: axis.label,
                                        points: points, breakingPoints: breaking, failures: results.failures.count,
                                        references: results.references.count), to: folder)
            FileHandle.standardError.write(Data(String(format: "fpbench sweep: %d levels × %d algorithms in %.1f s wall\n",
                                                       levels.count, base.algorithms.count, Date().timeIntervalSince(started)).utf8))
            print(folder.appendingPathComponent("sweep.md").path)
        }
    }

    struct Noise: ParsableCommand {
        static let configuration = CommandConfiguration(
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
                guard dataset.manifest.noises.contains(where: { $0.id == id }) || FileManager.default.fileExists(atPath: id) else {
                    throw ValidationError("--kind \(id): not white, gaussian, pink, a noise of the dataset (\(dataset.manifest.noises.map(\.id).joined(separator: ", "))) or an audio file")
                }
            }
            let first = from ?? (unit == .dbfs ? -48 : 30), last = to ?? (unit == .dbfs ? 0 : -6)
            let levels = try grid(from: first, to: last, step: step ?? (unit == .dbfs ? 4 : 3))
            try common.run(axis: .noise(kind: source, unit: unit), levels: levels, thresholds: [0.9, 0.5],
                           defaultTolerance: 0.5, out: out)
        }
    }

    struct Length: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Test 1 with query lengths from 0.5 to 8 s: accuracy per length and the shortest length with 90 % top-1.",
            discussion: "Example: fpbench sweep length --algorithms haitsma-kalker constellation")

        @OptionGroup var common: Common
        @Option(parsing: .unconditional, help: "Shortest query, seconds.") var from: Double = 0.5
        @Option(parsing: .unconditional, help: "Longest query, seconds (at most the 9 s references).") var to: Double = 8
        @Option(help: "Step, seconds.") var step: Double = 0.5
        @Option(help: "Output folder.") var out = "runs/sweep-length"

        func run() throws {
            guard from > 0 else { throw ValidationError("--from must be above 0 s, got \(from)") }
            try common.run(axis: .queryLength, levels: try grid(from: from, to: to, step: step), thresholds: [0.9],
                           defaultTolerance: 0.05, out: out)
        }
    }
}

/// Levels from `from` to `to` (either direction) every `step`: at most `maximumLevels` of them.
func grid(from: Double, to: Double, step: Double, maximumLevels: Int = 1000) throws -> [Double] {
    guard from.isFinite, to.isFinite, abs(from) < 1e6, abs(to) < 1e6 else {
        throw ValidationError("--from and --to must be finite numbers of reasonable size, got \(from) and \(to)")
    }
    guard step.isFinite, step > 0 else { throw ValidationError("--step must be a positive number, got \(step)") }
    let span = abs(to - from) / step
    guard span < Double(maximumLevels) else {
        throw ValidationError("--from \(from) --to \(to) --step \(step) makes \(String(format: "%.3g", span + 1)) levels; at most \(maximumLevels)")
    }
    let count = Int((span + 1e-9).rounded(.down))
    return (0...count).map { from + Double($0) * step * (to >= from ? 1 : -1) }
}

extension SweepAxis.NoiseUnit: ExpressibleByArgument {}
