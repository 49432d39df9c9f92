import ArgumentParser
import AudioIO
import BenchmarkEvaluation
import Evaluation
import Fingerprinting
import Foundation
import OutsidePrograms
import Reporting

struct BenchmarkCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "benchmark",
        abstract: "Identification at catalog scale: find short, degraded queries among hours of whole tracks.",
        discussion: """
        Indexes every catalog track of the dataset once per algorithm (each file decoded once for all \
        algorithms, fingerprints cached by the file's checksum), then cuts seeded queries at random \
        positions of random tracks (the ground truth: track and offset), degrades each under every \
        condition (by default: \(BenchmarkSpec().conditions.map { $0.id == $0.title ? $0.id : "\($0.id) (\($0.title))" }.joined(separator: "; "))) \
        and searches each algorithm's own index. Negative queries, cut from recordings not in the \
        catalog, calibrate each algorithm's "no match" threshold to 1 % false positives on one half and \
        measure it on the other, held out.

        Writes into --out: summary.md (correct top-1 with 95 % Wilson intervals per query length and \
        condition, at the calibrated and the documented threshold; false positives; costs), \
        answers.csv (one row per algorithm × query × condition), metrics.csv, results.json (no timings: \
        the same seed gives the same bytes), costs.json (indexing speed, index size, search time per \
        query, peak memory) and SVG figures. `fpbench report OUT/results.json` regenerates the tables.

        Examples:
          fpbench benchmark                                     the default catalog (about 13 h, 206 tracks)
          fpbench benchmark --dataset catalog-ci --queries 20 --negatives 20
          fpbench benchmark --lengths 2 10 --conditions clean white-0dB --algorithms constellation haitsma-kalker
          fpbench benchmark --scaling                           adds search time against catalog size (1/16 ... all)
          fpbench benchmark --no-cache --peer-tracks 20         indexing speed beside fpcalc's on the same 20 files
          fpbench benchmark --spec my-conditions.json           lengths, counts and conditions from a file
          fpbench benchmark --shard 0/4 --out runs/part-0       one of four parts (fpbench merge gathers them)
          fpbench benchmark --catalog-shard 1/4 --key-counts keys --count-keys   slice 1 of 4 of the catalog: stage one
          fpbench benchmark --catalog-shard 1/4 --key-counts keys --out s1       stage two (fpbench merge ranks the slices)
          fpbench benchmark --system Systems/olaf/olaf.json     an outside system beside the algorithms (docs/systems.md: "Adding a system")

        Outside systems (--system FILE, or "systems" in a spec file) get the same degraded queries as WAV \
        files at the rate they ask for. Each indexes the catalog once into --system-state (default: \
        .fpbench-cache/systems, so later runs and shards reuse it); a system that is not installed is \
        skipped with its install line, and one that fails, hangs or prints what cannot be read is named \
        with the query, while the run goes on.
        """)

    @Option(parsing: .upToNextOption, help: AlgorithmNames.help("Algorithms (default: every built-in one; brute-force ones are skipped above bruteForceHourLimit hours)."),
            completion: AlgorithmNames.completion)
    var algorithms: [String] = []
    @Option(help: "A benchmark spec file (JSON): queryLengths, queriesPerLength, negativesPerLength, conditions, offsetTolerance, falsePositiveTarget, falsePositiveConfidence, bruteForceHourLimit, systems, startGrid.")
    var spec: String?
    @Option(parsing: .upToNextOption, help: "Query lengths in seconds (default \(BenchmarkSpec().queryLengths.map { String(format: "%g", $0) }.joined(separator: " ")))." ) var lengths: [Double] = []
    @OptionGroup var counts: BenchmarkCounts
    @Option(parsing: .upToNextOption, help: "Condition ids to keep (default: all of the spec's).") var conditions: [String] = []
    @Flag(help: "Also measure accuracy and search time against catalogs of 1/16, 1/8, 1/4, 1/2 and all of the tracks (longest query length, clean).")
    var scaling = false
    @Flag(help: "The same as --missing-recordings leave-out (kept for older scripts).") var ownRecordingsOnly = false
    @Option(help: "Also time Chromaprint's fpcalc on this many catalog tracks, the same files, as the peer for indexing speed (0: off).")
    var peerTracks = 0
    @Option(parsing: .upToNextOption, help: "Index files (fpbench index build) to map instead of indexing, one per algorithm at most.") var index: [String] = []
    @Option(help: "Answer only part I of N of the queries (I from 0; every part indexes the whole catalog); `fpbench merge` gathers the parts.")
    var shard: String?
    @Option(help: "Hold only slice J of M of the catalog (J from 0; contiguous tracks, about 1/M of its hours and of the index), so no part needs the whole index; needs --key-counts. Stage one: every slice with --count-keys; stage two: every slice (with --shard if you like) without it; `fpbench merge` then ranks the slices' candidates as the whole catalog does. Sliceable algorithms: \(AlgorithmRegistry.identifiers(with: .sliceable).joined(separator: ", ")) and their variants.")
    var catalogShard: String?
    @Option(help: "With --catalog-shard: the folder, shared by every part, where stage one writes each slice's key counts and stage two reads them all (a key common in the whole catalog is skipped in every slice).")
    var keyCounts: String?
    @Flag(help: "With --catalog-shard: stage one only: count the keys this slice's tracks post into --key-counts (their fingerprints go to the cache), then stop.")
    var countKeys = false
    @Option(help: "A system file (Systems/NAME/NAME.json), or one of its named variants (FILE@NAME: Systems/olaf/olaf.json@over-the-air): an outside system run beside the algorithms; repeatable.")
    var system: [String] = []
    @Option(help: "Output folder.") var out = "runs/benchmark"
    @OptionGroup var keep: KeepAudioOptions
    @OptionGroup var options: RunOptions

    func validate() throws {
        guard peerTracks >= 0 else { throw ValidationError("--peer-tracks must be 0 (off) or more, got \(peerTracks)") }
    }

    func run() throws {
        let dataset = try options.loadDataset(default: "catalog")
        let spec = try BenchmarkChoice.spec(try validated { try self.spec.map(BenchmarkSpec.load) ?? BenchmarkSpec() },
                                            lengths: lengths, conditions: conditions, queries: counts.queries, negatives: counts.negatives)
        let systems = try (system + (spec.systems ?? [])).map { file in try validated { try OutsideSystem(file: file) } }
        let chosen = try options.external.resolve(algorithms, systems: systems)
        var configuration = options.benchmarkConfiguration(dataset: dataset, algorithms: chosen, spec: spec,
                                                           scalingLength: scaling ? spec.queryLengths.max() : nil)
        if ownRecordingsOnly {
            guard [nil, .leaveOut].contains(options.missingRecordings) else { throw ValidationError("--own-recordings-only is --missing-recordings leave-out; give one of them") }
            configuration.missingRecordings = .leaveOut
        }
        configuration.peerTracks = peerTracks
        configuration.shard = try shard.map { text in try validated { try Shard(parsing: text) } }
        configuration.indexFiles = index
        configuration.catalogShard = try catalogShard.map { text in try validated { try CatalogShard(parsing: text) } }
        configuration.keyCountsFolder = keyCounts.map { URL(fileURLWithPath: $0) }
        guard configuration.catalogShard == nil || keyCounts != nil else {
            throw ValidationError("--catalog-shard needs --key-counts FOLDER: where stage one (--count-keys) writes every slice's key counts")
        }
        if countKeys {
            guard configuration.catalogShard != nil else { throw ValidationError("--count-keys is stage one of a catalog split in slices: give --catalog-shard J/M and --key-counts FOLDER") }
            let files = try validated { try Benchmark(configuration).countKeys() }
            for file in files { print(file.path) }
            return
        }
        let folder = URL(fileURLWithPath: out)
        keep.apply(to: &configuration.settings, folder: folder)
        configuration.systems = try options.external.apply(to: systems)
        configuration.systemStateFolder = BenchmarkChoice.systemState(counts.systemState, options: options, out: folder)
        try Self.run(configuration, writingTo: folder)
    }

    /// Runs the benchmark into `folder` (locked while it runs) and says what it did on standard error;
    /// exits with 2 when a query failed.
    static func run(_ configuration: BenchmarkConfiguration, writingTo folder: URL) throws {
        var results: BenchmarkResults!, costs: BenchmarkCosts!
        try OutputFolder.write(folder) { held in
            (results, costs) = try validated { try Benchmark(configuration).run() }
            try BenchmarkReport.write(results, costs: costs, into: held)
            try held.put(ReproductionCard(results).markdown(command: CommandLine.arguments), "reproduce.md")
        }
        let positions = results.queries.filter { !$0.negative }.count, negatives = results.queries.count - positions
        Console.note(String(format: "fpbench benchmark: %d algorithms and systems, each asked %d queries (%d positions × %d conditions + %d negatives), %.2f h catalog in %.1f s wall, %d failures, %d skipped",
                                                   results.algorithms.count, positions * results.spec.conditions.count + negatives, positions,
                                                   results.spec.conditions.count, negatives, results.catalog.hours, costs.wallSeconds,
                                                   results.failures.count, results.skipped.count))
        for problem in results.skipped { Console.note("skipped: \(problem.item): \(problem.reason)") }
        for failure in results.failures.prefix(20) { Console.error("\(failure.item): \(failure.reason)") }
        if results.shard == nil { for warning in BenchmarkMetrics(results).calibrationWarnings(results) { Console.warning("calibration: \(warning)") } }
        print(folder.appendingPathComponent("summary.md").path)
        if !results.failures.isEmpty { throw ExitCode(2) }
    }
}
