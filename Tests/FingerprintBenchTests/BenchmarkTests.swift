import AudioIO
import BenchmarkEvaluation
import DSP
import Evaluation
import Fingerprinting
import Foundation
import Reporting
import SuiteEvaluation
import Testing

/// The small benchmark catalog (built by `scripts/fetch-dataset.sh catalog-ci`).
func catalogCIDataset() throws -> Dataset {
    try Dataset.load(URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Datasets/catalog-ci/manifest.json").path)
}

/// A small benchmark: two indexed algorithms, 5 s queries, clean and 0 dB white noise.
func smallBenchmark(threads: Int, cache: URL?, shard: Shard? = nil, seed: UInt64 = 2013) throws -> (BenchmarkResults, BenchmarkCosts) {
    var spec = BenchmarkSpec()
    spec.queryLengths = [5]
    spec.queriesPerLength = 6
    spec.negativesPerLength = 6
    spec.conditions = spec.conditions.filter { ["clean", "white-0dB"].contains($0.id) }
    let algorithms = try ["constellation", "haitsma-kalker"].map(AlgorithmRegistry.algorithm)
    var configuration = BenchmarkConfiguration(testSettings(try catalogCIDataset(), algorithms, seed: seed, threads: threads, cache: cache, missing: .borrow),
                                               spec: spec, scalingLength: 5)
    configuration.shard = shard
    return try Benchmark(configuration).run()
}

@Suite(.serialized) struct IndexFileTests {
    /// Catalogs written to index files and mapped back answer exactly as the catalogs built in the run;
    /// a file of another algorithm, of other parameters, or cut short is refused with the reason.
    @Test func aMappedIndexAnswersAsTheBuiltOne() throws {
        let cache = temporaryFolder(), folder = temporaryFolder()
        let algorithms = try ["constellation", "haitsma-kalker"].map(AlgorithmRegistry.algorithm)
        let configuration = BenchmarkConfiguration(testSettings(try catalogCIDataset(), algorithms, seed: 0, cache: cache, missing: .borrow),
                                                   spec: BenchmarkSpec())
        let (catalogs, failures) = try Benchmark(configuration).indexer.buildCatalogs(algorithms, progress: ProgressReporter(.none))
        #expect(failures.isEmpty && catalogs.count == 2)
        let files = try catalogs.map { catalog in
            let path = folder.appendingPathComponent("\(catalog.algorithm.identifier).fpindex").path
            try catalog.save(to: path)
            return path
        }
        let built = try smallBenchmark(threads: 2, cache: cache)
        var spec = BenchmarkSpec()
        spec.queryLengths = [5]
        spec.queriesPerLength = 6
        spec.negativesPerLength = 6
        spec.conditions = spec.conditions.filter { ["clean", "white-0dB"].contains($0.id) }
        var mapped = BenchmarkConfiguration(testSettings(try catalogCIDataset(), algorithms, seed: 2013, cache: cache, missing: .borrow),
                                            spec: spec, scalingLength: 5)
        mapped.indexFiles = files
        let (results, costs) = try Benchmark(mapped).run()
        #expect(try results.encoded() == built.0.encoded())
        #expect(costs.algorithms.allSatisfy { ($0.indexFileBytes ?? 0) > 0 && $0.indexLoadSeconds != nil && $0.catalogSeconds > 400 })

        #expect { try Catalog(algorithm: algorithms[1], indexFile: files[0]) } throws: { "\($0)".contains("was written for constellation, not haitsma-kalker") }
        let variant = try AlgorithmRegistry.algorithm("constellation@fanOut=5")
        #expect { try Catalog(algorithm: variant, indexFile: files[0]) } throws: { "\($0)".contains("was written for constellation, not constellation@fanOut=5") }
        let data = try Data(contentsOf: URL(fileURLWithPath: files[0]))
        let cut = folder.appendingPathComponent("cut.fpindex")
        try data.prefix(data.count / 2).write(to: cut)
        #expect { try Catalog(algorithm: algorithms[0], indexFile: cut.path) } throws: { "\($0)".contains("outside the file (truncated?)") }
        try Data("not an index".utf8).write(to: cut)
        #expect { try Catalog(algorithm: algorithms[0], indexFile: cut.path) } throws: { "\($0)".contains("too short") || "\($0)".contains("not an fpbench index file") }
        var older = data
        older.replaceSubrange(0..<16, with: Data("FPBENCH-INDEX v1".utf8))
        try older.write(to: cut)
        #expect { try Catalog(algorithm: algorithms[0], indexFile: cut.path) } throws: { "\($0)".contains("another version of fpbench (FPBENCH-INDEX v1") }
        // A fingerprint section whose field table is damaged is refused by its checksum when it is first read
        // (opening reads the header only); `index verify` reads it.
        var damaged = data
        let print = try #require(damaged.range(of: Data("FPC1".utf8)))
        damaged.replaceSubrange(print.upperBound..<(print.upperBound + 4), with: Data([0xFF, 0xFF, 0, 0]))
        try damaged.write(to: cut)
        let opened = try Catalog(algorithm: algorithms[0], indexFile: cut.path)
        #expect { try opened.verifyAll() } throws: { "\($0)".contains("section print.0 does not match its checksum") }
    }
}

@Suite(.serialized) struct ShardTests {
    /// A suite run in three parts (test i in part i mod 3), merged, is the whole run byte for byte,
    /// skipped tests and pair measures included.
    @Test func mergedSuitePartsAreTheWholeRun() throws {
        func run(_ shard: Shard?, policy: MissingRecordingPolicy = .leaveOut) throws -> RunResults {
            var configuration = RunConfiguration(testSettings(try ciDataset(), try ["haitsma-kalker", "constellation"].map(AlgorithmRegistry.algorithm),
                                                 seed: 2013, missing: .refuse), suite: .thesis)
            configuration.queriesPerSource = 2
            configuration.missingRecordings = policy  // the ci dataset has no impulse responses
            configuration.shard = shard
            return Runner(configuration).run()
        }
        let whole = try run(nil)
        let parts = try (0..<3).map { (path: "part-\($0)", results: try run(Shard(index: $0, count: 3))) }
        #expect(parts.allSatisfy { $0.results.tests.count < whole.tests.count })
        #expect(try RunResults.merge(parts.reversed()).encoded() == whole.encoded())
        #expect { try RunResults.merge(Array(parts.prefix(2))) } throws: { "\($0)".contains("part 2 of 3 missing") }
        // One configuration key: each part's is its shared fields and its definition; a part of a run that differs
        // only in what its file does not show (the missing-recording policy) is another run's.
        #expect(parts.allSatisfy { $0.results.configurationKey == $0.results.shard?.configuration })
        let refusing = try run(Shard(index: 1, count: 3), policy: .refuse)
        #expect(refusing.tests == parts[1].results.tests && refusing.shard?.configuration != parts[1].results.shard?.configuration)
        #expect { try RunResults.merge([parts[0], ("other", refusing), parts[2]]) } throws: { "\($0)".contains("comes from another configuration") }
    }

    /// Three parts, merged, are the unsharded benchmark byte for byte; a missing, repeated or foreign
    /// part is named.
    @Test func mergedPartsAreTheWholeRun() throws {
        let cache = temporaryFolder()
        let whole = try smallBenchmark(threads: 2, cache: cache).0
        let parts = try (0..<3).map { ("part-\($0)", try smallBenchmark(threads: 2, cache: cache, shard: Shard(index: $0, count: 3)).0) }
        #expect(parts.allSatisfy { $0.1.answers.count < whole.answers.count && $0.1.shard?.configuration == parts[0].1.shard?.configuration })
        let merged = try BenchmarkResults.merge(parts.reversed().map { (path: $0.0, results: $0.1) })
        #expect(try merged.encoded() == whole.encoded())

        #expect { try BenchmarkResults.merge([parts[0], parts[2]].map { (path: $0.0, results: $0.1) }) } throws: { "\($0)".contains("part 1 of 3 missing") }
        #expect { try BenchmarkResults.merge([parts[0], parts[1], parts[1], parts[2]].map { (path: $0.0, results: $0.1) }) } throws: {
            "\($0)".contains("part-1: part 1 is given twice")
        }
        let foreign = try smallBenchmark(threads: 2, cache: cache, shard: Shard(index: 2, count: 3), seed: 7).0
        #expect { try BenchmarkResults.merge([parts[0], parts[1], ("other", foreign)].map { (path: $0.0, results: $0.1) }) } throws: {
            "\($0)".contains("other: comes from another configuration")
        }
        // Read from files, the part of another run is named with the fields that differ.
        let files = try [("part-0", parts[0].1), ("part-1", parts[1].1), ("other", foreign)].map { (path: $0.0, data: try $0.1.sealed().encoded()) }
        #expect { try BenchmarkResults.merge(files: files) } throws: { "\($0)".contains("other: comes from another run than part-0: they differ in queries, seed (7, not 2013)") }
        #expect { try BenchmarkResults.merge([(path: "whole", results: whole)]) } throws: { "\($0)".contains("not a shard's part") }
        #expect(throws: (any Error).self) { try Shard(parsing: "3/3") }
        #expect(try Shard(parsing: "2/3") == Shard(index: 2, count: 3))
    }
}

