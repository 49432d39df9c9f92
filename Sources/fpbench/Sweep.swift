import ArgumentParser
import AudioIO
import Evaluation
import Fingerprinting
import Foundation
import Reporting
import SuiteEvaluation
import Sweeps

struct SweepCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sweep",
        abstract: "Sweep any degradation parameter, an algorithm parameter, noise level or query length to find breaking points.",
        discussion: """
        On the thesis suite (test 1's crops, every source; --queries-per-source for more queries) with \
        breaking points refined by bisection, or with --benchmark on the identification benchmark (one \
        query length, seeded queries among hours of audio, correct top-1 at each algorithm's calibrated \
        threshold) with breaking points interpolated between grid levels. Every rate has its 95 % Wilson \
        interval; one chart per sweep.

        Examples:
          fpbench sweep stage --unit speed --parameter factor --from 0.9 --to 1.1 --step 0.02
          fpbench sweep stage --unit codec --parameter kbps --from 32 --to 320 --step 32 --benchmark
          fpbench sweep stage --unit pitch --parameter semitones --from -2 --to 2 --step 0.5
          fpbench sweep parameter --algorithm-parameter constellation.fanOut --values 1 3 5 10
          fpbench sweep noise --unit snr --from 30 --to -6 --step 3      (short form of a noise stage)
          fpbench sweep length                                          (query length, 0.5-8 s)
          fpbench sweep operating --point constellation.fanOut=1,3,10   (accuracy against index size and CPU)
          fpbench sweep skew --algorithms constellation                 (queries started between two frames)
        """,
        subcommands: [Stage.self, Parameter.self, Noise.self, Length.self, Operating.self, Skew.self])

    /// Options every sweep shares.
    struct Common: ParsableArguments {
        @Option(parsing: .upToNextOption, help: AlgorithmNames.help("Algorithms (default: all)."), completion: AlgorithmNames.completion) var algorithms: [String] = []
        @Option(help: "Bisection tolerance, in the level's unit.") var tolerance: Double?
        @OptionGroup var options: RunOptions
        @OptionGroup var draws: DrawOptions
        @Flag(help: "Crop on the thesis AFA's image grid (8,192 samples at 5,512 Hz), as the thesis's test 1 did.")
        var imageGrid = false
        @Option(help: "Sweep only part I of N of the algorithms (algorithm i in part i mod N; I from 0): each algorithm's levels and bisections are its own, so `fpbench merge` gathers the parts' sweep.json into the whole sweep.")
        var shard: String?

        /// With --benchmark: the options only the thesis suite's sweep takes are refused, not ignored.
        func refuseSuiteOnlyOptions() throws {
            let given = [shard.map { _ in "--shard" }, tolerance.map { _ in "--tolerance" }, imageGrid ? "--image-grid" : nil,
                         draws.count != 1 ? "--queries-per-source" : nil].compactMap { $0 }
            guard given.isEmpty else {
                throw ValidationError("\(given.joined(separator: ", ")) \(given.count == 1 ? "is" : "are") for the thesis suite's sweep; with --benchmark, "
                                      + "use --queries and --negatives, and split a benchmark sweep with `fpbench benchmark --spec` and --shard instead")
            }
        }

        /// The thesis suite's sweep with these options (bisection to --tolerance, else `defaultTolerance`).
        func suite(defaultTolerance: Double) throws -> SuiteSweep {
            if let tolerance, !(tolerance.isFinite && tolerance > 0) { throw ValidationError("--tolerance must be a positive number, got \(tolerance)") }
            return SuiteSweep(base: try options.configuration(algorithms: algorithms, suite: .thesis, draws: draws), imageGrid: imageGrid,
                              part: try shard.map { text in try validated { try Shard(parsing: text) } }, tolerance: tolerance ?? defaultTolerance)
        }
    }

    /// Measures `axis` at `levels` on `engine`, writes the report into `out` and says what it did.
    static func run(_ engine: some SweepEngine, axis: SweepAxis, levels: [Double], thresholds: [Double], out: String) throws {
        let started = Date()
        let record = try validated { try engine.sweep(axis, levels: levels, thresholds: thresholds) }
        let folder = URL(fileURLWithPath: out)
        try SweepReport.write(record, to: folder)
        let measured = Set(record.points.filter { $0.count > 0 }.map(\.level)), missing = levels.filter { !measured.contains($0) }
        if !missing.isEmpty {
            Console.warning(String(format: "fpbench sweep: no query could be made at %d of the %d levels (%@%@); a query length above the shortest reference?",
                                   missing.count, levels.count, missing.prefix(5).map { String(format: "%g", $0) }.joined(separator: ", "),
                                   missing.count > 5 ? ", ..." : ""))
        }
        Console.note(String(format: "fpbench sweep: %d levels measured × %d algorithms in %.1f s wall",
                            measured.count, engine.algorithms.count, Date().timeIntervalSince(started)))
        print(folder.appendingPathComponent("sweep.md").path)
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
