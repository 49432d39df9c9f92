import ArgumentParser
import AudioIO
import BenchmarkEvaluation
import Evaluation
import Fingerprinting
import Foundation
import SuiteEvaluation

/// The worker-thread option's help; the parser adds the default it found (this machine's cores).
let threadsHelp: ArgumentHelp = "Worker threads, one per core unless given."

/// One line naming the file and the reason (audio errors name their file themselves).
func describe(_ error: Error, file: String) -> String {
    error is AudioError ? "\(error)" : "\(file): \(error)"
}

/// Runs `body`, turning any error into one line naming `file` and a failing exit code.
func reportingFailure<T>(_ file: String, _ body: () throws -> T) throws -> T {
    do { return try body() } catch {
        Console.error(describe(error, file: file))
        throw ExitCode.failure
    }
}

/// Runs `body`, turning its error into a one-line usage error.
func validated<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch { throw ValidationError("\(error)") }
}

/// A window from --start/--duration, or nil for the whole file.
func timeWindow(start: Double?, duration: Double?) throws -> TimeWindow? {
    switch (start, duration) {
    case (nil, nil): return nil
    case (let s?, let d?): return TimeWindow(start: s, duration: d)
    default: throw ValidationError("--start and --duration go together")
    }
}

/// A query is searched (`identify`) or compared (`compare`) on its first two minutes: an answer needs seconds,
/// and verification grows with the query (panako@dense had not answered an hour-long query after 900 s).
let longestQuery = 120.0

/// Writes to a temporary file beside `path`, then renames it into place.
func writeAtomically(_ data: Data, to path: String) throws {
    try data.write(to: URL(fileURLWithPath: path), options: .atomic)
}

/// The options every command that runs algorithms on a dataset shares: `run`, `sweep`,
/// `compare-algorithms` and `benchmark`.
struct RunOptions: ParsableArguments {
    @Option(help: "Dataset name (Datasets/NAME/manifest.json) or a manifest path (default: default; catalog for benchmark).")
    var dataset: String?
    @Option(help: "Seed for every random choice (crops, tracks, offsets, noise, drift, delay).") var seed: UInt64 = 2013
    @Option(help: "Fingerprint cache folder.") var cache = ".fpbench-cache/fingerprints"
    @Flag(help: "Do not read or write the fingerprint cache.") var noCache = false
    @Option(help: threadsHelp) var threads = ProcessInfo.processInfo.activeProcessorCount
    @Option(help: "When a stage names a noise or impulse response the dataset lacks: refuse the run (the suite's default), leave-out what needs it (the suite's stage, marked †; the benchmark's condition, listed as skipped), or borrow the project's own from Datasets/default, checked against its checksums and named in the results (the benchmark's default).")
    var missingRecordings: MissingRecordingPolicy?
    @OptionGroup var external: ExternalOption
    @OptionGroup var progress: ProgressOptions

    func validate() throws {
        guard (1...256).contains(threads) else { throw ValidationError("--threads must be 1 to 256, got \(threads)") }
    }

    func loadDataset(default name: String = "default") throws -> Dataset { try validated { try Dataset.load(dataset ?? name) } }

    var cacheFolder: URL? { noCache ? nil : URL(fileURLWithPath: cache) }

    /// What both engines are told: `algorithms` on `dataset` with these options; a missing recording does what
    /// --missing-recordings says, else the engine's own default.
    func settings(dataset: Dataset, algorithms: [AnyAlgorithm], missingByDefault: MissingRecordingPolicy) -> RunSettings {
        RunSettings(dataset: dataset, algorithms: algorithms, seed: seed, threads: threads, cacheFolder: cacheFolder, progress: progress.mode,
                    toolVersion: fpbenchVersion, missingRecordings: missingRecordings ?? missingByDefault)
    }

    /// The benchmark on `dataset`; the noises and impulse responses it lacks are borrowed from the project's own
    /// set unless --missing-recordings says otherwise.
    func benchmarkConfiguration(dataset: Dataset, algorithms: [AnyAlgorithm], spec: BenchmarkSpec, scalingLength: Double? = nil) -> BenchmarkConfiguration {
        BenchmarkConfiguration(settings(dataset: dataset, algorithms: algorithms, missingByDefault: .borrow), spec: spec, scalingLength: scalingLength)
    }

