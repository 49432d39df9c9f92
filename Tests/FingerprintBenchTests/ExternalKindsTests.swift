import AudioIO
@testable import Fingerprinting
import DSP
import Foundation
import OutsidePrograms
import Testing

/// The three kinds of external algorithm (words, hashes, vectors) and the vector index: the worked Python
/// examples in Algorithms/examples find real music, broken copies are refused by name and lose nothing
/// else, and the vector index's exact and FAISS searches agree.
@Suite(.serialized) struct ExternalKindsTests {
    static let examples = repositoryRoot.appendingPathComponent("Algorithms/examples")
    static var hashes: String { examples.appendingPathComponent("landmark-hashes.json").path }
    static var vectors: String { examples.appendingPathComponent("random-projection-vectors.json").path }

    /// numpy under /usr/bin/python3 (scripts/test.sh installs python3-numpy); in CI its absence is a failure.
    func requireNumpy() throws -> Bool {
        let found = (try? ChildRun.run("/usr/bin/python3", ["-c", "import numpy"]))?.status == 0
        if !found, ProcessInfo.processInfo.environment["CI"] == "true" { try unavailable("python3-numpy is not installed (scripts/test.sh installs it)") }
        return found
    }

    /// Three real tracks indexed; a 10 s crop of the second, 23.4 s in, is found there at its offset.
    @Test(arguments: [hashes, vectors]) func anExampleFindsACropOfRealMusic(file: String) throws {
        guard try requireNumpy() else { return }
        let algorithm = try ExternalCommand.load(file).algorithm()
        let dataset = try catalogCIDataset()
        let tracks = ["track10.ogg", "track11.ogg", "track12.ogg"].map { dataset.path("drascula/\($0)") }
        let catalog = Catalog(algorithm: algorithm)
        for track in tracks { catalog.add(try algorithm.fingerprint(file: track), name: track) }
        let music = try AudioReader.read(tracks[1], sampleRate: algorithm.sampleRate)
        let start = Int(23.4 * algorithm.sampleRate)
        let crop = Audio(samples: Array(music.samples[start..<(start + Int(10 * algorithm.sampleRate))]), sampleRate: algorithm.sampleRate)
        let best = try #require(try catalog.search(try algorithm.fingerprint(crop, role: .query), limit: 1).first)
        #expect(best.reference == tracks[1])
        #expect(abs(best.comparison.offset - 23.4) <= algorithm.offsetResolution!, "\(algorithm.identifier) found it at \(best.comparison.offset) s")
    }

    /// A copy of an example with a fault: each is refused with the algorithm's name and the reason, and
    /// the next file is fingerprinted as if nothing had happened.
    @Test func brokenCopiesAreRefusedByNameAndLoseNothingElse() throws {
        guard try requireNumpy() else { return }
        let audio = Audio(samples: (0..<16_000).map { Float(sin(Double($0) * 0.05)) * 0.5 + Float(($0 * 7919) % 101) / 500 }, sampleRate: 8000)
        var wrongDimension = try ExternalCommand.load(Self.vectors).configuration
        wrongDimension.dimension = 64
        #expect { try ExternalCommand(configuration: wrongDimension).algorithm().fingerprint(audio) } throws: {
            "\($0)".contains("external algorithm random-projection-py") && "\($0)".contains("vector 0 has 128 values; its file says dimension 64")
        }
        // A server that answers NaN for its second file, and dies on its fourth.
        var faulty = wrongDimension
        faulty.dimension = 2
        faulty.command = ["/usr/bin/python3", "-u", "-c", """
            import json, sys
            for n, line in enumerate(sys.stdin):
                if n == 3: sys.exit(3)
                value = float('nan') if n == 1 else 1.0
                print(json.dumps({"times": [0.0, 0.5], "vectors": [[1.0, value], [0.5, 0.5]]}), flush=True)
            """]
        let server = try ExternalCommand(configuration: faulty).algorithm()
        #expect(try server.fingerprint(audio).subFingerprintCount == 2)
        #expect { try server.fingerprint(audio) } throws: { "\($0)".contains("random-projection-py") && "\($0)".contains("NaN and infinities are not JSON") }
        #expect(try server.fingerprint(audio).subFingerprintCount == 2)
        #expect { try server.fingerprint(audio) } throws: { "\($0)".contains("its process ended mid-run (exit status 3)") }
        #expect(try server.fingerprint(audio).subFingerprintCount == 2, "a new process answers the next file")

