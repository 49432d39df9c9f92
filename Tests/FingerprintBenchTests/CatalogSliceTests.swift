import AudioIO
import BenchmarkEvaluation
import Degradation
import DSP
import Evaluation
@testable import Fingerprinting
import Foundation
import SuiteEvaluation
import Testing

/// A catalog split into slices answers as the whole, match for match: queries at tracks' edges, noisy
/// queries, negatives, and keys common enough to be skipped at lookup.
@Suite(.serialized) struct CatalogSliceTests {
    /// A query keeps its rarest keys: equal counts kept or skipped together; keys held at most
    /// `KeyCounts.floor` times, always looked up, and keys over the lookup limit, never, are not counted.
    @Test func aHitBudgetLowersTheLimitToTheRarestKeysThatFit() {
        let counts = [1, 25, 30, 25, 250, 20]
        #expect(HitBudget(hits: 49).limit(counts: counts, commonHashLimit: 200) == KeyCounts.floor)
        #expect(HitBudget(hits: 50).limit(counts: counts, commonHashLimit: 200) == 25)
        #expect(HitBudget(hits: 79).limit(counts: counts, commonHashLimit: 200) == 25)
        #expect(HitBudget(hits: 80).limit(counts: counts, commonHashLimit: 200) == 200)
        #expect(HitBudget(hits: 80).limit(counts: counts, commonHashLimit: 25) == 25)
        #expect(HitBudget(hits: 0).limit(counts: [], commonHashLimit: 60) == 60)
    }

