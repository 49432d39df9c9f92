import AudioIO
import Degradation
import DSP
@testable import Fingerprinting
import Foundation
import SuiteEvaluation
import Testing

/// Checks against figures from outside the code: each algorithm's paper, not its own past output.
@Suite struct AnchorTests {
    static let track = "drascula/track10.ogg"

    /// Haitsma & Kalker 2002, section 4: two fingerprint blocks match when their bit-error rate is below
    /// 0.35; unrelated audio gives independent bits (a rate near 0.5). A 5 s excerpt under white noise at
    /// 0 dB SNR is found at its offset with a rate of 0.387, which the paper's threshold calls no match
    /// (a threshold moved to 0.40 would call it one); unrelated music stays far above 0.35 at every offset.
    @Test func haitsmaKalkersThresholdSeparatesAsThePaperSays() throws {
        let hk = try AlgorithmRegistry.algorithm("haitsma-kalker")
        let path = try catalogCIDataset().path(Self.track)
        let reference = try hk.fingerprint(file: path, window: TimeWindow(start: 10, duration: 20))
        let excerpt = try AudioReader.read(path, sampleRate: hk.sampleRate, window: TimeWindow(start: 15, duration: 5))
        let noisy = try AddNoise(kind: .whiteGaussian, level: .snr(dB: 0)).apply(excerpt, random: SeededNoise(seed: 5))
        let found = hk.compare(query: try hk.fingerprint(noisy, role: .query), reference: reference)
        #expect(abs(found.offset - 5) < 0.05 && (0.36...0.40).contains(found.rawFigure), "\(found)")
        #expect(!hk.isMatch(found), "a bit-error rate of \(found.rawFigure) is above the paper's 0.35")
        let clean = hk.compare(query: try hk.fingerprint(excerpt, role: .query), reference: reference)
        #expect(clean.rawFigure < 0.1 && hk.isMatch(clean))
        let other = try hk.fingerprint(file: try catalogCIDataset().path("drascula/track12.ogg"), window: TimeWindow(start: 1, duration: 5), role: .query)
        #expect(hk.compare(query: other, reference: reference).rawFigure > 0.42)
    }