        var backwards = try ExternalCommand.load(Self.hashes).configuration
        backwards.command = ["sh", "-c", #"echo '{"hashes": [[7, 1.0], [9, 0.5]]}'"#, "sh", "{input}"]
        #expect { try ExternalCommand(configuration: backwards).algorithm().fingerprint(audio) } throws: {
            "\($0)".contains("landmark-hashes-py") && "\($0)".contains("hash 1's time goes backwards")
        }
        backwards.command = ["sh", "-c", #"echo '{"hashes": [[7, 0.5], [9, 400]]}'"#, "sh", "{input}"]
        #expect { try ExternalCommand(configuration: backwards).algorithm().fingerprint(audio) } throws: { "\($0)".contains("hash 1 at 400.0 s, outside the 2.000 s") }
        var dying = backwards
        dying.command = ["sh", "-c", "kill -9 $$", "sh", "{input}"]
        #expect { try ExternalCommand(configuration: dying).algorithm().fingerprint(audio) } throws: { "\($0)".contains("killed by signal 9") }
        #expect(try ExternalCommand.load(Self.hashes).algorithm().fingerprint(audio).subFingerprintCount > 0, "the next call is untouched")
    }

    /// With no Swift per algorithm: both examples go through `fpbench benchmark` on catalog-ci, and through
    /// `index build` and `identify` (the index file read back, the crop found).
    @Test func theExamplesRunThroughTheCommands() throws {
        guard try requireNumpy() else { return }
        let folder = temporaryFolder(), dataset = try catalogCIDataset()
        let externals = ["--external", Self.hashes, "--external", Self.vectors]
        let benchmark = try runFPBench(["benchmark", "--dataset", "catalog-ci", "--queries", "6", "--negatives", "8", "--lengths", "5",
                                        "--conditions", "clean", "white-5dB", "--no-cache", "--quiet", "--missing-recordings", "leave-out",
                                        "--algorithms", "landmark-hashes-py", "random-projection-py", "--out", folder.appendingPathComponent("b").path] + externals)
        #expect(benchmark.status == 0, "\(benchmark.errors)")
        let metrics = try String(contentsOf: folder.appendingPathComponent("b/metrics.csv"), encoding: .utf8)
        for id in ["landmark-hashes-py", "random-projection-py"] {
            #expect(metrics.contains("\(id),5,clean,correct,"), "\(id) has no row in metrics.csv")
            #expect(metrics.contains("\(id),5,clean,top-1 within ±50 ms (no threshold),"))
        }
        let tracks = ["track10.ogg", "track11.ogg", "track12.ogg"].map { dataset.path("drascula/\($0)") }
        let crop = folder.appendingPathComponent("crop.wav").path
        let music = try AudioReader.read(tracks[0], sampleRate: 8000)  // 71 s
        try AudioWriter.write(Audio(samples: Array(music.samples[120_000..<200_000]), sampleRate: 8000), to: crop)
        for id in ["landmark-hashes-py", "random-projection-py"] {
            let index = folder.appendingPathComponent("\(id).fpindex").path
            let build = try runFPBench(["index", "build", "-a", id, "--catalog"] + tracks + ["--quiet", "--out", index] + externals)
            #expect(build.status == 0, "\(build.errors)")
            let found = try runFPBench(["identify", "-a", id, "--index", index, "--threshold", "0.01"] + externals + ["--", crop])
            #expect(found.status == 0 && found.output.contains("track10.ogg"), "\(id): \(found.output) \(found.errors)")
        }
    }

