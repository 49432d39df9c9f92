import AudioIO
import Degradation
import DSP
import Evaluation
import Fingerprinting
import Foundation
import OutsidePrograms
import SuiteEvaluation
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

    /// What `fpbench algorithms` and the help texts say an algorithm can do is what it does: keys or vectors
    /// the scale test can draw anew, an index, key counts for slices, a time factor under a 5 % speed change.
    @Test(arguments: identifiers) func capabilitiesAreWhatTheAlgorithmDoes(identifier: String) throws {
        let algorithm = try AlgorithmRegistry.algorithm(identifier)
        let print = try algorithm.fingerprint(audio(algorithm, start: 1, duration: 9))
        let can = algorithm.capabilities
        let statistics = (print.base as? VectorFingerprint).flatMap { VectorStatistics([$0]) }
        #expect(can.contains(.scalable) == (print.keys != nil || statistics.flatMap { print.drawingVectors(from: $0, seed: 1) } != nil))
        #expect(can.contains(.indexed) == Catalog(algorithm: algorithm).isIndexed)
        let counter = KeyCounter(algorithm: algorithm)
        counter.add(print)
        #expect(can.contains(.sliceable) == (counter.counts != nil))
        #expect(can.contains(.variants) == !algorithm.settable.isEmpty)
        // Finding a time factor is declared: one that declares it finds a 5 % speed change in music (as the
        // anchor tests check for each), one that does not reports none.
        let path = try catalogCIDataset().path(AnchorTests.track)
        let excerpt = try AudioReader.read(path, sampleRate: algorithm.sampleRate, window: TimeWindow(start: 15, duration: 10))
        let played = try Speed(factor: 1.05).apply(excerpt, random: SeededNoise(seed: 5))
        let found = algorithm.compare(query: try algorithm.fingerprint(played, role: .query), reference: try algorithm.fingerprint(file: path))
        if can.contains(.timeFactor) {
            #expect(abs((found.timeFactor ?? 1) / 1.05 - 1) < 0.01, "time factor \(found.timeFactor ?? 1)")
        } else {
            #expect(found.timeFactor == nil)
        }
        #expect(AlgorithmRegistry.identifiers(with: can) .contains(identifier))
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

    /// The caches keep the compact form: it must give back the same fingerprint, field for field.
    @Test(arguments: identifiers) func fingerprintsRoundTripThroughTheCompactForm(identifier: String) throws {
        let algorithm = try AlgorithmRegistry.algorithm(identifier)
        for role in [FingerprintRole.reference, .query] {
            let print = try algorithm.fingerprint(audio(algorithm, start: 1, duration: 9), role: role)
            let compact = try algorithm.encode(print, as: .compact)
            #expect(try algorithm.encode(algorithm.decode(compact, as: .compact)) == algorithm.encode(print))
            #expect(compact.count < (try algorithm.encode(print)).count, "the compact form is smaller than JSON")
        }
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
        guard let step = algorithm.offsetResolution else {
            #expect(Self.unaligned.contains(identifier), "\(identifier) lost its offset resolution")  // only these do not align
            return
        }
        let offset = (2.9 / step).rounded(.down) * step
        let reference = try algorithm.fingerprint(audio(algorithm, start: 1, duration: 9))
        let query = try algorithm.fingerprint(audio(algorithm, start: 1 + offset, duration: 4), role: .query)
        let result = algorithm.compare(query: query, reference: reference)
        #expect(abs(result.offset - offset) <= step + 1e-9, "offset \(result.offset), cut at \(offset)")
    }

    /// The negative control: a 6 s crop of the reference's own recording (on the algorithm's offset grid: AFA's
    /// bits are not shift-invariant) scores clearly above 6 s of unrelated audio (a finch's song, and a piece
    /// of music) against the same reference, for every algorithm and named variant; a `compare` that returned
    /// a constant would fail here.
    @Test(arguments: identifiers + AlgorithmRegistry.namedVariants.map(\.identifier))
    func unrelatedAudioScoresClearlyBelowTheMatchingCrop(identifier: String) throws {
        let algorithm = try AlgorithmRegistry.algorithm(identifier)
        let reference = try algorithm.fingerprint(audio(algorithm, start: 1, duration: 9))
        let offset = algorithm.offsetResolution.map { (2 / $0).rounded(.down) * $0 } ?? 2  // on the algorithm's own grid
        let matching = algorithm.compare(query: try algorithm.fingerprint(audio(algorithm, start: 1 + offset, duration: 6), role: .query), reference: reference)
        for (file, start) in [(RealRecording.all[0].path, 6.0), (try catalogCIDataset().path("drascula/track10.ogg"), 20.0)] {
            let unrelated = try algorithm.fingerprint(AudioReader.read(file, sampleRate: algorithm.sampleRate, window: TimeWindow(start: start, duration: 6)), role: .query)
            let other = algorithm.compare(query: unrelated, reference: reference)
            #expect(matching.score > 0 && other.score <= (1 - Self.controlMargin) * matching.score,
                    "\(identifier): matching crop \(matching.score), unrelated \(file) \(other.score)")
        }
        #expect(algorithm.isMatch(matching))
    }

    /// The algorithms that give no offset (the thesis's MAA compares melodies, not positions).
    static let unaligned: Set<String> = ["maa-thesis"]

    /// Unrelated audio scores at most this share below the matching crop (a share, as the thesis algorithms'
    /// scores are small: MAA's crop scores 0.004 against 0 for unrelated audio; the others clear it with room).
    static let controlMargin = 0.1

    /// Determinism across processes, not only within one: two `fpbench index build` runs over the same
    /// files write the same bytes (fingerprints, postings and header), for every algorithm and named variant.
    @Test(arguments: identifiers + AlgorithmRegistry.namedVariants.map(\.identifier))
    func twoProcessesWriteTheSameIndex(identifier: String) throws {
        let folder = temporaryFolder(), dataset = try catalogCIDataset()
        let tracks = ["drascula/track10.ogg", "birds/finch-348.wav"].map { dataset.path($0) }
        let files = try ["a", "b"].map { name -> Data in
            let out = folder.appendingPathComponent("\(name).fpindex").path
            let build = try runFPBench(["index", "build", "-a", identifier, "--catalog"] + tracks + ["--quiet", "--out", out])
            #expect(build.status == 0, "\(build.errors)")
            return try Data(contentsOf: URL(fileURLWithPath: out))
        }
        #expect(!files[0].isEmpty && files[0] == files[1], "\(identifier): two processes wrote different index files")
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

/// A file fingerprinted as it decodes gives the fingerprint of the whole signal read at once, for every
/// algorithm (the streaming ones as the file decodes; the others read it whole), on real recordings, whole and windowed, mono
/// and stereo, resampled and not.
@Suite struct StreamingTests {
    @Test(arguments: AlgorithmRegistry.all) func aStreamedFileGivesTheWholeSignalsFingerprint(algorithm: AnyAlgorithm) throws {
        for file in ["birds/finch-348.wav", "birds/petrel-XC663885.wav"] {
            let path = testDataRoot.appendingPathComponent(file).path
            for window in [nil, TimeWindow(start: 1.25, duration: 4)] {
                let streamed = try algorithm.fingerprint(file: path, window: window)
                let whole = try algorithm.fingerprint(try AudioReader.read(path, sampleRate: algorithm.sampleRate, window: window))
                #expect(try algorithm.encode(streamed) == algorithm.encode(whole), "\(algorithm.identifier) on \(file) \(String(describing: window))")
            }
        }
        let samples = try AudioReader.read(testDataRoot.appendingPathComponent("birds/petrel-XC663885.wav").path, sampleRate: 11_025)
        var blocks: [Float] = []
        let rate = try AudioReader.stream(testDataRoot.appendingPathComponent("birds/petrel-XC663885.wav").path, sampleRate: 11_025) { blocks += $0 }
        #expect(rate == 11_025 && blocks == samples.samples, "the blocks add up to exactly what read returns")
    }

    /// Algorithms fed together, from one decoding of a file or from audio in memory, give each the fingerprint it gives
    /// alone, though the front ends that compute the same rows (Panako's variants) run once for all of them; each is
    /// charged the rows' time as if it ran alone, and the time counted more than once is said apart.
    @Test func algorithmsFedTogetherGiveTheFingerprintsTheyGiveAlone() throws {
        let algorithms = try ["panako", "constellation", "panako@dense", "haitsma-kalker", "panako@large", "quads", "nafp-small"].map(AlgorithmRegistry.algorithm)
        let path = testDataRoot.appendingPathComponent("birds/petrel-XC663885.wav").path
        let fromFile = try AnyAlgorithm.fingerprints(file: path, window: TimeWindow(start: 0.5, duration: 6), algorithms: algorithms, clock: threadCPUSeconds)
        let audio = try Set(algorithms.map(\.sampleRate)).sorted().map { try AudioReader.read(path, sampleRate: $0, window: TimeWindow(start: 0.5, duration: 6)) }
        let inMemory = AnyAlgorithm.fingerprints(audio, algorithms: algorithms, clock: threadCPUSeconds)
        for (a, algorithm) in algorithms.enumerated() {
            let alone = try algorithm.encode(algorithm.fingerprint(file: path, window: TimeWindow(start: 0.5, duration: 6)))
            #expect(try algorithm.encode(fromFile.results[a].print.get()) == alone, "\(algorithm.identifier) from the file")
            #expect(try algorithm.encode(inMemory.results[a].print.get()) == alone, "\(algorithm.identifier) in memory")
            #expect(fromFile.results[a].seconds > 0 && inMemory.results[a].seconds > 0)
        }
        #expect(fromFile.shared > 0 && inMemory.shared > 0, "the three Panako variants' rows computed once")
        let panakos = [0, 2, 4]
        #expect(fromFile.shared < panakos.map { fromFile.results[$0].seconds }.reduce(0, +), "counted more than once, not more than charged")
        let silence = AnyAlgorithm.fingerprints([Audio(samples: [Float](repeating: 0, count: 40_000), sampleRate: 16_000)], algorithms: panakos.map { algorithms[$0] })
        for result in silence.results { #expect(throws: FingerprintError.silent) { try result.print.get() } }
    }

    /// Which front ends compute the same rows: the same kind of row and the same STFT, never a transform of an
    /// algorithm's own (it cannot be compared).
    @Test func frontEndsComputeTheSameRowsOnlyWhenTheirKindAndSTFTAgree() {
        let panako = Panako().frontEnd, dense = Panako(parameters: { var p = Panako.Parameters(); p.peakBinRadius = 25; return p }()).frontEnd
        var lowered = Panako.Parameters()
        lowered.lowestFrequency = 100
        #expect(panako.computesSameRows(as: dense) && !panako.computesSameRows(as: Panako(parameters: lowered).frontEnd))
        #expect(!panako.computesSameRows(as: QuadFingerprinting().frontEnd) && !HaitsmaKalker().frontEnd.computesSameRows(as: HaitsmaKalker().frontEnd))
    }

    /// Memory stays bounded: a process fingerprinting 12 minutes peaks within 16 MB of one fingerprinting
    /// 1 minute, for every built-in algorithm (a front end that gathered the signal would hold 23 MB more
    /// samples at 8 kHz, twice that while its array grows).
    @Test func memoryDoesNotGrowWithTheFilesLength() throws {
        let folder = temporaryFolder()
        var state: UInt64 = 7
        func file(minutes: Int) throws -> String {
            let samples = (0..<(minutes * 60 * 8000)).map { i -> Float in
                state = state &* 6364136223846793005 &+ 1442695040888963407
                let noise = Float(Int64(bitPattern: state) >> 40) / Float(1 << 23)
                return 0.3 * noise * Float(1 + sin(Double(i) / 1300)) + 0.2 * Float(sin(Double(i) * 0.3))
            }
            let path = folder.appendingPathComponent("\(minutes)-min.wav").path
            try AudioWriter.write(Audio(samples: samples, sampleRate: 8000), to: path)
            return path
        }
        let short = try file(minutes: 1), long = try file(minutes: 12)
        for id in AlgorithmRegistry.identifiers {
            let peaks = try [short, long].map { path in
                let run = try ChildRun.run(builtFPBench.path, ["fingerprint", "-a", id, path], keepErrors: true)
                #expect(run.status == 0, "\(id): \(run.errors)")
                return run.peakResidentBytes
            }
            #expect(peaks[1] - peaks[0] < 16_000_000, "\(id): \(peaks[0] / 1_000_000) MB for 1 min, \(peaks[1] / 1_000_000) MB for 12")
        }
    }

    @Test func silenceAndShortFilesAreRefusedAsInMemory() throws {
        let folder = temporaryFolder()
        let silent = folder.appendingPathComponent("silent.wav"), short = folder.appendingPathComponent("short.wav")
        try AudioWriter.write(Audio(samples: [Float](repeating: 0, count: 5 * 44_100), sampleRate: 44_100), to: silent.path)
        try AudioWriter.write(Audio(samples: [Float](repeating: 0.1, count: 100), sampleRate: 44_100), to: short.path)
        for id in AlgorithmRegistry.identifiers {
            let algorithm = try AlgorithmRegistry.algorithm(id)
            #expect { try algorithm.fingerprint(file: silent.path) } throws: { ($0 as? FingerprintError) == .silent }
            #expect { try algorithm.fingerprint(file: short.path) } throws: { if case .tooShort? = $0 as? FingerprintError { return true } else { return false } }
        }
    }
}

/// Golden fingerprints: each algorithm's fingerprint of a fixed generated input, pinned by its
/// SHA-256 with the revision it belongs to. Changing an algorithm's output without bumping its
/// `revision` (which invalidates cached fingerprints) fails here.
@Suite struct GoldenFingerprintTests {
    static let golden: [String: (revision: Int, sha256: String)] = [
        "maa-thesis": (1, "7e1d2ae10ffffb8722f94af26330387b42041a4d14468eece3770080999347e3"),
        "afa-thesis": (2, "5e74efdf5f13b7b844277e97f5c5dc678f7043e88e846d76bf11594ecf348530"),
        "waveprint": (2, "5741723a78f1b04f0319a439d1b3975afd28ca642337a9551d4526d32ea45367"),
        "constellation": (2, "685281d042deec10cc686accf65ec25a063c466cefdae8db3d6db5ba667e303f"),
        "haitsma-kalker": (2, "904a57c06ede713aeb1f031b0fb173b9f235d4920bb904b5f749ca98ae6c0f4d"),
        "chroma-baseline": (2, "fb856e5a8df65115790a1611956dfcb6fe134bf1f5f0b128dddc0d7bede19921"),
        "panako": (1, "8b9493b97792370138009b521b19385401abbe6598ec6fe440ce2e57f3ed14cd"),
        "quads": (1, "dd168dc04ece58797f4abb773c50ade57d62d351ef1059846a32c0831edf49ad"),
        "nafp-small": (1, "f08c32c7e9c854500e5ae1b0a24cd2e10690042948da6da79d7c7e41d5cbae36"),
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
