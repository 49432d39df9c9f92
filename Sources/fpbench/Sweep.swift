import ArgumentParser
import Evaluation
import Fingerprinting
import Foundation
import Reporting

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
        """,
        subcommands: [Stage.self, Parameter.self, Noise.self, Length.self])

    /// Options every sweep shares.
    struct Common: ParsableArguments {
        @Option(parsing: .upToNextOption, help: "Algorithms (default: all).") var algorithms: [String] = []
        @Option(help: "Bisection tolerance, in the level's unit.") var tolerance: Double?
        @OptionGroup var options: RunOptions
        @OptionGroup var draws: DrawOptions
        @Flag(help: "Crop on the thesis AFA's image grid (8,192 samples at 5,512 Hz), as the thesis's test 1 did.")
        var imageGrid = false
        @Option(help: "Sweep only part I of N of the algorithms (algorithm i in part i mod N; I from 0): each algorithm's levels and bisections are its own, so `fpbench merge` gathers the parts' sweep.json into the whole sweep.")
        var shard: String?

        func run(axis: SweepAxis, levels: [Double], thresholds: [Double], defaultTolerance: Double, out: String) throws {
            if let tolerance, !(tolerance.isFinite && tolerance > 0) { throw ValidationError("--tolerance must be a positive number, got \(tolerance)") }
            let started = Date()
            var base = try options.configuration(algorithms: algorithms, suite: .thesis, draws: draws)
            var part = try shard.map { text in try validated { try Shard(parsing: text) } }
            let all = base.algorithms
            if let part { base.algorithms = all.indices.filter { $0 % part.count == part.index }.map { all[$0] } }
            let sweep = SweepRunner(base: base, axis: axis, cropGrid: imageGrid ? 8192.0 / 5512 : nil)
            let (points, results) = sweep.evaluate(levels)
            let breaking = sweep.breakingPoints(points, thresholds: thresholds, tolerance: tolerance ?? defaultTolerance)
            let folder = URL(fileURLWithPath: out)
            var record = SweepReport.Record(tool: fpbenchVersion, seed: options.seed, dataset: results.dataset.name, axis: axis.label,
                                            points: points, breakingPoints: breaking, failures: results.failures.count,
                                            references: results.references.count)
            if part != nil {
                // What every part shares: the sweep's definition and every algorithm, in order.
                let text = "\(fpbenchVersion)|\(options.seed)|\(results.dataset.manifestSHA256)|\(axis.label)|\(levels)|\(thresholds)|"
                    + "\(tolerance ?? defaultTolerance)|\(imageGrid)|\(draws.count)|" + all.map { "\($0.identifier):\($0.profile.key)" }.joined(separator: ",")
                part?.configuration = sha256Hex(Data(text.utf8))
                record.shard = part
                record.algorithms = all.map(\.identifier)
            }
            try SweepReport.write(record, to: folder)
            FileHandle.standardError.write(Data(String(format: "fpbench sweep: %d levels × %d algorithms in %.1f s wall\n",
                                                       levels.count, base.algorithms.count, Date().timeIntervalSince(started)).utf8))
            print(folder.appendingPathComponent("sweep.md").path)
        }
    }

    /// Where a sweep runs: the thesis suite (default) or the identification benchmark.
    struct Target: ParsableArguments {
        @Flag(help: "Sweep on the identification benchmark (default dataset: catalog) instead of the thesis suite.") var benchmark = false
        @Option(help: "With --benchmark: the query length in seconds.") var length = 10.0
        @Option(help: "With --benchmark: positions per level (default 100).") var queries: Int?
        @Option(help: "With --benchmark: negative queries, for the calibrated threshold (default 100).") var negatives: Int?

        func configuration(_ options: RunOptions, algorithms: [String]) throws -> BenchmarkConfiguration {
            guard length > 0 && length <= 600 else { throw ValidationError("--length must be above 0 and at most 600 s") }
            var spec = BenchmarkSpec()
            spec.queryLengths = [length]
            if let queries { spec.queriesPerLength = queries }
            if let negatives { spec.negativesPerLength = negatives }
            try validated { try spec.validate(path: "options") }
            return BenchmarkConfiguration(dataset: try options.loadDataset(default: "catalog"), algorithms: try options.external.resolve(algorithms),
                                          spec: spec, seed: options.seed, threads: options.threads, cacheFolder: options.cacheFolder,
                                          showProgress: true, toolVersion: fpbenchVersion)
        }

        /// Writes a benchmark sweep's report; breaking points interpolated.
        func write(_ points: [SweepPoint], axis: SweepAxis, thresholds: [Double], results: BenchmarkResults, out: String) throws {
            let breaking = thresholds.isEmpty ? [] : BreakingPoints.all(points, axis: axis, algorithms: SweepReport.orderedUnique(points.map(\.algorithm)),
                                                                      thresholds: thresholds, tolerance: 0, evaluate: nil)
            let folder = URL(fileURLWithPath: out)
            try SweepReport.write(.init(tool: fpbenchVersion, seed: results.seed, dataset: results.catalog.dataset, axis: axis.label, points: points,
                                        breakingPoints: breaking, failures: results.failures.count, references: nil,
                                        rate: String(format: "correct top-1 (%g s queries, %.0f %% false positives)", length, 100 * results.spec.falsePositiveTarget),
                                        refinement: "interpolation"), to: folder)
            print(folder.appendingPathComponent("sweep.md").path)
        }
    }

    struct Stage: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Sweep one parameter of a degradation stage: speed, tempo, pitch, codec bitrate, filters, clipping, gain...",
            discussion: """
            Units and parameters as in suite files: speed factor, tempo factor, pitch semitones, codec kbps \
            (MP3) or compression (--format), gain dB, clipping dBFS or share, compressor threshold or ratio, \
            lowpass hz, highpass hz. Speed, tempo, pitch and gain hurt in both directions: breaking points \
            are found on each side of the neutral level (1, 1, 0 and 0). Negative levels just work (--from -2).

            Examples:
              fpbench sweep stage --unit speed --parameter factor --from 0.9 --to 1.1 --step 0.02
              fpbench sweep stage --unit codec --parameter kbps --from 32 --to 320 --step 32 --benchmark --length 10
            """)

        @OptionGroup var common: Common
        @OptionGroup var target: Target
        @Option(help: "The stage: speed, tempo, pitch, codec, gain, clipping, compressor, lowpass, highpass.") var unit: String
        @Option(help: "The parameter swept: factor, semitones, kbps, compression, dB, dBFS, share, threshold, ratio, hz.") var parameter: String
        @Option(help: "For codec: mp3, ogg or opus.") var format = "mp3"
        @Option(parsing: .unconditional, help: "First level.") var from: Double
        @Option(parsing: .unconditional, help: "Last level.") var to: Double
        @Option(help: "Step between levels (positive).") var step: Double
        @Option(help: "Output folder (default: runs/sweep-UNIT-PARAMETER).") var out: String?

        func run() throws {
            let axis = StageAxis(unit: unit, parameter: parameter, fixed: unit == "codec" ? ["format": format] : [:])
            let levels = try grid(from: from, to: to, step: step)
            try validated { try SweepAxis.stage(axis).check(levels) }
            let folder = out ?? "runs/sweep-\(unit)-\(parameter)"
            if target.benchmark {
                let started = Date()
                let (points, results, _) = try validated { try BenchmarkSweep(base: try target.configuration(common.options, algorithms: common.algorithms)).run(axis, levels: levels) }
                try target.write(points, axis: .stage(axis), thresholds: [0.9, 0.5], results: results, out: folder)
                FileHandle.standardError.write(Data(String(format: "fpbench sweep: %d levels on the benchmark in %.1f s wall\n", levels.count, Date().timeIntervalSince(started)).utf8))
            } else {
                try common.run(axis: .stage(axis), levels: levels, thresholds: [0.9, 0.5], defaultTolerance: step / 8, out: folder)
            }
        }
    }

    struct Parameter: ParsableCommand {
        static let configuration = CommandConfiguration(
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
            let axisLabel = "\(name) \(parameter)"
            if target.benchmark {
                var base = try target.configuration(options, algorithms: [name])
                guard let chosen = base.spec.conditions.first(where: { $0.id == condition }) else {
                    throw ValidationError("unknown condition '\(condition)'; known: \(base.spec.conditions.map(\.id).joined(separator: ", "))")
                }
                base.algorithms = [algorithm]
                let (points, results, _) = try validated { try BenchmarkSweep(base: base).run(algorithm, parameter: parameter, values: numbers, condition: chosen) }
                try SweepReport.write(.init(tool: fpbenchVersion, seed: results.seed, dataset: results.catalog.dataset, axis: axisLabel, points: points,
                                            breakingPoints: [], failures: results.failures.count, references: nil,
                                            rate: String(format: "correct top-1 (%g s queries, %@, %.0f %% false positives)", target.length, condition,
                                                         100 * results.spec.falsePositiveTarget),
                                            refinement: "interpolation"), to: folder)
            } else {
                let suite = try validated { try Suite.thesis.selecting([test]) }
                let base = try options.configuration(algorithms: [name], suite: suite, draws: draws)
                let (points, results) = SweepRunner.evaluate(variants: algorithm, parameter: parameter, values: numbers, base: base)
                try SweepReport.write(.init(tool: fpbenchVersion, seed: options.seed, dataset: results.dataset.name, axis: "\(axisLabel) (\(test))",
                                            points: points, breakingPoints: [], failures: results.failures.count,
                                            references: results.references.count), to: folder)
            }
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
