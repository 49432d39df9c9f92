@testable import Fingerprinting
import AudioIO
import DSP
import Foundation
import Testing

/// nafp-small's forward pass in Swift against PyTorch's own output on the fixture's inputs, and the
/// weights' pin.
@Suite struct NAFPSmallTests {
    struct Fixture: Decodable {
        var weightsSHA256: String
        var inputs: [String]
        var embeddings: [[Double]]
    }

    /// The fixture's three inputs (`fixture_inputs` in scripts/train_nafp_small.py), t = n / 8000.
    static func inputs() -> [[Float]] {
        let t = (0..<8000).map { Double($0) / 8000 }
        return [t.map { Float(0.3 * sin(2 * .pi * 440 * $0)) },
                t.map { Float(0.2 * sin(2 * .pi * (300 + 900 * $0) * $0)) },
                t.map { Float(0.1 * sin(2 * .pi * 700 * $0) + 0.1 * sin(2 * .pi * 1900 * $0 + 1) + 0.05 * sin(2 * .pi * 3100 * $0 + 2)) }]
    }

    /// The layers' product kernel keeps its contract on shapes that leave partial blocks and tiles (13 rows,
    /// 37 columns), or have fewer columns than a tile (one segment's last layers: 8 and 1), with zeros among
    /// the factors and a -0 in c: the AVX2 kernel, the scalar one and the definition written out here (each term
    /// rounded, then added in the order of k, zero factors skipped) agree bit for bit, with b row-major or in the
    /// kernel's tiles, and with c starting at biases, ReLU as it is stored.
    @Test(arguments: [(13, 37, 29), (12, 32, 576), (64, 33, 513), (64, 8, 192), (190, 1, 576)]) func theProductKernelHasTheSameBitsOnEveryProcessor(m: Int, n: Int, k: Int) {
        var state: UInt64 = 7
        func next() -> Float {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let v = Int(state >> 40) % 1000
            return v < 250 ? 0 : Float(v - 600) / 97
        }
        let a = (0..<(m * k)).map { _ in next() }, b = (0..<(k * n)).map { _ in next() }
        var start = (0..<(m * n)).map { _ in next() }
        start[0] = -0.0
        var vector = start, scalar = start, written = start
        multiply(a, b, into: &vector, m: m, n: n, k: k)
        multiply(a, b, into: &scalar, m: m, n: n, k: k, scalar: true)
        for i in 0..<m {
            for p in 0..<k where a[i * k + p] != 0 {
                for j in 0..<n {
                    let term = a[i * k + p] * b[p * n + j]
                    written[i * n + j] = written[i * n + j] + term
                }
            }
        }
        #expect(vector.map(\.bitPattern) == written.map(\.bitPattern))
        #expect(scalar.map(\.bitPattern) == written.map(\.bitPattern))
        // b in the kernel's tiles ([n / 16 rounded up][k][16]), each row of c starting at a bias (c's values, NaN here,
        // never read) and ReLU as c is stored (-0 and NaN stay): the convolutions' form, the same bits again.
        var tiles = [Float](repeating: 0, count: (n + 15) / 16 * 16 * k)
        for p in 0..<k { for j in 0..<n { tiles[(j / 16 * k + p) * 16 + j % 16] = b[p * n + j] } }
        var biases = (0..<m).map { _ in next() }
        biases[m - 1] = -0.0
        var expected = (0..<(m * n)).map { biases[$0 / n] }
        for i in 0..<m {
            for p in 0..<k where a[i * k + p] != 0 {
                for j in 0..<n { expected[i * n + j] = expected[i * n + j] + a[i * k + p] * b[p * n + j] }
            }
        }
        for (tiled, biased) in [(true, false), (false, true), (true, true)] {
            let want = biased ? expected.map { $0 < 0 ? 0 : $0 } : written
            for scalar in [false, true] {
                var c = biased ? [Float](repeating: .nan, count: m * n) : start
                multiply(a, tiled ? tiles : b, into: &c, m: m, n: n, k: k, scalar: scalar, tiled: tiled, biases: biased ? biases : nil, relu: biased)
                #expect(c.map(\.bitPattern) == want.map(\.bitPattern), "tiled \(tiled), biases and ReLU \(biased), scalar \(scalar)")
            }
        }
    }

