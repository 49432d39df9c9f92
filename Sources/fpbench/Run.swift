import ArgumentParser
import AudioIO
import BenchmarkEvaluation
import Evaluation
import Fingerprinting
import Foundation
import Reporting
import SuiteEvaluation
import Sweeps

struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the evaluation suite: every algorithm on every test, similarity matrices and a summary.",
        discussion: """
        The built-in `thesis` suite reproduces Brandner's four tests on the dataset's sources: 1 a 4 s crop \
        (at a seeded offset, and on the AFA's image grid), 2 4 s of a different recording, 3 test 1 plus \
        white noise at 1.58 % and 3.16 % of full scale, 4 a simulated loudspeaker-room-microphone chain. \
        Writes into --out: results.json (every score, parameters with their sources, seeds, checksums), \
        matrices/ALGORITHM/TEST.{csv,raw.csv,md} and summary.md. Fingerprints are cached in --cache, so \
        a second run, or one resumed after an interruption, only computes what is missing.

        Examples:
          fpbench run                                        the full suite on the default dataset
          fpbench run --dataset ci --algorithms afa-thesis constellation --tests test1-cropping
          fpbench run --suite my-suite.json --seed 7 --out runs/seed7 --keep-audio failures
          fpbench run --external Algorithms/chromaprint-fpcalc.json   (adds Chromaprint's fpcalc to the tables)
        """)

    @Option(parsing: .upToNextOption, help: AlgorithmNames.help("Algorithms to run (default: all)."), completion: AlgorithmNames.completion) var algorithms: [String] = []
    @OptionGroup var suite: SuiteOptions
    @Option(help: "Output folder.") var out = "runs/latest"
    @OptionGroup var keep: KeepAudioOptions
    @Option(help: "Run only part I of N of the suite's tests (test i in part i mod N; I from 0); `fpbench merge` gathers the parts.")
    var shard: String?
    @OptionGroup var options: RunOptions

    func run() throws {
        let started = Date()
        let outFolder = URL(fileURLWithPath: out)
        var configuration = try suite.checked(options.configuration(algorithms: algorithms, suite: try suite.load(), draws: suite.draws),
                                            given: options.missingRecordings)
        keep.apply(to: &configuration.settings, folder: outFolder)
        configuration.shard = try shard.map { text in try validated { try Shard(parsing: text) } }
        let chosen = configuration.algorithms, chosenSuite = configuration.suite
        var results: RunResults!
        try OutputFolder.write(outFolder) { held in
            results = Runner(configuration).run()
            try ReportWriter.write(results, into: held)
            try held.put(ReproductionCard(results).markdown(command: CommandLine.arguments), "reproduce.md")
        }
        let seconds = Date().timeIntervalSince(started)
        Console.note(String(format: "fpbench run: %d algorithms × %d tests in %.1f s wall, %d failures, %d skipped",
                                                   chosen.count, chosenSuite.tests.count, seconds, results.failures.count, results.skipped.count))
        for failure in results.failures { Console.error("\(failure.item): \(failure.reason)") }
        print(outFolder.appendingPathComponent("summary.md").path)
        if !results.failures.isEmpty { throw ExitCode(2) }
    }
}