@Suite(.serialized) struct BenchmarkTests {
    @Test func aBenchmarkHasTheExpectedShapeAndTheSameBytesWithOneThreadOrTwo() throws {
        let cache = temporaryFolder()
        let (results, costs) = try smallBenchmark(threads: 2, cache: cache)
        let (again, warm) = try smallBenchmark(threads: 1, cache: cache)
        #expect(try results.encoded() == again.encoded())
        #expect(warm.algorithms.allSatisfy { $0.fingerprintsFromCache == results.catalog.tracks.count })

        // 6 positives × 2 conditions + 6 negatives (clean), for each of 2 algorithms; no failures.
        #expect(results.queries.count == 12)
        #expect(results.answers.count == 2 * (6 * 2 + 6))
        #expect(results.failures.isEmpty && results.catalog.tracks.count == 7)
        #expect(results.answers.allSatisfy { $0.top.count <= 5 })

        // Clean 5 s queries are found at their offset by both algorithms.
        let metrics = BenchmarkMetrics(results)
        for algorithm in ["constellation", "haitsma-kalker"] {
            let clean = try #require(metrics.condition(BenchmarkCell(algorithm: algorithm, length: 5, condition: "clean")))
            #expect(clean.outcomes[Outcome.correct.rawValue]!.successes == 6, "\(algorithm)")
            #expect(clean.hitAt5.successes == 6)
        }
        // Each threshold is calibrated on the negatives of one half of the recordings and measured on the other three.
        let calibrating = BenchmarkMetrics.calibrationHalf(results)
        let negatives = results.queries.filter(\.negative)
        #expect(calibrating.count == 3 && negatives.allSatisfy { calibrating.contains($0.id) == ($0.half == .calibration) })
        for n in metrics.negatives {
            let scores = results.answers.filter { $0.algorithm == n.algorithm && calibrating.contains($0.query) }.map { $0.top.first?.score ?? 0 }
            let negativeIDs = Set(negatives.map(\.id))
            let heldOut = results.answers.filter { $0.algorithm == n.algorithm && negativeIDs.contains($0.query) && !calibrating.contains($0.query) }
            #expect(n.calibratedThreshold == (scores.max() ?? 0))  // 3 calibration windows are too few to let any above 1 % at 90 %
            #expect(n.falsePositivesHeldOut == Rate(heldOut.filter { ($0.top.first?.score ?? 0) > n.calibratedThreshold }.count, of: 3))
        }
        // Costs are measured; the scaling curve has five nested catalog sizes per algorithm.
        #expect(costs.algorithms.allSatisfy { $0.fingerprintCPUSeconds > 0 && $0.indexBytes > 0 && $0.searchMilliseconds["5s"] != nil })
        let curve = costs.scaling.filter { $0.algorithm == "constellation" }
        #expect(curve.map(\.tracks) == [1, 1, 2, 4, 7])
        #expect(curve.last?.correct.successes == 6)

        // The report regenerates from results.json alone, byte for byte.
        let first = temporaryFolder(), second = temporaryFolder()
        try BenchmarkReport.write(results, costs: costs, to: first)
        let decoded = try BenchmarkResults.decode(Data(contentsOf: first.appendingPathComponent("results.json")), path: "results.json")
        try BenchmarkReport.write(decoded, costs: costs, to: second)
        #expect(files(in: first) == files(in: second))
        let csv = try String(contentsOf: first.appendingPathComponent("answers.csv"), encoding: .utf8)
        #expect(csv.split(separator: "\n").count == 1 + results.answers.count)
    }