    @Test func theForwardPassReproducesPyTorch() throws {
        let fixture = try JSONDecoder().decode(Fixture.self, from: Data(contentsOf: repositoryRoot.appendingPathComponent("Algorithms/nafp-small/nafp-small.fpnn.fixture.json")))
        #expect(fixture.weightsSHA256 == NAFPSmall.weightsSHA256)
        let encoder = try NAFPSmall.network("").get().encoder
        let fft = RealFFT(size: encoder.header.fft)
        var buffers = SeparableEncoder.Buffers()
        let embeddings = encoder.embed(Self.inputs().map { encoder.image($0[...], fft: fft) }, buffers: &buffers)
        var largest = 0.0
        for (i, expected) in fixture.embeddings.enumerated() {
            for (j, value) in expected.enumerated() { largest = max(largest, abs(Double(embeddings[i * 128 + j]) - value)) }
        }
        #expect(largest <= 1e-4, "largest difference from PyTorch: \(largest)")
        // One at a time gives what a batch gives.
        let one = encoder.embed([encoder.image(Self.inputs()[2][...], fft: fft)], buffers: &buffers)
        #expect(zip(one, embeddings[256...]).allSatisfy { abs($0 - $1) <= 1e-6 })
    }

    /// `--set nafp-small.weights=FILE`: a copy of the built-in weights gives the built-in fingerprint under a
    /// profile that names the file by its SHA-256 (so the fingerprint cache keeps them apart); a file that is
    /// not weights, or none at all, is refused when the variant is made, naming the file.
    @Test func otherWeightsAreReadFromTheFileNamed() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nafp-weights-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let copy = folder.appendingPathComponent("copy.fpnn").path, damaged = folder.appendingPathComponent("damaged.fpnn").path
        let built = try #require(NAFPSmall.builtInWeights)
        try FileManager.default.copyItem(atPath: built.path, toPath: copy)
        try Data("FPNN 1\n{\"not\": \"weights\"}\n".utf8).write(to: URL(fileURLWithPath: damaged))

        let builtIn = try AlgorithmRegistry.algorithm("nafp-small"), other = try AlgorithmRegistry.algorithm("nafp-small@weights=\(copy)")
        let music = try AudioReader.read(try catalogCIDataset().path("drascula/track10.ogg"), sampleRate: 8000)
        let clip = Audio(samples: Array(music.samples[0..<40_000]), sampleRate: 8000)
        #expect(try other.fingerprint(clip, role: .query).base as? VectorFingerprint == builtIn.fingerprint(clip, role: .query).base as? VectorFingerprint)
        #expect(other.profile.key != builtIn.profile.key)
        #expect(other.profile.key.contains("weights=\(copy), SHA-256 \(NAFPSmall.weightsSHA256)"), "\(other.profile.key)")
        for (file, says) in [(damaged, "is not a weights file"), (folder.appendingPathComponent("none.fpnn").path, "no readable file")] {
            #expect { try AlgorithmRegistry.algorithm("nafp-small@weights=\(file)") } throws: { "\($0)".contains(says) && "\($0)".contains(file) }
        }
    }

    /// A 10 s crop of real music, 23.4 s in (off the 0.5 s grid), found in a catalog of three tracks.
    @Test func aCropOfRealMusicIsFound() throws {
        let algorithm = try AlgorithmRegistry.algorithm("nafp-small")
        let dataset = try catalogCIDataset()
        let tracks = ["track10.ogg", "track11.ogg", "track12.ogg"].map { dataset.path("drascula/\($0)") }
        let catalog = Catalog(algorithm: algorithm)
        for track in tracks { catalog.add(try algorithm.fingerprint(file: track), name: track) }
        let music = try AudioReader.read(tracks[1], sampleRate: 8000)
        let crop = Audio(samples: Array(music.samples[187_200..<267_200]), sampleRate: 8000)
        let best = try #require(try catalog.search(try algorithm.fingerprint(crop, role: .query), limit: 1).first)
        #expect(best.reference == tracks[1] && abs(best.comparison.offset - 23.4) <= 0.5, "\(best)")
    }
}