struct Report: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Regenerate every table, figure and report.html from a results.json (or a sweep's sweep.json) alone.",
        discussion: """
        Works on the results of `fpbench run` and of `fpbench benchmark` (whose costs.json, beside it, adds the costs section), \
        and on a sweep's sweep.json. report.html shows players for the audio the run kept in its folder (--keep-audio).

        Examples:
          fpbench report runs/latest/results.json --out Reports/reference
          fpbench report runs/benchmark/results.json
          fpbench report Reports/sweep-noise/sweep.json
        """)

    /// A results file whose content no longer matches its seal is refused, and so is one without a seal (a deleted
    /// seal would otherwise pass an edited file), unless `acceptingUnsealed` (a file written before fpbench sealed
    /// its results), then with a warning that its figures cannot be checked.
    static func checkSeal<R: ShardedResults>(_ results: R, path: String, acceptingUnsealed: Bool = false) throws {
        if let broken = results.brokenSeal { throw ValidationError("\(path): \(broken)") }
        guard results.unsealed else { return }
        guard acceptingUnsealed else {
            throw ValidationError("\(path) carries no seal, so its figures cannot be checked; if fpbench wrote it before it sealed its results, "
                                  + "read it with `fpbench report --unsealed`")
        }
        Console.warning("\(path) carries no seal (written before fpbench sealed its results): its figures cannot be checked")
    }

    /// A file written by a later fpbench (its `tool` or `tool.version`) may mean other things by the same fields: refused.
    static func refuseNewer(_ data: Data, path: String) throws {
        let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        guard let written = (object?["tool"] as? [String: Any])?["version"] as? String ?? object?["tool"] as? String else { return }
        let numbers = { (text: String) in text.split(separator: ".").map { Int($0.prefix { $0.isNumber }) ?? 0 } }
        if numbers(written).lexicographicallyPrecedes(numbers(fpbenchVersion)) || numbers(written) == numbers(fpbenchVersion) { return }
        throw ValidationError("\(path) was written by fpbench \(written), newer than this fpbench \(fpbenchVersion): its fields may mean other things; "
                              + "read it with that version")
    }

    @Argument(help: "A results.json written by `fpbench run` or `fpbench benchmark`, or a sweep.json.") var results: String
    @Option(help: "Output folder (default: the results file's folder).") var out: String?
    @Flag(help: "Read a results file that carries no seal (one fpbench wrote before it sealed its results), with a warning.") var unsealed = false
    @Flag(help: "Judge a benchmark's wrong-offset answers by the repeated-passage rule (reading its catalog's audio, which must be the one it ran on) and write the results with the judgement.")
    var judgeRepeats = false

    func validate() throws {
        if judgeRepeats && unsealed { throw ValidationError("--judge-repeats writes a sealed results file; it cannot vouch for an unsealed one") }
    }

    /// The repeated passages of `r`, judged on its catalog's audio (the same manifest, checked by its SHA-256).
    static func judgedRepeats(_ r: BenchmarkResults) throws -> [RepeatedPassage] {
        let dataset = try validated { try Dataset.load(r.catalog.dataset) }
        guard dataset.manifestSHA256 == r.catalog.manifestSHA256 else {
            throw ValidationError("--judge-repeats: Datasets/\(r.catalog.dataset)'s manifest is not the one the benchmark ran on (SHA-256 \(r.catalog.manifestSHA256.prefix(12)))")
        }
        if let missing = r.catalog.tracks.first(where: { !FileManager.default.fileExists(atPath: dataset.path($0)) }) {
            throw ValidationError("--judge-repeats: \(dataset.path(missing)) is missing: fetch the catalog's audio first (scripts/fetch-dataset.sh \(r.catalog.dataset))")
        }
        let repeats = RepeatedPassages.judge(r, path: dataset.path, threads: ProcessInfo.processInfo.activeProcessorCount)
        Console.note("fpbench report: \(repeats.count) repeated passages among the wrong-offset answers")
        return repeats
    }

    func run() throws {
        guard let data = RegularFile.contents(results) else { throw ValidationError("\(results): no such file") }
        let folder = out.map { URL(fileURLWithPath: $0) } ?? URL(fileURLWithPath: results).deletingLastPathComponent()
        let kind = try validated { try ResultsKind.of(data, path: results) }
        try Self.refuseNewer(data, path: results)
        switch kind {
        case .sweep:
            let record = try validated { try SweepRecord.decode(data, path: results) }
            try Self.checkSeal(record, path: results, acceptingUnsealed: unsealed)
            try SweepReport.write(record, to: folder)
            print(folder.appendingPathComponent("sweep.md").path)
            return
        case .benchmark:
            var decoded = try validated { try BenchmarkResults.decode(data, path: results) }
            try Self.checkSeal(decoded, path: results, acceptingUnsealed: unsealed)
            if judgeRepeats { decoded.repeats = try Self.judgedRepeats(decoded) }
            let costsFile = URL(fileURLWithPath: results).deletingLastPathComponent().appendingPathComponent("costs.json")
            let costs = RegularFile.contents(costsFile.path).flatMap { try? JSONDecoder().decode(BenchmarkCosts.self, from: $0) }
            try BenchmarkReport.write(decoded, costs: costs, to: folder, includeResults: out != nil || judgeRepeats)
        case .suite:
            let decoded = try validated { try RunResults.decode(data, path: results) }
            try Self.checkSeal(decoded, path: results, acceptingUnsealed: unsealed)
            try ReportWriter.write(decoded, to: folder, includeResults: out != nil)
        }
        print(folder.appendingPathComponent("summary.md").path)
    }
}