    @Test func theGroundTruthIsTheFileAndOffsetTheQueryWasCutFrom() throws {
        let dataset = try catalogCIDataset()
        let (results, _) = try smallBenchmark(threads: 2, cache: nil)
        let catalog = Set(results.catalog.tracks), negatives = Set(results.catalog.negatives)
        #expect(catalog.isDisjoint(with: negatives))
        for query in results.queries {
            #expect(query.negative ? negatives.contains(query.file) : catalog.contains(query.file))
            let duration = try AudioReader.duration(dataset.path(query.file))
            #expect(query.start >= 0 && query.start + query.length <= duration)
        }
        // The benchmark's own clean queries, as it cut and answered them: each one's best answer is its own
        // track at the offset it was cut from (Haitsma-Kalker's frames are 11.6 ms apart).
        let queries = Dictionary(uniqueKeysWithValues: results.queries.map { ($0.id, $0) })
        let clean = results.answers.filter { $0.algorithm == "haitsma-kalker" && $0.condition == "clean" && queries[$0.query]?.negative == false }
        #expect(clean.count == 6)
        for answer in clean {
            let query = try #require(queries[answer.query]), top = try #require(answer.top.first)
            #expect(results.catalog.tracks[top.track] == query.file && abs(top.offset - query.start) < 0.02, "\(query.id): \(top)")
        }
    }