    @Test func configurationsOfTheWrongShapeAreRefusedOnLoad() throws {
        var c = try ExternalCommand.load(Self.vectors).configuration
        c.minimumSimilarity = nil
        #expect { try ExternalCommand(configuration: c) } throws: { "\($0)".contains("output vectors needs minimumSimilarity") }
        c = try ExternalCommand.load(Self.vectors).configuration
        c.command.append("{input}")
        #expect { try ExternalCommand(configuration: c) } throws: { "\($0)".contains("serve mode reads its inputs' paths from standard input") }
        c = try ExternalCommand.load(Self.vectors).configuration
        c.vectorSearch = "LSH"
        #expect { try ExternalCommand(configuration: c).algorithm() } throws: { "\($0)".contains("vectorSearch: \"exact\" or a FAISS") }
        var h = try ExternalCommand.load(Self.hashes).configuration
        h.berThreshold = 0.3
        #expect { try ExternalCommand(configuration: h) } throws: { "\($0)".contains("output hashes does not use them") }
    }
}

/// The vector index: exact search finds the nearest rows with the same bits on every processor, and
/// agrees with FAISS's approximate search on the top answer;
/// its index file round-trips, FAISS's part included, and a flipped byte is caught by its checksum.
@Suite struct VectorIndexTests {
    /// FAISS's products and the synthetic vectors run on the serial OpenBLAS wherever Debian installed it
    /// (Package.swift's run path), not on the threaded variant Debian prefers when both are present, whose
    /// thread spins for about 0.1 CPU s in every process at load. `ldd` resolves as the loader will.
    @Test func theToolLoadsTheSerialOpenBLAS() throws {
        #if arch(x86_64)
        let serial = "/usr/lib/x86_64-linux-gnu/openblas-serial/"
        #else
        let serial = "/usr/lib/aarch64-linux-gnu/openblas-serial/"
        #endif
        let run = try ChildRun.run("/usr/bin/ldd", [builtFPBench.path], keepErrors: true)
        let openBLAS = String(decoding: run.output, as: UTF8.self).split(separator: "\n").filter { $0.contains("libopenblas") }
        #expect(run.status == 0 && openBLAS.count == 1, "\(openBLAS)")
        if FileManager.default.fileExists(atPath: serial) {
            #expect(openBLAS.allSatisfy { $0.contains("=> " + serial) }, "\(openBLAS)")
        }
    }

    /// `count` random unit vectors of 32 floats, seeded.
    static func vectors(_ count: Int, seed: UInt64) -> [Float] {
        var state = seed
        let values = (0..<(count * 32)).map { _ -> Float in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Float(Int64(bitPattern: state >> 11) % 2000 - 1000) / 1000
        }
        return VectorFingerprint.normalized(values, dimension: 32)
    }

    /// 40 references of 500 segments; 200 queries of 8 segments each, copies of a reference stretch with noise.
    static func catalog(_ search: VectorSearch, streamingRows: Int = VectorSearch.exactLimit) -> (VectorIndex, [(query: VectorFingerprint, reference: Int, offset: Double)]) {
        var index = VectorIndex(neighbours: 10, search: search)
        index.streamingRows = streamingRows
        var prints: [VectorFingerprint] = []
        for r in 0..<40 {
            let print = VectorFingerprint(dimension: 32, values: vectors(500, seed: UInt64(r + 1)), times: (0..<500).map(UInt32.init), step: 0.5, duration: 250)
            index.add(print, reference: r)
            prints.append(print)
        }
        index.seal()
        let queries = (0..<200).map { q -> (VectorFingerprint, Int, Double) in
            let r = (q * 7) % 40, first = (q * 13) % 490
            let noise = vectors(8, seed: UInt64(10_000 + q))
            let values = zip(prints[r].values[(first * 32)..<((first + 8) * 32)], noise).map { $0 + 0.6 * $1 }
            return (VectorFingerprint(dimension: 32, values: VectorFingerprint.normalized(values, dimension: 32), times: (0..<8).map(UInt32.init),
                                      step: 0.5, duration: 4), r, Double(first) * 0.5)
        }
        return (index, queries)
    }

