import AudioIO
import Degradation
import DSP
import Evaluation
import Fingerprinting
import Foundation
import Reporting
import SuiteEvaluation
import Testing

/// The CI dataset's manifest, pointing at the fetched audio.
func ciDataset() throws -> Dataset {
    try Dataset.load(testDataRoot.deletingLastPathComponent().appendingPathComponent("manifest.json").path)
}

func run(_ dataset: Dataset, algorithms: [String] = AlgorithmRegistry.identifiers, tests: [String] = [],
         threads: Int = 2, cache: URL? = nil, queriesPerSource: Int = 1) throws -> RunResults {
    var configuration = RunConfiguration(testSettings(dataset, try algorithms.map(AlgorithmRegistry.algorithm),
                                         seed: 2013, threads: threads, cache: cache, missing: .refuse), suite: try Suite.thesis.selecting(tests))
    configuration.queriesPerSource = queriesPerSource
    configuration.missingRecordings = .leaveOut  // the ci dataset has no impulse responses: test 4 runs without them, marked
    return Runner(configuration).run()
}

func files(in folder: URL) -> [String: Data] {
    let paths = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? []
    return Dictionary(uniqueKeysWithValues: paths.sorted().compactMap { path in
        FileManager.default.contents(atPath: folder.appendingPathComponent(path).path).map { (path, $0) }
    })
}

@Suite(.serialized) struct EvaluationRunTests {
    @Test func aWholeRunProducesEveryFileWithTheExpectedShape() throws {
        let dataset = try ciDataset()
        let results = try run(dataset)
        let folder = temporaryFolder()
        try ReportWriter.write(results, to: folder)
        let written = files(in: folder)
        #expect(written["results.json"] != nil && written["summary.md"] != nil)
        // The ci dataset has no second alternates: that test has no queries, so no matrices.
        #expect(results.matrices.count == AlgorithmRegistry.all.count * (Suite.thesis.tests.count - 1))
        #expect(!results.matrices.contains { $0.test == "test2-second-synth" })
        #expect(results.failures.isEmpty)
        // The ci dataset has no impulse responses: test 4 names the stages it leaves out (never silently),
        // and each source without a second alternate is named.
        #expect(results.skipped.map(\.item) == ["test2-second-synth/bengalese-finch", "test2-second-synth/storm-petrel", "test4-playback", "test4-playback"])
        #expect(results.skipped.suffix(2).allSatisfy { $0.reason.contains("not in dataset 'ci', nor an audio file's path: the stage that uses it is left out") })
        #expect(results.skipped.prefix(2).allSatisfy { $0.reason == "no alternate recording number 2" })
        #expect(String(decoding: written["summary.md"]!, as: UTF8.self).contains("## Identified and matched, with 95 % intervals"))
        for m in results.matrices {
            #expect(m.matched?.count == m.rows.count)
            #expect(m.rows == ["bengalese-finch", "storm-petrel"] && m.columns == m.rows)
            #expect(m.scores.allSatisfy { $0.count == 2 && $0.allSatisfy { ($0 ?? -1) >= 0 && ($0 ?? 2) <= 1 } })
            let csv = String(decoding: written["matrices/\(m.algorithm)/\(m.test).csv"]!, as: UTF8.self)
            #expect(csv.split(separator: "\n").count == 3 && csv.hasPrefix("query \\ reference,bengalese-finch,storm-petrel"))
            #expect(written["matrices/\(m.algorithm)/\(m.test).raw.csv"] != nil)
            let md = String(decoding: written["matrices/\(m.algorithm)/\(m.test).md"]!, as: UTF8.self)
            #expect(md.contains("Identified ") && md.contains("**") && md.contains("["))
        }
        // results.json alone regenerates the same tables.
        let again = temporaryFolder()
        try ReportWriter.write(try RunResults.decode(written["results.json"]!, path: "results.json"), to: again)
        #expect(files(in: again) == written)
        // Seeds and provenance travel with the results.
        #expect(results.tests.allSatisfy { $0.queries.allSatisfy { $0.seed != 0 && !$0.degradations.isEmpty } })
        #expect(results.algorithms.allSatisfy { !$0.profile.parameters.isEmpty })
    }