    @Test(arguments: ["constellation", "haitsma-kalker", "waveprint"])
    func indexSearchAndBruteForceAgreeOnTheTopAnswer(identifier: String) throws {
        let dataset = try catalogCIDataset(), algorithm = try AlgorithmRegistry.algorithm(identifier)
        let catalog = Catalog(algorithm: algorithm)
        let tracks = dataset.manifest.catalog!.tracks
        for track in tracks { catalog.add(try algorithm.fingerprint(file: dataset.path(track)), name: track) }
        for (track, start) in [(tracks[0], 12.3), (tracks[1], 40.0), (tracks[3], 3.7)] {
            let query = try algorithm.fingerprint(file: dataset.path(track), window: TimeWindow(start: start, duration: 5), role: .query)
            let indexed = try catalog.search(query, limit: 1), brute = try catalog.search(query, limit: 1, useIndex: false)
            #expect(indexed.first?.reference == track)
            #expect(indexed.first?.reference == brute.first?.reference)
            #expect(abs((indexed.first?.comparison.offset ?? -9) - start) < 0.1)
        }
    }

    @Test func wilsonIntervalsMatchPublishedValues() {
        // Newcombe (1998), Table I: 81/263 -> 0.2553-0.3662; and 8/10 -> 0.490-0.943.
        let a = Rate(81, of: 263), b = Rate(8, of: 10), none = Rate(0, of: 10)
        #expect(abs(a.low - 0.2553) < 1e-4 && abs(a.high - 0.3662) < 1e-4)
        #expect(abs(b.low - 0.4902) < 1e-4 && abs(b.high - 0.9433) < 1e-4)
        #expect(none.low == 0 && abs(none.high - 0.2775) < 1e-4)
    }

