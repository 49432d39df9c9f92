import AudioIO
import DSP
import Fingerprinting
import Foundation
import Evaluation
import Testing

/// The conformance kit: every registered algorithm passes these automatically, so a new one is checked
/// for the classic mistakes the moment it is added to `AlgorithmRegistry`.
@Suite struct ConformanceTests {
    static let identifiers = AlgorithmRegistry.identifiers
    /// A real recording whose calls lie in every algorithm's band (the storm-petrel, 44.1 kHz mono).
    static let recording = RealRecording.all[3]

    func audio(_ algorithm: AnyAlgorithm, start: Double, duration: Double) throws -> Audio {
        try AudioReader.read(Self.recording.path, sampleRate: algorithm.sampleRate, window: TimeWindow(start: start, duration: duration))
    }

    @Test(arguments: identifiers) func fingerprintsAreDeterministic(identifier: String) throws {
        let algorithm = try AlgorithmRegistry.algorithm(identifier)
        let input = try audio(algorithm, start: 1, duration: 5)
        for role in [FingerprintRole.reference, .query] {
            #expect(try algorithm.encode(algorithm.fingerprint(input, role: role)) == (try algorithm.encode(algorithm.fingerprint(input, role: role))))
        }
    }

    @Test(arguments: identifiers) func fingerprintsRoundTripThroughJSON(identifier: String) throws {
        let algorithm = try AlgorithmRegistry.algorithm(identifier)
        let print = try algorithm.fingerprint(audio(algorithm, start: 1, duration: 9))
        let back = try algorithm.decode(algorithm.encode(print))
        #expect(try algorithm.encode(back) == algorithm.encode(print))
        #expect(algorithm.compare(query: back, reference: print) == algorithm.compare(query: print, reference: print))
    }

    @Test(arguments: identifiers) func identityScoresOneAndSizeIsReported(identifier: String) throws {
        let algorithm = try AlgorithmRegistry.algorithm(identifier)
        let input = try audio(algorithm, start: 1, duration: 9)
        let reference = try algorithm.fingerprint(input, role: .reference)
        let result = algorithm.compare(query: try algorithm.fingerprint(input, role: .query), reference: reference)
        #expect(result.score == 1 && result.offset == 0)
        #expect(algorithm.isMatch(result))
        #expect(reference.byteCount > 0 && reference.subFingerprintCount > 0 && abs(reference.duration - 9) < 0.01)
    }

    @Test(arguments: identifiers) func scoresStayWithinZeroAndOne(identifier: String) throws {
        let algorithm = try AlgorithmRegistry.algorithm(identifier)
        let noise = SeededNoise(seed: 3)
        let inputs = [try audio(algorithm, start: 1, duration: 9), try audio(algorithm, start: 3, duration: 4),
                      Audio(samples: noise.gaussian(count: Int(4 * algorithm.sampleRate), sigma: 0.1), sampleRate: algorithm.sampleRate),
                      try AudioReader.read(RealRecording.all[0].path, sampleRate: algorithm.sampleRate, window: TimeWindow(start: 6, duration: 9))]
        let prints = try inputs.map { try algorithm.fingerprint($0) }
        for q in prints {
            for r in prints {
                let result = algorithm.compare(query: q, reference: r)
                #expect((0...1).contains(result.score), "\(result)")
                #expect(result.offset.isFinite && result.rawFigure.isFinite)
            }
        }
    }

    /// A crop on the algorithm's own offset grid is found where it was cut, within one step.
    @Test(arguments: identifiers) func aCropIsFoundAtItsOffset(identifier: String) throws {
        let algorithm = try AlgorithmRegistry.algorithm(identifier)
        guard let step = algorithm.offsetResolution else { return }  // the algorithm does not align (MAA)
        let offset = (2.9 / step).rounded(.down) * step
        let reference = try algorithm.fingerprint(audio(algorithm, start: 1, duration: 9))
        let query = try algorithm.fingerprint(audio(algorithm, start: 1 + offset, duration: 4), role: .query)
        let result = algorithm.compare(query: query, reference: reference)
        #expect(abs(result.offset - offset) <= step + 1e-9, "offset \(result.offset), cut at \(offset)")
    }

