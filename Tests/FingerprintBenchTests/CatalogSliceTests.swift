import AudioIO
import Degradation
import DSP
@testable import Fingerprinting
import Foundation
import Testing

/// A catalog split into slices answers as the whole, match for match: queries at tracks' edges, noisy
/// queries, negatives, and keys common enough to be skipped at lookup.
@Suite(.serialized) struct CatalogSliceTests {
    @Test(arguments: ["constellation", "haitsma-kalker", "waveprint", "panako", "quads", "afa-thesis"])
    func slicesMergedAnswerAsTheWholeCatalog(identifier: String) throws {
        let dataset = try catalogCIDataset(), algorithm = try AlgorithmRegistry.algorithm(identifier)
        let section = dataset.manifest.catalog!
        var prints = try section.tracks.map { try algorithm.fingerprint(file: dataset.path($0)) }
        var names = section.tracks
        // Synthetic tracks whose keys come from a small pool of the first track's: each posts each of
        // those keys about 90 times, so the whole catalog holds them more often than a lookup's limit
        // and a slice of two or three such tracks not always.
        if let keys = prints[0].keys {
            let pool = Array(keys.prefix(max(1, keys.count / 90)))
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
            if let common, identifier == "constellation" {
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
        #expect(naiveDiffers || identifier != "constellation", "the common keys' test must be able to fail")
    }
}