    /// 2,053 rows of 128 floats (three blocks, the last pack partial) and 7 queries (a group of 6, one of 1):
    /// the AVX2 kernel's scores are the scalar kernel's bit for bit, and both keep the rows a sum in
    /// double precision ranks first, ties aside.
    @Test func exactSearchHasTheSameBitsOnEveryProcessor() throws {
        let dimension = 128, base = Self.vectors(2_053 * 4, seed: 5), queries = Self.vectors(7 * 4, seed: 6), k = 5
        let vector = VectorIndex.exactNearest(base, dimension: dimension, queries: queries, k: k)
        let scalar = VectorIndex.exactNearest(base, dimension: dimension, queries: queries, k: k, scalar: true)
        #expect(vector.rows == scalar.rows)
        #expect(vector.scores.map(\.bitPattern) == scalar.scores.map(\.bitPattern))
        for q in 0..<7 {
            let precise = (0..<2_053).map { r in
                (0..<dimension).reduce(0.0) { $0 + Double(base[r * dimension + $1]) * Double(queries[q * dimension + $1]) }
            }
            let best = precise.indices.sorted { precise[$0] > precise[$1] }.prefix(k)
            for (slot, row) in best.enumerated() {
                #expect(abs(Double(vector.scores[q * k + slot]) - precise[row]) < 1e-5, "query \(q), place \(slot)")
            }
            #expect(Set(vector.rows[(q * k)..<(q * k + k)].map(Int.init)) == Set(best), "query \(q)")
        }
    }

    /// Rows repeated 7 times over (equal scores everywhere): both kernels keep the lowest rows of each tie,
    /// as the exact order (score, then row) has it, whichever of the 8 compared at once beat the worst kept.
    @Test func exactSearchBreaksTiesByTheLowerRow() throws {
        let dimension = 128, distinct = Self.vectors(300 * 4, seed: 7), queries = Self.vectors(19 * 4, seed: 8), k = 20
        let base = (0..<2_100).flatMap { r in distinct[(r % 300 * dimension)..<(r % 300 * dimension + dimension)] }
        for scalar in [false, true] {
            let found = VectorIndex.exactNearest(base, dimension: dimension, queries: queries, k: k, scalar: scalar)
            for q in 0..<19 {
                let score = (0..<300).map { r in (0..<dimension).reduce(Float(0)) { fmaf(distinct[r * dimension + $1], queries[q * dimension + $1], $0) } }
                let order = (0..<2_100).sorted { score[$0 % 300] != score[$1 % 300] ? score[$0 % 300] > score[$1 % 300] : $0 < $1 }
                #expect(found.rows[(q * k)..<(q * k + k)].map(Int.init) == Array(order.prefix(k)), "query \(q), scalar \(scalar)")
            }
        }
    }

    @Test func exactAndFAISSAgreeOnTheTopAnswer() throws {
        let (exact, queries) = Self.catalog(.exact)
        let (approximate, _) = Self.catalog(.faiss(description: "IVF64,PQ8np", probes: 16))
        #expect(approximate.search == .faiss(description: "IVF64,PQ8np", probes: 16), "\(approximate.faissProblem ?? "")")
        var agree = 0, right = 0
        for (query, reference, offset) in queries {
            let a = exact.candidates(for: query, limit: 1).first, b = approximate.candidates(for: query, limit: 1).first
            if a?.reference == b?.reference && a?.offset == b?.offset { agree += 1 }
            if a?.reference == reference && a?.offset == offset { right += 1 }
        }
        #expect(right == queries.count, "exact search found \(right) of \(queries.count)")
        #expect(Double(agree) >= 0.99 * Double(queries.count), "FAISS agreed on \(agree) of \(queries.count)")
    }

