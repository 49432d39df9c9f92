import AudioIO
import DSP
import Evaluation
import Fingerprinting
import Foundation
import SuiteEvaluation
import Testing

/// Golden matches: what every algorithm and named variant answers for a fixed noisy query, pinned as one
/// line: the query-side fingerprint's SHA-256 (its first 16 hex digits), `compare` against the reference,
/// the index's search among the reference and a decoy, and the hits its lookup gathered for each. The fingerprint goldens
/// (`GoldenFingerprintTests`) hold only the reference side; a change to the query path, the matcher,
/// the index, a threshold or a named variant's values moves this line. If that is meant, pin the line
/// the failure prints (and say in the commit what moved and why).
@Suite struct GoldenMatchTests {
    static let golden: [String: String] = [
        "afa-thesis": "query 55f145d557a30fec · compare 0.497500 at 1.486 s (raw 0.497500) · search golden 0.497500 at 1.486 s (raw 0.497500), decoy 0.497500 at 0.000 s (raw 0.497500) · index hits golden 0, decoy 0",
        "chroma-baseline": "query c78ce6a2746d54fa · compare 0.998628 at 0.991 s (raw 0.998628) · search golden 0.998628 at 0.991 s (raw 0.998628), decoy 0.236079 at 0.248 s (raw 0.236079) · index hits golden 0, decoy 0",
        "constellation": "query d3b5f60869f4cedf · compare 0.453980 at 0.998 s (raw 387.000000) · search golden 0.453980 at 0.998 s (raw 387.000000), decoy 0.003367 at 2.786 s (raw 2.000000) · index hits golden 387, decoy 2",
        "constellation@birdsong": "query 2f3ffcff491e3118 · compare 0.464052 at 0.998 s (raw 799.000000) · search golden 0.464052 at 0.998 s (raw 799.000000), decoy 0.003167 at -0.128 s (raw 4.000000) · index hits golden 799, decoy 4",
        "constellation@large": "query f46d4eb7d3aad554 · compare 0.511628 at 0.998 s (raw 455.000000) · search golden 0.511628 at 0.998 s (raw 455.000000) · index hits golden 455",
        "haitsma-kalker": "query 73fc79738691996a · compare 0.936999 at 0.999 s (raw 0.063001) · search golden 0.936999 at 0.999 s (raw 0.063001) · index hits golden 231",
        "maa-thesis": "query 8efc2e6a9e34cc03 · compare 0.000000 at 0.000 s (raw 0.000000) · search golden 0.000000 at 0.000 s (raw 0.000000), decoy 0.000000 at 0.000 s (raw 0.000000) · index hits golden 0, decoy 0",
        "panako": "query 33927de2642ea6fe · compare 0.746914 at 0.996 s (raw 121.000000, time factor 1.0000) · search golden 0.746914 at 0.996 s (raw 121.000000, time factor 1.0000) · index hits golden 121",
        "panako@dense": "query b566f5b012f7732c · compare 0.488396 at 1.000 s (raw 968.000000, time factor 1.0000) · search golden 0.488396 at 1.000 s (raw 968.000000, time factor 1.0000) · index hits golden 968",
        "nafp-small": "query 6f7b7bee206d233b · compare 0.999922 at 1.000 s (raw 0.999922) · search golden 0.999922 at 1.000 s (raw 0.999922), decoy 0.127823 at -0.500 s (raw 0.127823) · index hits golden 7, decoy 6",
        "panako@large": "query b566f5b012f7732c · compare 0.488396 at 1.000 s (raw 968.000000, time factor 1.0000) · search golden 0.488396 at 1.000 s (raw 968.000000, time factor 1.0000) · index hits golden 968",
        "quads": "query 8901a98d47e7de1f · compare 0.652174 at 1.000 s (raw 15.000000, time factor 1.0000) · search golden 0.652174 at 1.000 s (raw 15.000000, time factor 1.0000), decoy 0.000000 at 0.228 s (raw 0.000000) · index hits golden 22, decoy 2",
        "waveprint": "query 0cc92902e3e3b62a · compare 1.000000 at 0.975 s (raw 25.000000) · search golden 1.000000 at 0.975 s (raw 25.000000) · index hits golden 195",
    ]

    /// The golden input's seconds 1-5 under faint seeded white noise (σ 0.005, about 30 dB below the tones: enough to move every bit-level value, little enough for every index to find it).
    static func query(sampleRate: Double) -> Audio {
        let whole = GoldenFingerprintTests.input(sampleRate: sampleRate)
        let start = Int(sampleRate), count = Int(4 * sampleRate)
        let noise = SeededNoise(seed: 9).gaussian(count: count, sigma: 0.005)
        return Audio(samples: (0..<count).map { whole.samples[start + $0] + noise[$0] }, sampleRate: sampleRate)
    }

    /// Other tones over other noise: what a wrong answer would name.
    static func decoy(sampleRate: Double) -> Audio {
        let n = Int(6 * sampleRate)
        let noise = SeededNoise(seed: 8).pink(count: n, sigma: 0.05)
        return Audio(samples: (0..<n).map { i in
            let t = Double(i) / sampleRate
            return Float(0.3 * sin(2 * .pi * (500 * t - 30 * t * t)) + 0.2 * sin(2 * .pi * (2000 * t + 50 * t * t))) + noise[i]
        }, sampleRate: sampleRate)
    }

    static func describe(_ c: Comparison) -> String {
        String(format: "%.6f at %.3f s (raw %.6f%@)", c.score, c.offset, c.rawFigure, c.timeFactor.map { String(format: ", time factor %.4f", $0) } ?? "")
    }

    /// The line pinned for one algorithm.
    static func line(_ algorithm: AnyAlgorithm) throws -> String {
        let reference = try algorithm.fingerprint(GoldenFingerprintTests.input(sampleRate: algorithm.sampleRate))
        let query: AnyFingerprint
        do { query = try algorithm.fingerprint(Self.query(sampleRate: algorithm.sampleRate), role: .query) } catch { return "query: \(error)" }
        let catalog = Catalog(algorithm: algorithm)
        catalog.add(reference, name: "golden")
        catalog.add(try algorithm.fingerprint(decoy(sampleRate: algorithm.sampleRate)), name: "decoy")
        let found = try catalog.search(query, limit: 2, applyingThreshold: false)
        let hits = try catalog.verifiedCandidates(query, limit: 2).map { "\(catalog.names[$0.reference]) \($0.hits)" }
        return "query \(sha256Hex(try algorithm.encode(query)).prefix(16)) · compare \(describe(algorithm.compare(query: query, reference: reference)))"
            + " · search " + found.map { "\($0.reference) \(describe($0.comparison))" }.joined(separator: ", ") + " · index hits " + hits.joined(separator: ", ")
    }

    @Test(arguments: AlgorithmRegistry.identifiers + AlgorithmRegistry.namedVariants.map(\.identifier))
    func theMatchOfAFixedQueryIsPinned(identifier: String) throws {
        let now = try Self.line(AlgorithmRegistry.algorithm(identifier))
        let pinned = try #require(Self.golden[identifier], "\(identifier) has no golden match: pin \"\(identifier)\": \"\(now)\",")
        #expect(now == pinned, "\(identifier)'s match moved: if that is meant, pin \"\(identifier)\": \"\(now)\",")
    }
}