    /// P(Binomial(500, 1 %) ≤ 1) = 0.040 and ≤ 2 = 0.123, so 500 scores allow 1 above a threshold held with
    /// 90 % confidence; 1,000 allow 5, 10,000 allow 86; under 230 even none is not sure enough.
    @Test func theCalibratedThresholdAllowsWhatTheBinomialAllows() {
        #expect([229, 230, 500, 1000, 10_000].map { Calibration.allowedAbove($0, target: 0.01, confidence: 0.9) } == [0, 0, 1, 5, 86])
        #expect(Calibration.fewestToBeSure(target: 0.01, confidence: 0.9) == 230)
        #expect(Calibration.allowedAbove(500, target: 0.01, confidence: nil) == 5)  // the rule before: right on average
        let scores = (0..<500).map { Double($0) / 500 }
        #expect(scores.filter { $0 > Calibration.threshold(scores, target: 0.01, confidence: 0.9) }.count == 1)
        #expect(Calibration.threshold([], target: 0.01, confidence: 0.9) == 0)
    }

    /// Negatives scoring uniformly in 0...1 (true false-positive rate above t: 1 − t). A calibration on 500 misses
    /// 1 % when at most k of them score above 0.99: P(Bin(500, 1 %) ≤ 1) = 4.0 % with 90 % confidence (under the
    /// one in ten it promises: counts are whole), P(≤ 5) = 61.6 % for the ⌊target·n⌋ rule. Over 2,000 seeded
    /// calibrations: about 80 and 1,232.
    @Test func theThresholdHoldsTheTargetWithItsConfidence() {
        let random = SeededNoise(seed: 41)
        let misses = { (confidence: Double?) in
            (0..<2000).filter { _ in
                1 - Calibration.threshold((0..<500).map { _ in random.unit() }, target: 0.01, confidence: confidence) > 0.01
            }.count
        }
        let sure = misses(0.9), onAverage = misses(Double?.none)
        #expect((50...110).contains(sure), "\(sure) of 2000 calibrations miss 1 %")
        #expect((1150...1310).contains(onAverage), "\(onAverage) of 2000")
    }

    @Test func aBadSpecNamesTheField() throws {
        let file = temporaryFolder().appendingPathComponent("spec.json")
        try Data(#"{"queryLengths": [0]}"#.utf8).write(to: file)
        #expect { try BenchmarkSpec.load(file.path) } throws: { "\($0)".contains("queryLengths") }
        try Data(#"{"conditions": [{"id": "a", "title": "x"}, {"id": "a", "title": "y"}]}"#.utf8).write(to: file)
        #expect { try BenchmarkSpec.load(file.path) } throws: { "\($0)".contains("appears twice") }
        // A misspelt field would leave the default in place: refused, with the name it most likely meant.
        try Data(#"{"negativesPerLenght": 3, "conditions": [{"id": "clean", "title": "clean"}]}"#.utf8).write(to: file)
        #expect { try BenchmarkSpec.load(file.path) } throws: { "\($0)".contains("negativesPerLenght: unknown field (did you mean negativesPerLength?)") }
    }
}

@Suite struct PairedTestTests {
    @Test func mcNemarsExactTestMatchesTheBinomial() {
        // 0 vs 6 discordant pairs: 2 · (1/2)^6 = 0.03125; 1 vs 5: 2 · 7/64 = 0.21875; none: 1.
        #expect(abs(mcNemarExactP(0, 6) - 0.03125) < 1e-12)
        #expect(abs(mcNemarExactP(5, 1) - 0.21875) < 1e-12)
        #expect(mcNemarExactP(0, 0) == 1 && mcNemarExactP(3, 3) == 1)
        #expect(mcNemarExactP(0, 2000) < 1e-100)  // no overflow for long runs
    }
}