    @Test func theSameSeedGivesByteIdenticalTablesWithOneThreadAndWithTwo() throws {
        let dataset = try ciDataset()
        let one = temporaryFolder(), two = temporaryFolder()
        try ReportWriter.write(try run(dataset, threads: 1), to: one)
        try ReportWriter.write(try run(dataset, threads: 2), to: two)
        #expect(files(in: one) == files(in: two))
    }

    @Test func theFingerprintCacheIsReusedAndChangesNothing() throws {
        let dataset = try ciDataset(), cache = temporaryFolder()
        let cold = try run(dataset, algorithms: ["haitsma-kalker"], tests: ["test1-cropping"], cache: cache)
        let cached = files(in: cache)
        #expect(cached.keys.filter { $0.hasPrefix("haitsma-kalker/") }.count == 4)  // 2 references + 2 queries
        #expect(cached.keys.contains("checksums.json"))  // the dataset's files, checked once
        let warm = try run(dataset, algorithms: ["haitsma-kalker"], tests: ["test1-cropping"], cache: cache)
        #expect(warm == cold && files(in: cache) == cached)
        // Proof that the warm run read them: with the four entries' (valid, sealed) contents rotated, the
        // same run answers otherwise.
        let entries = cached.keys.filter { $0.hasPrefix("haitsma-kalker/") }.sorted()
        for (name, next) in zip(entries, entries.dropFirst() + entries.prefix(1)) {
            try cached[next]!.write(to: cache.appendingPathComponent(name))
        }
        let rotated = try run(dataset, algorithms: ["haitsma-kalker"], tests: ["test1-cropping"], cache: cache)
        #expect(rotated != cold, "the warm run did not read the cache")
    }

    /// On real audio: constellation identifies every source of test 1; the thesis AFA's test-1 figure
    /// is printed beside the thesis's 92-99 %.
    @Test func constellationIdentifiesEverySourceAndTheSummaryQuotesTheThesis() throws {
        let results = try run(try ciDataset(), algorithms: ["constellation", "afa-thesis"], tests: ["test1-cropping", "test1-image-grid"])
        let m = try #require(results.matrix(algorithm: "constellation", test: "test1-cropping"))
        #expect(m.statistics.identified == m.rows.count)
        let summary = summaryMarkdown(results) { _ in "" }
        #expect(summary.contains("| test1-cropping | every source identified, 92-99 % | "))
        // On the image grid the faithful AFA reaches the thesis's figures (measured 99.0 %).
        let grid = try #require(results.matrix(algorithm: "afa-thesis", test: "test1-image-grid"))
        #expect(grid.statistics.identified == 2 && grid.statistics.meanDiagonal! > 0.92)
    }

    @Test func aMissingFileIsReportedAndTheRunGoesOn() throws {
        var dataset = try ciDataset()
        dataset.manifest.sources[0].reference.file = "birds/no-such-file.wav"
        let results = try run(dataset, algorithms: ["haitsma-kalker"], tests: ["test1-cropping", "test2-recordings"])
        #expect(results.references == ["storm-petrel"])
        #expect(results.failures.contains { $0.item == "birds/no-such-file.wav" && $0.reason.contains("no such file") })
        #expect(results.failures.contains { $0.item == "source bengalese-finch" })
        #expect(results.matrices.allSatisfy { $0.rows == ["storm-petrel"] })
    }

    @Test func distractorsJoinTheCatalogAndQueriesAreSearchedThroughTheIndex() throws {
        var dataset = try ciDataset()
        #expect(try run(dataset, algorithms: ["constellation"], tests: ["test1-cropping"]).catalogs.isEmpty)
        dataset.manifest.distractors = [Excerpt(file: "birds/finch-363.wav", start: 12, duration: 9)]
        let results = try run(dataset, algorithms: ["constellation", "haitsma-kalker"], tests: ["test1-cropping"])
        #expect(results.catalogs.count == 2)
        for catalog in results.catalogs {
            #expect(catalog.references == 3 && catalog.distractors == 1 && catalog.queries == 2)
            #expect(catalog.correct == 2 && catalog.wrong == 0 && catalog.noMatch == 0, "\(catalog)")
            #expect(catalog.referenceSeconds == 27 && catalog.mebibytesPerHour > 0)
        }
        #expect(summaryMarkdown(results) { _ in "" }.contains("3 recordings (2 references + 1 distractors)"))
    }

