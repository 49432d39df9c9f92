import AudioIO
@testable import BenchmarkEvaluation
@testable import Evaluation
import Fingerprinting
import Foundation
@testable import SuiteEvaluation
import Testing

/// Seeded damage to what fpbench writes and reads back (index files, fingerprint cache entries, merge
/// parts), like the audio fuzz test: every damaged file is refused, or answers byte for byte as the
/// undamaged one; nothing crashes (a crash ends the test run).
@Suite(.serialized) struct IntegrityTests {
    /// `FPBENCH_FLIPS=N` runs a campaign of N index-file flips and N cache-entry flips in all (at least
    /// the suite's 384 and 200), spread over the algorithms. 96 flips an algorithm hit each region of its
    /// index file (13 to 15 of them) six times or more; 240 found nothing more (verify refused every flip,
    /// the search refused 75-80 % and answered the rest byte for byte) in 1.5 times the time (71 s, not 48).
    static let campaign = Int(ProcessInfo.processInfo.environment["FPBENCH_FLIPS"] ?? "") ?? 0
    static let indexFlips = max(96, campaign / 4), cacheFlips = max(40, campaign / 5)
    /// `FPBENCH_FLIPS_SEED=N` draws other flips than the pinned seeds (mixed into each).
    static func seed(_ pinned: UInt64) -> UInt64 { UInt64(ProcessInfo.processInfo.environment["FPBENCH_FLIPS_SEED"] ?? "").map { pinned ^ $0 } ?? pinned }