    @Test(arguments: ["constellation", "haitsma-kalker", "waveprint", "panako", "panako@dense", "panako@large@hitBudget=2000", "quads", "afa-thesis"])
    func slicesMergedAnswerAsTheWholeCatalog(identifier: String) throws {
        let dataset = try catalogCIDataset(), algorithm = try AlgorithmRegistry.algorithm(identifier)
        let section = dataset.manifest.catalog!
        var prints = try section.tracks.map { try algorithm.fingerprint(file: dataset.path($0)) }
        var names = section.tracks
        // Synthetic tracks whose keys come from a small pool of the first track's: each posts each of
        // those keys about 0.45 times a lookup's limit (90 for 200; 27 for panako@dense's 60), so the
        // whole catalog holds them more often than the limit and a slice of two or three such tracks not always.
        // (For the hit budget, 27 of 200: the whole catalog holds them about 160 times, a slice fewer.)
        let budgeted = identifier.contains("hitBudget")
        if let keys = prints[0].keys {
            let posts = identifier == "panako@dense" || budgeted ? 27 : 90
            let pool = Array(keys.prefix(max(1, keys.count / posts)))
            for i in 0..<6 {
                prints.insert(prints[i % prints.count].redrawingKeys(from: pool, seed: UInt64(i))!, at: 2 * i)
                names.insert("synthetic-\(i)", at: 2 * i)
            }
        }
        let whole = Catalog(algorithm: algorithm)
        for (name, print) in zip(names, prints) { whole.add(print, name: name) }

        // Queries: each real track's first and last 5 s, a middle stretch of up to 10 s with white noise at 0 dB, and a negative.
        var queries: [AnyFingerprint] = []
        for track in section.tracks {
            let path = dataset.path(track), duration = try AudioReader.duration(path)
            for (start, length, noise) in [(0.0, 5.0, false), (duration - 5.01, 5.0, false), (duration / 3, min(10.0, duration * 2 / 3 - 0.01), true)] {
                var audio = try AudioReader.read(path, window: TimeWindow(start: start, duration: length))
                if noise { audio = try AddNoise(kind: .whiteGaussian, level: .snr(dB: 0)).apply(audio, random: SeededNoise(seed: 7)) }
                queries.append(try algorithm.fingerprint(audio.resampled(to: algorithm.sampleRate), role: .query))
            }
        }
        queries.append(try algorithm.fingerprint(file: dataset.path(section.negatives[0]), window: TimeWindow(start: 20, duration: 10), role: .query))

        if budgeted {
            // The budget binds on these queries: without it, some answer differs (the same prints, searched without it).
            let unbudgeted = Catalog(algorithm: try AlgorithmRegistry.algorithm("panako@large@hitBudget=0"))
            func unbudgetedPrint(_ print: AnyFingerprint) -> AnyFingerprint { AnyFingerprint(algorithm: unbudgeted.algorithm.identifier, base: print.base) }
            for (name, print) in zip(names, prints) { unbudgeted.add(unbudgetedPrint(print), name: name) }
            #expect(try queries.contains { query in
                try whole.search(query, limit: 10, applyingThreshold: false) != unbudgeted.search(unbudgetedPrint(query), limit: 10, applyingThreshold: false)
            })
        }
        // The two whose keys the pool makes common: constellation (limit 200) and panako@dense (60); and the
        // budget, whose limit a slice would lower by its own counts.
        let skipsCommon = ["constellation", "panako@dense"].contains(identifier) || budgeted
        var naiveDiffers = false
        for count in [2, 3] {
            let ranges = CatalogSlices.ranges(durations: prints.map(\.duration), count: count)
            #expect(ranges.count == count && ranges.first?.lowerBound == 0 && ranges.last?.upperBound == prints.count)
            let counts = ranges.compactMap { CatalogSlices.keyCounts(algorithm: algorithm, prints: prints, owned: $0) }
            let common = counts.isEmpty ? nil : KeyCounts.whole(counts)
            let slices = ranges.map { CatalogSlices.slice(algorithm: algorithm, prints: prints, names: names, owned: $0, reach: 10, whole: common) }
            #expect(slices.map(\.byteCount).reduce(0, +) - slices.map(\.indexByteCount).reduce(0, +) == whole.byteCount - whole.indexByteCount,
                    "every fingerprint is held by exactly one slice")
            for (q, query) in queries.enumerated() {
                let expected = try whole.search(query, limit: 10, applyingThreshold: false)
                let merged = CatalogSlices.merge(try slices.map { try $0.verifiedCandidates(query, limit: 10) }, in: slices[0], limit: 10, applyingThreshold: false)
                #expect(merged == expected, "\(identifier), \(count) slices, query \(q)")
                #expect(CatalogSlices.merge(try slices.map { try $0.verifiedCandidates(query) }, in: slices[0]) == (try whole.search(query)))
            }
            if let common, skipsCommon {
                // Without the whole catalog's counts, a slice looks up keys the whole catalog skips: the answers differ.
                #expect(common.count > 0)
                let naive = ranges.map { CatalogSlices.slice(algorithm: algorithm, prints: prints, names: names, owned: $0, reach: 10, whole: nil) }
                let differs = try queries.contains { query in
                    CatalogSlices.merge(try naive.map { try $0.verifiedCandidates(query, limit: 10) }, in: naive[0], limit: 10, applyingThreshold: false)
                        != (try whole.search(query, limit: 10, applyingThreshold: false))
                }
                naiveDiffers = naiveDiffers || differs
            }
        }
        #expect(naiveDiffers || !skipsCommon, "the common keys' test must be able to fail")
    }
}

/// The benchmark with its catalog split in slices (`--catalog-shard`): stage one's key counts, stage
/// two's parts (with query shards at the same time), and the merge, which gives the unsharded run's
/// results byte for byte while each part holds its slice's fingerprints only.
@Suite(.serialized) struct CatalogShardTests {
    static let algorithms = ["constellation", "haitsma-kalker", "waveprint", "panako", "chroma-baseline"]