    /// Six & Leman 2014 and Six 2022 (Panako's triplets), Sonnleitner & Widmer 2016 (quads): hashes that survive
    /// a change of speed, and a match that recovers the time factor and the offset. A 10 s excerpt played 5 %
    /// slower or faster is found at its offset with the factor it was played at: within 0.5 % and 50 ms for
    /// Panako's published settings and the dense variant, 1 % and 100 ms for the quads (fewer hashes).
    @Test(arguments: [("panako", 0.005, 0.05), ("panako@dense", 0.005, 0.05), ("quads", 0.01, 0.1)])
    func theSpeedFactorIsRecovered(identifier: String, factorTolerance: Double, offsetTolerance: Double) throws {
        let algorithm = try AlgorithmRegistry.algorithm(identifier)
        let path = try catalogCIDataset().path(Self.track)
        let reference = try algorithm.fingerprint(file: path)
        let excerpt = try AudioReader.read(path, sampleRate: algorithm.sampleRate, window: TimeWindow(start: 15, duration: 10))
        for factor in [0.95, 1.05] {
            let played = try Speed(factor: factor).apply(excerpt, random: SeededNoise(seed: 5))
            let found = algorithm.compare(query: try algorithm.fingerprint(played, role: .query), reference: reference)
            let timeFactor = try #require(found.timeFactor)
            #expect(abs(timeFactor / factor - 1) < factorTolerance && abs(found.offset - 15) < offsetTolerance && algorithm.isMatch(found),
                    "\(identifier) at \(factor): \(found)")
        }
    }

    /// Wang 2003, with audfprint's packing (Ellis 2009): a hash is an anchor peak's frequency bin (8 bits), the
    /// bin difference to a later target peak (6 bits, biased) and their frame difference (6 bits), and a
    /// match is the offset most hash pairs agree on. Four tone bursts at known times and frequencies give
    /// exactly the pairs that fall within the target zone, at bin = f·N/rate and frames = Δt·rate/hop (±1
    /// for where a burst meets the frame grid); the same audio cut 0.3 s later matches at 0.3 s.
    @Test(arguments: [("constellation", 11_025.0), ("constellation@birdsong", 22_050.0)])
    func constellationHashesAreTheBurstsPairs(identifier: String, rate: Double) throws {
        let algorithm = try AlgorithmRegistry.algorithm(identifier)
        let bursts: [(t: Double, f: Double)] = [(0.5, 800), (1.0, 1000), (1.5, 1300), (2.2, 900)]
        let quiet = SeededNoise(seed: 2).gaussian(count: Int(3 * rate), sigma: 1e-5)
        var samples = quiet
        for burst in bursts {
            let start = Int(burst.t * rate)
            for i in 0..<512 { samples[start + i] += Float(0.5 * sin(.pi * Double(i) / 512) * sin(2 * .pi * burst.f * Double(i) / rate)) }
        }
        let audio = Audio(samples: samples, sampleRate: rate)
        let reference = try #require(try algorithm.fingerprint(audio).base as? HashFingerprint)
        let found = reference.hashes.map(PeakPairHash.audfprint.unpack)
        let bin = { (f: Double) in f * 512 / rate }, frames = { (t: Double) in t * rate / 256 }
        // Pairs within the zone: at most 63 frames later and 31 bins apart (800 -> 900 is 1.7 s later: out).
        let zone = bursts.indices.flatMap { a in bursts.indices.filter { $0 > a }.map { (a, $0) } }.filter { a, b in
            frames(bursts[b].t - bursts[a].t) <= 63 && abs(bin(bursts[b].f) - bin(bursts[a].f)) <= 31
        }
        #expect(found.count == zone.count, "\(found)")
        for (a, b) in zone {
            let f1 = bin(bursts[a].f), df = bin(bursts[b].f) - f1, dt = frames(bursts[b].t - bursts[a].t)
            #expect(found.contains { abs(Double($0.f1) - f1) <= 1 && abs(Double($0.df) - df) <= 1.5 && abs(Double($0.dt) - dt) <= 1.5 },
                    "no hash for \(bursts[a].f) Hz -> \(bursts[b].f) Hz: (\(f1), \(df), \(dt)) in \(found)")
        }
        let later = Audio(samples: Array(samples.dropFirst(Int(0.3 * rate))), sampleRate: rate)
        let match = algorithm.compare(query: try algorithm.fingerprint(later, role: .query), reference: try algorithm.fingerprint(audio))
        #expect(abs(match.offset - 0.3) <= 256 / rate && match.rawFigure >= Double(zone.count - 1), "\(match)")
    }

    /// Pitch classes, as music theory has them (C = 0, A4 = 440 Hz): every frame of a C major triad
    /// (C4, E4, G4) has C, E and G as its three strongest classes; an A4 alone has A.
    @Test func chromaFindsTheTriadsPitchClasses() throws {
        let chroma = try AlgorithmRegistry.algorithm("chroma-baseline")
        func frames(_ frequencies: [Double]) throws -> [[Float]] {
            let rate = chroma.sampleRate, n = Int(3 * rate)
            let audio = Audio(samples: (0..<n).map { i in Float(frequencies.reduce(0) { $0 + 0.2 * sin(2 * .pi * $1 * Double(i) / rate) }) }, sampleRate: rate)
            let print = try #require(try chroma.fingerprint(audio).base as? ChromaFingerprint)
            return stride(from: 0, to: print.chroma.count, by: 12).map { Array(print.chroma[$0..<$0 + 12]) }
        }
        let strongest = { (frame: [Float], k: Int) in Set(frame.indices.sorted { frame[$0] > frame[$1] }.prefix(k)) }
        let triad = try frames([261.63, 329.63, 392.00])
        #expect(!triad.isEmpty && triad.allSatisfy { strongest($0, 3) == [0, 4, 7] })
        #expect(try frames([440]).allSatisfy { strongest($0, 1) == [9] })
    }

    /// Baluja & Covell 2008: Waveprint's spectral images span 32 logarithmic bands from 318 Hz to 2 kHz, so a
    /// loud tone at 150 Hz added to music leaves every sub-fingerprint as it was (88 of 88 match), and the
    /// same tone at 1 kHz does not (64 of 88).
    @Test func waveprintSeesOnly318HzTo2kHz() throws {
        let waveprint = try AlgorithmRegistry.algorithm("waveprint")
        let path = try catalogCIDataset().path(Self.track)
        let music = try AudioReader.read(path, sampleRate: waveprint.sampleRate, window: TimeWindow(start: 15, duration: 10))
        let reference = try waveprint.fingerprint(music)
        func withTone(_ frequency: Double) throws -> Comparison {
            let rate = waveprint.sampleRate
            let toned = Audio(samples: music.samples.enumerated().map { $1 + Float(0.5 * sin(2 * .pi * frequency * Double($0) / rate)) }, sampleRate: rate)
            return waveprint.compare(query: try waveprint.fingerprint(toned, role: .query), reference: reference)
        }
        let outside = try withTone(150), inside = try withTone(1000)
        #expect(outside.score == 1 && abs(outside.offset) < 0.02, "\(outside)")
        #expect(inside.score < 0.8, "\(inside)")
    }
}