    /// On real music: nafp-small's fingerprints of the seven catalog-ci tracks, 60 crops of 5 s under white
    /// noise at 5 dB; exact search and FAISS (an inverted file of 16 lists, all probed, or an inverted
    /// multi-index of 256 cells, 64 probed, as large catalogs get it; product-quantised) agree on the top
    /// candidate for at least 99 % of them.
    @Test(arguments: ["IVF16,PQ32np", "IMI2x4,PQ32np"]) func exactAndFAISSAgreeOnRealMusic(description: String) throws {
        let algorithm = try AlgorithmRegistry.algorithm("nafp-small"), dataset = try catalogCIDataset()
        let tracks = try FileManager.default.contentsOfDirectory(atPath: dataset.path("drascula")).filter { $0.hasSuffix(".ogg") }.sorted()
        var exact = VectorIndex(neighbours: 20, search: .exact), approximate = VectorIndex(neighbours: 20, search: .faiss(description: description, probes: description.hasPrefix("IMI") ? 64 : 16))
        var audio: [Audio] = []
        for (r, track) in tracks.enumerated() {
            let music = try AudioReader.read(dataset.path("drascula/\(track)"), sampleRate: 8000)
            let print = try algorithm.fingerprint(music).base as! VectorFingerprint
            exact.add(print, reference: r)
            approximate.add(print, reference: r)
            audio.append(music)
        }
        exact.seal()
        approximate.seal()
        #expect(approximate.search != .exact, "\(approximate.faissProblem ?? "")")
        let noise = SeededNoise(seed: 59).gaussian(count: 40_000, sigma: 1)
        var agree = 0
        for q in 0..<60 {
            let music = audio[q % audio.count], start = (q * 7_919 * 37) % (music.samples.count - 40_000)
            let crop = Array(music.samples[start..<(start + 40_000)])
            let level = (crop.map { $0 * $0 }.reduce(0, +) / Float(crop.count)).squareRoot() / Float(pow(10, 5.0 / 20))
            let query = try algorithm.fingerprint(Audio(samples: zip(crop, noise).map { $0 + level * $1 }, sampleRate: 8000), role: .query).base as! VectorFingerprint
            if exact.candidates(for: query, limit: 1).first?.reference == approximate.candidates(for: query, limit: 1).first?.reference { agree += 1 }
        }
        #expect(agree >= 60 * 99 / 100, "FAISS agreed with exact search on \(agree) of 60")
    }