    @Test(arguments: identifiers) func silenceAndTooShortInputGiveAClearError(identifier: String) throws {
        let algorithm = try AlgorithmRegistry.algorithm(identifier)
        let silence = Audio(samples: [Float](repeating: 0, count: Int(5 * algorithm.sampleRate)), sampleRate: algorithm.sampleRate)
        #expect(throws: FingerprintError.silent) { try algorithm.fingerprint(silence) }
        let short = Audio(samples: [Float](repeating: 0.1, count: 3), sampleRate: algorithm.sampleRate)
        #expect(throws: FingerprintError.tooShort(duration: 3 / algorithm.sampleRate, minimum: algorithm.minimumDuration)) {
            try algorithm.fingerprint(short)
        }
        #expect(throws: FingerprintError.self) { try algorithm.fingerprint(Audio(samples: silence.samples, sampleRate: 1234)) }
    }
}

/// Golden fingerprints: each algorithm's fingerprint of a fixed generated input, pinned by its
/// SHA-256 with the revision it belongs to. Changing an algorithm's output without bumping its
/// `revision` (which invalidates cached fingerprints) fails here.
@Suite struct GoldenFingerprintTests {
    static let golden: [String: (revision: Int, sha256: String)] = [
        "maa-thesis": (1, "7e1d2ae10ffffb8722f94af26330387b42041a4d14468eece3770080999347e3"),
        "afa-thesis": (1, "6513666d7afee7755e3e8ee2209fdf278956e67a16d803d9081bcf90c2d08022"),
        "waveprint": (1, "e14cc87a2a5ad6dc7cc56fab44e58d80a9c05b2ea1cde784a6e6aafa4305b26b"),
        "constellation": (1, "753ee5bc101d78ad9ca02c0eff3b5e5e455b57bd795317c9ac34b149cda62ee4"),
        "haitsma-kalker": (1, "36d3cdc327b6cf5371f4ce358d55d89d1595a8a57cce73bb477c607a8daa9cc0"),
        "chroma-baseline": (1, "9954d52a1ca71a567963960c1381e029c3e4cfc8c08ecbbe2a9f8f38da9760cc"),
    ]

    /// 6 s of two gliding tones over seeded pink noise, at the algorithm's rate.
    static func input(sampleRate: Double) -> Audio {
        let n = Int(6 * sampleRate)
        let noise = SeededNoise(seed: 7).pink(count: n, sigma: 0.05)
        return Audio(samples: (0..<n).map { i in
            let t = Double(i) / sampleRate
            return Float(0.3 * sin(2 * .pi * (300 * t + 40 * t * t)) + 0.2 * sin(2 * .pi * (1200 * t - 60 * t * t))) + noise[i]
        }, sampleRate: sampleRate)
    }

    @Test(arguments: AlgorithmRegistry.identifiers) func theFingerprintOfAFixedInputIsPinned(identifier: String) throws {
        let algorithm = try AlgorithmRegistry.algorithm(identifier)
        let print = try algorithm.fingerprint(Self.input(sampleRate: algorithm.sampleRate))
        let digest = sha256Hex(try algorithm.encode(print))
        let pinned = try #require(Self.golden[identifier], "\(identifier) has no golden fingerprint: add (\(algorithm.revision), \"\(digest)\")")
        if pinned.revision == algorithm.revision {
            #expect(digest == pinned.sha256, "\(identifier)'s fingerprints changed at revision \(algorithm.revision): if that is meant, bump its revision (cached fingerprints are then recomputed) and pin (\(algorithm.revision + 1), \"\(digest)\")")
        } else {
            Issue.record("\(identifier) is at revision \(algorithm.revision), its golden entry at \(pinned.revision): pin (\(algorithm.revision), \"\(digest)\")")
        }
    }
}