    /// A run of `algorithms` (all when empty) on `suite`, `draws.count` queries per source and test; a missing
    /// recording refuses the run unless --missing-recordings says otherwise.
    func configuration(algorithms: [String], suite: Suite, draws: DrawOptions) throws -> RunConfiguration {
        var configuration = RunConfiguration(settings(dataset: try loadDataset(), algorithms: try external.resolve(algorithms), missingByDefault: .refuse),
                                             suite: suite)
        configuration.queriesPerSource = draws.count
        return configuration
    }
}

extension ProgressMode: ExpressibleByArgument {}
extension MissingRecordingPolicy: ExpressibleByArgument {}
extension KeepAudio: ExpressibleByArgument {}

/// `--keep-audio failures|all` and its size cap: the audio behind answers, for the report page's players.
struct KeepAudioOptions: ParsableArguments {
    @Option(help: "Keep the audio behind answers as WAV in the output folder, for report.html's players: failures (answers that were not correct: the query, the excerpt it should have matched and the one it did), all, or none.")
    var keepAudio = KeepAudio.none
    @Option(help: "Most megabytes of audio --keep-audio writes (failing answers of the longest queries first).") var keepAudioLimit = KeepAudio.defaultLimitMegabytes

    func validate() throws {
        guard (1...1_000_000).contains(keepAudioLimit) else { throw ValidationError("--keep-audio-limit must be 1 to 1,000,000 MB, got \(keepAudioLimit)") }
    }

    /// These choices for a run writing into `folder`.
    func apply(to settings: inout RunSettings, folder: URL) {
        settings.keepAudio = keepAudio
        settings.keepAudioFolder = folder
        settings.keepAudioLimitBytes = keepAudioLimit * 1_000_000
    }
}

/// `--progress MODE` and `--quiet`: what a long command says on standard error while it works.
struct ProgressOptions: ParsableArguments {
    @Option(help: "terminal (one line updated in place), plain (a line every 10 % or 30 s, for logs) or none (default: terminal when standard error is a terminal, else plain).")
    var progress: ProgressMode?
    @Flag(help: "No progress lines (the same as --progress none); results and errors are still printed.") var quiet = false

    var mode: ProgressMode { quiet ? .none : progress ?? .automatic }
}

/// `--queries-per-source N`: several seeded queries per source and test, for rates with narrower intervals.
struct DrawOptions: ParsableArguments {
    @Option(name: .customLong("queries-per-source"),
            help: "Queries per source and test, each with its own seeded crop and draws (the thesis: 1; 10 gives rates with useful intervals).")
    var count = 1

    func validate() throws {
        guard (1...1000).contains(count) else { throw ValidationError("--queries-per-source must be 1 to 1,000, got \(count)") }
    }
}

/// `--suite FILE` and `--tests ID...`: which tests to run.
struct SuiteOptions: ParsableArguments {
    @Option(name: .customLong("suite"), help: "A suite file (JSON); `\"extends\": \"thesis\"` adds to or overrides the built-in tests (docs/commands.md: suite files).")
    var file: String?
    @Option(parsing: .upToNextOption, help: "Test ids to run (default: all of the suite).") var tests: [String] = []
    @OptionGroup var draws: DrawOptions
    @Flag(help: "The same as --missing-recordings leave-out (kept for older scripts).") var allowMissingStages = false

    func load() throws -> Suite { try validated { try (file.map(Suite.load) ?? .thesis).selecting(tests) } }

    /// `configuration` with --allow-missing-stages applied, or the refusal naming each test's missing recordings
    /// and the dataset's own (`RunConfiguration.checked`).
    func checked(_ configuration: RunConfiguration, given option: MissingRecordingPolicy?) throws -> RunConfiguration {
        var configuration = configuration
        if allowMissingStages {
            guard option == nil || option == .leaveOut else { throw ValidationError("--allow-missing-stages is --missing-recordings leave-out; give one of them") }
            configuration.missingRecordings = .leaveOut
        }
        return try configuration.checked()
    }
}