    /// A catalog that grows past its streaming size (here 5,000 of its 20,000 rows) builds FAISS's index from
    /// its first rows and adds the others as they come, holding no floats: FAISS's inverted multi-index (by
    /// L2, its scores given as inner products) still finds every query, and an index file of its codes alone
    /// reads back, but not for exact search.
    @Test func aCatalogPastItsStreamingSizeHoldsFAISSCodesAlone() throws {
        let search = VectorSearch.faiss(description: "IMI2x4,PQ8np", probes: 16)
        let (streamed, queries) = Self.catalog(search, streamingRows: 5_000), (exact, _) = Self.catalog(.exact)
        #expect(streamed.search == search, "\(streamed.faissProblem ?? "")")
        #expect(streamed.byteCount < 20_000 * 32 * 4 / 2, "\(streamed.byteCount) bytes")
        var right = 0
        for (query, reference, offset) in queries {
            let found = streamed.candidates(for: query, limit: 1).first
            if found?.reference == reference && found?.offset == offset { right += 1 }
        }
        #expect(Double(right) >= 0.99 * Double(queries.count), "found \(right) of \(queries.count)")
        // Its similarities are inner products: the best neighbour of a query row about the exact one's.
        let (approximate, precise) = (streamed.nearest(queries[0].query).scores[0], exact.nearest(queries[0].query).scores[0])
        #expect(abs(approximate - precise) < 0.15, "\(approximate) against \(precise)")

        var writer = IndexFile.Writer(algorithm: try AlgorithmRegistry.algorithm("constellation"), references: (0..<40).map { "r\($0)" },
                                      durations: Array(repeating: 250, count: 40), checksums: Array(repeating: "", count: 40), calibration: nil)
        streamed.save(to: &writer)
        let path = temporaryFolder().appendingPathComponent("codes.fpindex").path
        try writer.write(to: path)
        var loaded = VectorIndex(neighbours: 10, search: search)
        try loaded.load(from: IndexFile.Reader(path: path))
        for (query, _, _) in queries.prefix(20) { #expect(loaded.candidates(for: query, limit: 3) == streamed.candidates(for: query, limit: 3)) }
        var asExact = VectorIndex(neighbours: 10, search: .exact)
        #expect { try asExact.load(from: IndexFile.Reader(path: path)) } throws: { "\($0)".contains("FAISS codes alone") }
    }

    /// A sealed exact index holds its rows packed for the kernel; its index file holds them as added, and an
    /// index read back (and packed again) answers as the one that wrote it. The built catalog's rows are the
    /// seeded vectors `catalog` adds, so the file's section is compared with them directly.
    @Test func anExactIndexWritesItsRowsAsAddedAndReadsThemBack() throws {
        let (built, queries) = Self.catalog(.exact)
        var writer = IndexFile.Writer(algorithm: try AlgorithmRegistry.algorithm("constellation"), references: (0..<40).map { "r\($0)" },
                                      durations: Array(repeating: 250, count: 40), checksums: Array(repeating: "", count: 40), calibration: nil)
        built.save(to: &writer)
        let path = temporaryFolder().appendingPathComponent("e.fpindex").path
        try writer.write(to: path)
        let reader = try IndexFile.Reader(path: path)
        let rows = try withExtendedLifetime(reader) { Array(try reader.array("vectors.values", of: Float.self)) }  // a view of its mapping
        #expect(rows == (0..<40).flatMap { Self.vectors(500, seed: UInt64($0 + 1)) })
        var loaded = VectorIndex(neighbours: 10, search: .exact)
        try loaded.load(from: IndexFile.Reader(path: path))
        for (query, _, _) in queries.prefix(20) {
            #expect(loaded.nearest(query).scores.map(\.bitPattern) == built.nearest(query).scores.map(\.bitPattern))
            #expect(loaded.candidates(for: query, limit: 3) == built.candidates(for: query, limit: 3))
        }
    }

    @Test func theIndexFileKeepsFAISSAndRefusesADamagedOne() throws {
        let (built, queries) = Self.catalog(.faiss(description: "IVF64,PQ8np", probes: 16))
        var writer = IndexFile.Writer(algorithm: try AlgorithmRegistry.algorithm("constellation"), references: (0..<40).map { "r\($0)" },
                                      durations: Array(repeating: 250, count: 40), checksums: Array(repeating: "", count: 40), calibration: nil)
        built.save(to: &writer)
        let path = temporaryFolder().appendingPathComponent("v.fpindex").path
        try writer.write(to: path)
        var loaded = VectorIndex(neighbours: 10, search: .faiss(description: "IVF64,PQ8np", probes: 16))
        try loaded.load(from: IndexFile.Reader(path: path))
        #expect(loaded.search == built.search)
        for (query, _, _) in queries.prefix(20) { #expect(loaded.candidates(for: query, limit: 3) == built.candidates(for: query, limit: 3)) }
        // A byte of FAISS's section (the file's last) flipped: refused by the section's checksum, never handed to FAISS.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let section = try #require(try IndexFile.Reader(path: path).header.sections["vectors.faiss"])
        bytes[bytes.count - section.length / 2] ^= 0xff
        try bytes.write(to: URL(fileURLWithPath: path))
        var damaged = VectorIndex(neighbours: 10, search: .faiss(description: "IVF64,PQ8np", probes: 16))
        #expect { try damaged.load(from: IndexFile.Reader(path: path)) } throws: { "\($0)".contains("damaged") }
    }
}