    /// A catalog where slicing matters: catalog-ci's tracks cut into 7 s tracks (a 5 s query is never far
    /// from a track's edge) and, every fifth track, the same 6 s chord, whose constellation hashes the
    /// whole catalog holds more often than the lookup limit and no slice of three does.
    static let dataset: Result<Dataset, Error> = Result {
        let source = try catalogCIDataset(), folder = temporaryFolder(), negatives = folder.appendingPathComponent("negatives")
        try FileManager.default.createDirectory(at: negatives, withIntermediateDirectories: true)
        let chord = Audio(samples: (0..<96_000).map { (i: Int) -> Float in
            let t = Double(i) / 16_000
            return Float((sin(2 * .pi * 440 * t) + sin(2 * .pi * 660 * t) + sin(2 * .pi * 990 * t)) / 4)
        }, sampleRate: 16_000)
        var n = 0
        func put(_ audio: Audio) throws {
            try AudioWriter.write(audio, to: folder.appendingPathComponent(String(format: "t-%03d.wav", n)).path)
            n += 1
            if n % 5 == 4 { try put(chord) }
        }
        for track in source.manifest.catalog!.tracks {
            let path = source.path(track), duration = try AudioReader.duration(path)
            for start in stride(from: 0.0, to: duration - 7, by: 7) { try put(try AudioReader.read(path, sampleRate: 16_000, window: TimeWindow(start: start, duration: 7))) }
        }
        for negative in source.manifest.catalog!.negatives {
            try FileManager.default.copyItem(atPath: source.path(negative), toPath: negatives.appendingPathComponent((negative as NSString).lastPathComponent).path)
        }
        return try Dataset.load(folder.path)
    }

    func configuration(cache: URL, keys: URL, slice: CatalogShard? = nil, shard: Shard? = nil) throws -> BenchmarkConfiguration {
        var spec = BenchmarkSpec()
        spec.queryLengths = [5]
        spec.queriesPerLength = 10
        spec.negativesPerLength = 4
        spec.conditions = spec.conditions.filter { ["clean", "white-0dB", "speed-1.05"].contains($0.id) }
        var configuration = BenchmarkConfiguration(testSettings(try Self.dataset.get(), try Self.algorithms.map(AlgorithmRegistry.algorithm),
                                                   seed: 2013, cache: cache, missing: .borrow), spec: spec)
        configuration.catalogShard = slice
        configuration.keyCountsFolder = keys
        configuration.shard = shard
        return configuration
    }

    /// The vector index votes over the whole catalog's nearest segments: held as slices it would answer
    /// otherwise, so both stages refuse it by name before any work.
    @Test func aVectorIndexIsRefusedAsSlices() throws {
        var configuration = try configuration(cache: temporaryFolder(), keys: temporaryFolder(), slice: CatalogShard(index: 0, count: 2))
        configuration.algorithms = try ["constellation", "nafp-small"].map(AlgorithmRegistry.algorithm)
        for stage in [{ _ = try Benchmark(configuration).countKeys() }, { _ = try Benchmark(configuration).run() }] {
            #expect { try stage() } throws: { "\($0)".contains(": nafp-small: its index cannot be held as slices") }
        }
    }