    @Test func aBrokenManifestNamesTheFileAndTheReason() throws {
        let path = temporaryFolder().appendingPathComponent("manifest.json").path
        try Data(#"{"description": "x", "sources": []}"#.utf8).write(to: URL(fileURLWithPath: path))
        #expect { try Dataset.load(path) } throws: { error in
            "\(error)".hasPrefix(path) && "\(error)".contains("missing field 'name'")
        }
        try Data(#"{"name": "x"}"#.utf8).write(to: URL(fileURLWithPath: path))
        #expect { try Dataset.load(path) } throws: { "\($0)".contains("no sources and no catalog tracks") }
        try Data(#"{"name": "x", "catalog": {"tracks": ["a.wav"], "negatives": ["a.wav"]}}"#.utf8).write(to: URL(fileURLWithPath: path))
        #expect { try Dataset.load(path) } throws: { "\($0)".contains("'a.wav' is listed twice") }
        try Data("{ not json".utf8).write(to: URL(fileURLWithPath: path))
        #expect { try Dataset.load(path) } throws: { "\($0)".contains("not valid JSON") }
    }

    @Test(arguments: [
        (#"{"id": "a", "title": "t", "kind": "rerecorded-playback", "playback": {"loudspeakerBand": [150], "microphoneBand": [100, 7000], "background": {"kind": "pink", "level": {"snr": {"dB": 20}}}, "maximumDrift": 0.002, "maximumDelay": 0.1}}"#, "a band is [low, high]"),
        (#"{"id": "a", "title": "t", "kind": "rerecorded-playback", "playback": {"loudspeakerBand": [150, 100], "microphoneBand": [100, 7000], "background": {"kind": "pink", "level": {"snr": {"dB": 20}}}, "maximumDrift": 0.002, "maximumDelay": 0.1}}"#, "low < high"),
        (#"{"id": "a", "title": "t", "kind": "rerecorded-playback", "playback": {"loudspeakerBand": [150, 12000], "microphoneBand": [100, 7000], "background": {"kind": "pink", "level": {"snr": {"dB": 20}}}, "maximumDrift": 0.002, "maximumDelay": 1e12}}"#, "maximumDelay"),
        (#"{"id": "a", "title": "t", "kind": "added-noise", "noise": {"kind": "pink", "level": {"peak": {"dBFS": 1000}}}}"#, "between -200 and 0 dBFS"),
        (#"{"id": "a", "title": "t", "kind": "added-noise"}"#, "missing field 'noise'"),
        (#"{"id": "a", "title": "t", "kind": "cropping", "queryDuration": 0}"#, "queryDuration"),
        (#"{"id": "../../x", "title": "t", "kind": "cropping"}"#, "not a safe file name"),
        (#"{"id": "a", "title": "t", "kind": "echo"}"#, "unknown kind 'echo'"),
    ])
    func aSuiteFileIsValidatedWhenRead(test: String, reason: String) throws {
        let path = temporaryFolder().appendingPathComponent("suite.json").path
        try Data(#"{"name": "s", "tests": [\#(test)]}"#.utf8).write(to: URL(fileURLWithPath: path))
        #expect { try Suite.load(path) } throws: { "\($0)".contains(reason) && "\($0)".hasPrefix(path) }
        try Data(#"{"name": "s", "tests": [{"id": "a", "title": "t", "kind": "cropping"}, {"id": "a", "title": "u", "kind": "cropping"}]}"#.utf8)
            .write(to: URL(fileURLWithPath: path))
        #expect { try Suite.load(path) } throws: { "\($0)".contains("appears twice") }
    }

    @Test func aSuiteFileExtendsTheThesisSuite() throws {
        let path = temporaryFolder().appendingPathComponent("suite.json").path
        let extra = Suite(name: "mine", extends: "thesis", tests: [
            TestDefinition(id: "test3-noise-3.16", title: "overridden", recipe: AddedNoise(noise: NoiseSpec(kind: .pink, level: .snr(dB: 0)))),
            TestDefinition(id: "short-queries", title: "2 s crops", recipe: Cropping(), queryDuration: 2),
        ])
        try JSONEncoder().encode(extra).write(to: URL(fileURLWithPath: path))
        let suite = try Suite.load(path)
        #expect(suite.tests.count == Suite.thesis.tests.count + 1)
        #expect(suite.tests.first { $0.id == "test3-noise-3.16" }?.title == "overridden")
        #expect(suite.tests.last?.queryDuration == 2)
    }
}

@Suite struct DegradationTests {
    let random = SeededNoise(seed: 1)
    let tone = sine(frequency: 440, amplitude: 0.5, duration: 2, sampleRate: 8000)

    @Test func noiseAtMinus30DBFSHasThatPeak() throws {
        let silence = Audio(samples: [Float](repeating: 0, count: 8000), sampleRate: 8000)
        for kind in [NoiseKind.whiteUniform, .whiteGaussian, .pink] {
            let noisy = try AddNoise(kind: kind, level: .peak(dBFS: -30)).apply(silence, random: random)
            let peak = Double(noisy.samples.map { abs($0) }.max()!)
            #expect(abs(decibels(peak) - -30) < 0.01, "\(kind)")
        }
    }

    @Test func zeroDecibelSNRGivesEqualPowers() throws {
        let noisy = try AddNoise(kind: .whiteGaussian, level: .snr(dB: 0)).apply(tone, random: random)
        let noise = zip(noisy.samples, tone.samples).map { $0 - $1 }
        #expect(abs(rms(noise) / rms(tone.samples) - 1) < 1e-3)
    }

    @Test func driftChangesTheDurationByItsFactor() throws {
        let drifted = try ClockDrift(factor: 1.002).apply(tone, random: random)
        #expect(abs(drifted.duration - tone.duration / 1.002) <= 1 / 8000)
        #expect(abs(peakFrequency(Audio(samples: Array(drifted.samples.prefix(8192)), sampleRate: 8000)) - 440 * 1.002) < 1)
    }

    @Test func aCropIsTheExactSlice() {
        let cropped = Crop(start: 0.5, duration: 1).apply(tone, random: random)
        #expect(cropped.samples == Array(tone.samples[4000..<12000]))
    }

    @Test func aDelayPrependsSilence() {
        let delayed = Delay(seconds: 0.25).apply(tone, random: random)
        #expect(delayed.samples.prefix(2000).allSatisfy { $0 == 0 } && Array(delayed.samples.dropFirst(2000)) == tone.samples)
    }

    @Test func bandPassRemovesWhatIsOutsideTheBand() {
        let low = sine(frequency: 50, duration: 2, sampleRate: 8000), high = sine(frequency: 1000, duration: 2, sampleRate: 8000)
        let mix = Audio(samples: zip(low.samples, high.samples).map(+), sampleRate: 8000)
        let filtered = BandPass(low: 100, high: 3000, label: "test").apply(mix, random: random)
        #expect(correlation(filtered.samples, high.samples) > 0.999)
    }

    @Test func anImpulseResponseOfOneSampleChangesNothing() throws {
        let identity = ImpulseResponse(name: "dirac", kind: "test", response: Audio(samples: [1], sampleRate: 8000))
        let out = try identity.apply(tone, random: random)
        #expect(zip(out.samples, tone.samples).allSatisfy { abs($0 - $1) < 1e-5 })
    }

    /// Three taps (direct sound, an echo at 12.5 ms, a weaker inverted one at 37.5 ms) on seeded noise: the
    /// samples of the direct sum, computed here by hand, scaled back to the input's RMS.
    @Test func anImpulseResponseIsItsTapsSummedAndLevelled() throws {
        let input = Audio(samples: SeededNoise(seed: 3).gaussian(count: 4000, sigma: 0.1), sampleRate: 8000)
        var taps = [Float](repeating: 0, count: 301)
        (taps[0], taps[100], taps[300]) = (1, 0.5, -0.25)
        let out = try ImpulseResponse(name: "three taps", kind: "test", response: Audio(samples: taps, sampleRate: 8000)).apply(input, random: random)
        let x = input.samples
        let wet = x.indices.map { i in x[i] + (i >= 100 ? 0.5 * x[i - 100] : 0) - (i >= 300 ? 0.25 * x[i - 300] : 0) }
        let scale = Float(rms(x) / rms(wet))
        #expect(out.samples.count == x.count)
        #expect(zip(out.samples, wet).allSatisfy { abs($0 - $1 * scale) < 1e-5 })
        #expect(abs(rms(out.samples) - rms(x)) < 1e-6)
    }

    @Test func aChainIsReproducibleFromItsSeed() throws {
        let chain = { DegradationChain([AddNoise(kind: .pink, level: .snr(dB: 10)), Crop(start: 0.1, duration: 1)], seed: $0) }
        #expect(try chain(5).apply(tone) == (try chain(5).apply(tone)))
        #expect(try chain(5).apply(tone) != (try chain(6).apply(tone)))
    }
}

@Suite struct LongTableTests {
    /// Three queries per source: every line of results.csv is the cell of its matrix row (found by source
    /// and draw), and every line of catalog.csv agrees with the catalog's counts.
    @Test func theLongCSVHoldsEveryComparisonOfTheMatrices() throws {
        var dataset = try ciDataset()
        dataset.manifest.distractors = dataset.manifest.sources.flatMap(\.alternates)  // a catalog to search
        let results = try run(dataset, algorithms: ["haitsma-kalker", "chroma-baseline"], tests: ["test1-cropping", "test2-recordings"],
                              queriesPerSource: 3)
        #expect(!results.catalogs.isEmpty)
        let lines = longCSV(results).split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let header = lines[0]
        #expect(header == ["run_id", "algorithm", "variant", "test", "family", "source", "draw", "query_seed", "reference", "own", "score",
                           "raw_figure", "offset_s", "rank", "identified", "matched"])
        #expect(lines.count - 1 == results.matrices.reduce(0) { $0 + $1.rows.count * $1.columns.count })
        #expect(results.matrices.allSatisfy { $0.rows.count == 3 * 2 || $0.test == "test2-recordings" })
        for line in lines.dropFirst() {
            let row = Dictionary(uniqueKeysWithValues: zip(header, line))
            let m = try #require(results.matrix(algorithm: row["algorithm"]!, test: row["test"]!))
            let queries = results.queries(of: m)
            let r = try #require(queries.indices.first { queries[$0].source == row["source"] && String(queries[$0].draw ?? -1) == row["draw"] })
            let c = try #require(m.columns.firstIndex(of: row["reference"]!))
            #expect(Double(row["score"]!) == m.scores[r][c])
            #expect(row["query_seed"] == String(queries[r].seed))
            #expect(row["identified"] == (m.isIdentified(r) ? "1" : "0"))
            if row["own"] == "1" && row["identified"] == "1" { #expect(row["rank"] == "1") }
            #expect(row["family"] == "bird" && row["variant"] == "default" && row["run_id"] == results.runID)
        }
        // Draws are different queries; draw 0 is the single query of a one-query run.
        let test = try #require(results.test("test1-cropping"))
        #expect(Set(test.queries.map(\.seed)).count == test.queries.count)
        let single = try run(try ciDataset(), algorithms: ["haitsma-kalker"], tests: ["test1-cropping"])
        let firsts = test.queries.filter { $0.draw == 0 }
        #expect(firsts.map(\.seed) == single.tests[0].queries.map(\.seed) && firsts.map(\.degradations) == single.tests[0].queries.map(\.degradations))
        let m = try #require(results.matrix(algorithm: "haitsma-kalker", test: "test1-cropping"))
        #expect(results.firstQueries(m).scores == single.matrices[0].scores)

        let catalog = catalogCSV(results).split(separator: "\n").dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        #expect(catalog.count == results.catalogs.reduce(0) { $0 + $1.queries })
        for result in results.catalogs {
            let rows = catalog.filter { $0[1] == result.algorithm && $0[2] == result.test }
            #expect(rows.filter { $0[9] == "1" }.count == result.correct && rows.filter { $0[6].isEmpty }.count == result.noMatch)
        }
    }
}