    /// One bit of an index file flipped at a seeded offset, `flips` times per algorithm, each region of
    /// the file (prefix, header, every section) hit in proportion to a floor of its size.
    @Test(arguments: ["constellation", "haitsma-kalker", "waveprint", "panako"])
    func aFlippedBitInAnIndexFileIsRefusedOrChangesNothing(identifier: String) throws {
        let dataset = try catalogCIDataset(), algorithm = try AlgorithmRegistry.algorithm(identifier)
        let tracks = dataset.manifest.catalog!.tracks
        let built = Catalog(algorithm: algorithm)
        for track in tracks { built.add(try algorithm.fingerprint(file: dataset.path(track)), name: track) }
        let folder = temporaryFolder(), path = folder.appendingPathComponent("index").path
        try built.save(to: path)
        let queries = try [(tracks[0], 12.3), (tracks[1], 40.0), (tracks[3], 3.7), (tracks[2], 2.0)].map { track, start in
            try algorithm.fingerprint(file: dataset.path(track), window: TimeWindow(start: start, duration: 5), role: .query)
        }
        func answers(_ file: String) throws -> [[Match]] {
            let catalog = try Catalog(algorithm: algorithm, indexFile: file)
            return try queries.map { try catalog.search($0, limit: 5, applyingThreshold: false) }
        }
        /// `fpbench index verify`: reads every byte.
        func verified(_ file: String) throws { try Catalog(algorithm: algorithm, indexFile: file).verifyAll() }
        let undamaged = try answers(path)
        #expect(undamaged.prefix(3).map { $0.first?.reference } == [tracks[0], tracks[1], tracks[3]])

        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let header = try IndexFile.Reader(path: path).header
        let headerEnd = 32 + Int(data.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 16, as: UInt64.self) })
        // The regions: the fixed prefix, the header, then each section (the file's body, by place).
        let regions = [0..<32, 32..<headerEnd] + header.sections.values.filter { $0.length > 0 }
            .map { (headerEnd + $0.offset)..<(headerEnd + $0.offset + $0.length) }
        var random = SeededGenerator(seed: Self.seed(20261125))
        var refused = 0, unchanged = 0
        let damaged = folder.appendingPathComponent("damaged").path
        try verified(path)
        for flip in 0..<Self.indexFlips {
            let region = regions[flip % regions.count]
            let offset = Int.random(in: region, using: &random), bit = UInt8(1) << UInt8.random(in: 0..<8, using: &random)
            var copy = data
            copy[offset] ^= bit
            try copy.write(to: URL(fileURLWithPath: damaged))
            // A search verifies only what it reads; verifying the whole file finds every flip.
            #expect(throws: IndexFileError.self, "bit \(bit) of byte \(offset) passed `index verify`") { try verified(damaged) }
            do {
                let result = try answers(damaged)
                #expect(result == undamaged, "bit \(bit) of byte \(offset) changed the answers without a refusal")
                unchanged += 1
            } catch let error as IndexFileError {
                // A flip in the mark is "not an fpbench index file" (or, in the version's digit, another version's);
                // anywhere else the file is named damaged.
                #expect(error.description.hasPrefix(damaged) && ["damaged", "not an fpbench index", "another version of fpbench"].contains { error.reason.contains($0) },
                        "\(error.reason)")
                refused += 1
            }
        }
        #expect(refused + unchanged == Self.indexFlips && refused >= Self.indexFlips / 2, "refused \(refused), unchanged \(unchanged)")
        print("\(identifier): \(Self.indexFlips) flips over \(regions.count) regions: \(refused) refused by the search, \(unchanged) answered byte for byte as undamaged, all refused by index verify")
    }

    /// The header's values are checked even where the checksums agree (a file that lies is refused).
    @Test func headerValuesOutsideTheirRangeAreRefused() throws {
        let dataset = try catalogCIDataset(), algorithm = try AlgorithmRegistry.algorithm("constellation")
        let track = dataset.manifest.catalog!.tracks[0]
        let built = Catalog(algorithm: algorithm)
        built.add(try algorithm.fingerprint(file: dataset.path(track)), name: track)
        let path = temporaryFolder().appendingPathComponent("index").path
        try built.save(to: path)
        for (name, value, reason) in [("hashes.step", 0.0, "hashes.step = 0.0 outside"), ("hashes.bucketShift", 70, "hashes.bucketShift = 70.0 outside")] {
            var header = try IndexFile.Reader(path: path).header
            header.values[name] = value
            try rewrite(path, header: header)
            #expect { try Catalog(algorithm: algorithm, indexFile: path) } throws: { "\($0)".contains(reason) }
            header.values[name] = try IndexFile.Reader(path: path).header.values[name]
        }
    }

    /// A cache entry with one flipped bit is discarded with a warning and the fingerprint made again:
    /// never a different fingerprint, never a crash.
    @Test func aDamagedCacheEntryIsDiscardedAndRecomputed() throws {
        let dataset = try catalogCIDataset()
        let audio = try AudioReader.read(dataset.path(dataset.manifest.catalog!.tracks[1]), window: TimeWindow(start: 10, duration: 8))
        let folder = temporaryFolder(), cache = FingerprintCache(folder: folder)
        var random = SeededGenerator(seed: Self.seed(7))
        for identifier in ["constellation", "haitsma-kalker", "waveprint", "panako", "maa-thesis"] {
            let algorithm = try AlgorithmRegistry.algorithm(identifier)
            let made = try cache.fingerprint(algorithm, role: .reference, contentKey: identifier) { audio }
            let expected = try algorithm.encode(made, as: .compact)
            let entry = try #require(FileManager.default.enumerator(atPath: folder.appendingPathComponent(identifier).path)?
                .compactMap { $0 as? String }.first { $0.hasSuffix(".fpc") })
            let file = folder.appendingPathComponent(identifier).appendingPathComponent(entry)
            let sealed = try Data(contentsOf: file)
            for _ in 0..<Self.cacheFlips {
                var copy = sealed
                copy[Int.random(in: 0..<copy.count, using: &random)] ^= 1 << UInt8.random(in: 0..<8, using: &random)
                try copy.write(to: file)
                #expect(cache.load(algorithm, role: .reference, contentKey: identifier) == nil)
                #expect(!FileManager.default.fileExists(atPath: file.path), "a damaged entry is removed")
                let again = try cache.fingerprint(algorithm, role: .reference, contentKey: identifier) { audio }
                #expect(try algorithm.encode(again, as: .compact) == expected)
            }
        }
    }

    /// Merge parts edited by hand, cut short or with answers deleted are refused naming the part; an
    /// edit that leaves the decoded part as it was (white space) changes nothing.
    @Test func anEditedOrTruncatedMergePartIsRefused() throws {
        let cache = temporaryFolder()
        let whole = try smallBenchmark(threads: 2, cache: cache).0
        let parts = try (0..<2).map { try smallBenchmark(threads: 2, cache: cache, shard: Shard(index: $0, count: 2)).0.sealed().encoded() }
        #expect(try BenchmarkResults.merge(files: [("p0", parts[0]), ("p1", parts[1])]).encoded() == whole.encoded())
        var random = SeededGenerator(seed: Self.seed(11))
        let digits = Array("0123456789".utf8)
        var refused = 0
        for edit in 0..<100 {
            var text = parts[1]
            switch edit % 4 {
            case 0: // a digit changed (a score, an offset, a count)
                let places = text.indices.filter { digits.contains(text[$0]) }
                let at = places[Int.random(in: 0..<places.count, using: &random)]
                text[at] = digits.filter { $0 != text[at] }.randomElement(using: &random)!
            case 1: // cut short
                text = text.prefix(Int.random(in: 1..<text.count, using: &random))
            case 2: // answers deleted (the part rewritten without some, its seal kept)
                var part = try BenchmarkResults.decode(parts[1], path: "p1")
                part.answers.removeLast(Int.random(in: 1...part.answers.count, using: &random))
                text = try part.encoded()
            default: // an answer's track changed
                var part = try BenchmarkResults.decode(parts[1], path: "p1")
                let i = try #require(part.answers.indices.filter { !part.answers[$0].top.isEmpty }.randomElement(using: &random))
                part.answers[i].top[0].track = (part.answers[i].top[0].track + 1) % part.catalog.tracks.count
                text = try part.encoded()
            }
            do {
                let merged = try BenchmarkResults.merge(files: [("p0", parts[0]), ("p1", text)])
                #expect(try merged.encoded() == whole.encoded(), "edit \(edit) changed the merge without a refusal")
            } catch {
                #expect("\(error)".hasPrefix("p1"), "\(error)")
                refused += 1
            }
        }
        #expect(refused >= 95)
        var unsealed = try BenchmarkResults.decode(parts[1], path: "p1")
        unsealed.shard?.seal = nil
        #expect { try BenchmarkResults.merge(files: [("p0", parts[0]), ("p1", try unsealed.encoded())]) } throws: { "\($0)".contains("carries no seal") }
    }
}

/// Writes `header` into the index file at `path` with a fresh header checksum (the body kept), as a
/// hand edit that knows the format would.
private func rewrite(_ path: String, header: IndexFile.Header) throws {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    let oldLength = Int(data.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 16, as: UInt64.self) })
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    var json = try encoder.encode(header)
    while json.count % 8 != 0 { json.append(0x20) }
    var file = data.prefix(16)
    withUnsafeBytes(of: UInt64(json.count).littleEndian) { file.append(contentsOf: $0) }
    withUnsafeBytes(of: Checksum.of(json).littleEndian) { file.append(contentsOf: $0) }
    file.append(json)
    file.append(data.suffix(from: 32 + oldLength))
    try file.write(to: URL(fileURLWithPath: path))
}

/// SplitMix64: the mutation and fuzz campaigns' seeded draws, the same on every machine.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A draw from 0..<n (0 when n < 1), by the modulus: the fuzz campaign's mutants are made of these.
    mutating func next(_ n: Int) -> Int { Int(next() % UInt64(max(1, n))) }
}