    @Test func slicesMergedAreTheWholeRun() throws {
        let cache = temporaryFolder(), keys = temporaryFolder()
        let (whole, wholeCosts) = try Benchmark(configuration(cache: cache, keys: keys)).run()
        let slices = 3
        // Stage two without stage one: the missing counts are named.
        #expect { try Benchmark(configuration(cache: cache, keys: keys, slice: CatalogShard(index: 0, count: slices))).run() } throws: {
            "\($0)".contains("constellation.slice-0-of-3.keys: missing: stage one")
        }
        for j in 0..<slices {
            let files = try Benchmark(configuration(cache: cache, keys: keys, slice: CatalogShard(index: j, count: slices))).countKeys()
            #expect(files.count == 4, "every indexed algorithm counts its keys; chroma-baseline is brute force")
        }
        let constellation = try AlgorithmRegistry.algorithm("constellation"), tracks = try Self.dataset.get().manifest.catalog!.tracks
        let counts = try (0..<slices).map { j in
            let owned = CatalogShard(index: j, count: slices).owned(durations: try tracks.map { try AudioReader.duration(Self.dataset.get().path($0)) })
            return try KeyCountsFile.read(KeyCountsFile.path(in: keys, algorithm: constellation, slice: j, of: slices), algorithm: constellation,
                                          slice: j, of: slices, tracks: Array(tracks[owned]))
        }
        // Keys held more often than constellation's lookup limit: skipped at lookup.
        let limit = UInt64(Constellation.Parameters().commonHashLimit)
        func skipped(_ counts: KeyCounts) -> Int { counts.sorted.count { $0 & 0xFFFF_FFFF > limit } }
        #expect(skipped(KeyCounts.whole(counts)) > 0 && counts.allSatisfy { skipped(KeyCounts.whole([$0])) == 0 },
                "the chord's hashes are common in the whole catalog, in no slice alone")
        var parts: [(path: String, results: BenchmarkResults)] = [], fingerprintBytes = [Int](repeating: 0, count: Self.algorithms.count)
        for j in 0..<slices {
            for i in 0..<2 {
                let (results, costs) = try Benchmark(configuration(cache: cache, keys: keys, slice: CatalogShard(index: j, count: slices),
                                                                   shard: Shard(index: i, count: 2))).run()
                parts.append(("slice-\(j)-part-\(i)", results))
                if i == 0 { for a in costs.algorithms.indices { fingerprintBytes[a] += costs.algorithms[a].fingerprintBytes } }
                for (mine, all) in zip(costs.algorithms, wholeCosts.algorithms) {
                    #expect(mine.fingerprintBytes < all.fingerprintBytes, "slice \(j) holds only its own tracks' fingerprints (\(mine.identifier))")
                }
            }
        }
        #expect(fingerprintBytes == wholeCosts.algorithms.map(\.fingerprintBytes), "each fingerprint is held by exactly one slice")
        // A slice's answers are its candidates, with their hits; some differ from the whole's answers, so the merge has work to do.
        let answers = Dictionary(uniqueKeysWithValues: whole.answers.map { ("\($0.algorithm) \($0.query) \($0.condition)", $0.top) })
        #expect(parts.contains { $0.results.answers.contains { !$0.top.isEmpty && $0.top != answers["\($0.algorithm) \($0.query) \($0.condition)"] } })
        #expect(parts.allSatisfy { $0.results.answers.allSatisfy { $0.top.allSatisfy { $0.candidateHits != nil } } })

        let merged = try BenchmarkResults.merge(parts.reversed())
        #expect(try merged.encoded() == whole.encoded())
        // Through files, as `fpbench merge` reads them.
        #expect(try BenchmarkResults.merge(files: parts.map { (path: $0.path, data: try $0.results.sealed().encoded()) }).encoded() == whole.encoded())
        #expect { try BenchmarkResults.merge(parts.filter { $0.path != "slice-1-part-0" }) } throws: { "\($0)".contains("query part 0: catalog slice 1 of 3 missing") }
        #expect { try BenchmarkResults.merge(parts + [parts[2]]) } throws: { "\($0)".contains("slice 1 of query part 0 is given twice") }

        // Counts of another split are refused by name.
        let other = temporaryFolder()
        let moved = KeyCountsFile.path(in: other, algorithm: try AlgorithmRegistry.algorithm("constellation"), slice: 0, of: 3)
        for j in 0..<slices { for name in try FileManager.default.contentsOfDirectory(atPath: keys.path) where name.contains("slice-\(j)-of-3") {
            try FileManager.default.copyItem(at: keys.appendingPathComponent(name), to: other.appendingPathComponent(name))
        } }
        try FileManager.default.removeItem(at: moved)
        try FileManager.default.copyItem(at: keys.appendingPathComponent("constellation.slice-1-of-3.keys"), to: moved)
        #expect { try Benchmark(configuration(cache: cache, keys: other, slice: CatalogShard(index: 2, count: slices))).run() } throws: {
            "\($0)".contains("holds another slice than 0 of 3")
        }
        #expect(throws: (any Error).self) { try CatalogShard(parsing: "4/4") }
    }
}
