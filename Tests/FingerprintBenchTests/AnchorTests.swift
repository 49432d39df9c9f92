import AudioIO
import DSP
import Degradation
import Fingerprinting
import Foundation
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

    /// Six & Leman 2014; Six 2022: Panako's triplet hashes survive a change of speed, and its match recovers
    /// the time factor and the offset. A 10 s excerpt played 5 % slower or faster is found at its offset with
    /// the factor it was played at, within 0.5 %, by the published settings and the dense variant alike.
    @Test(arguments: ["panako", "panako@dense"]) func panakoRecoversTheSpeedFactor(identifier: String) throws {
        let panako = try AlgorithmRegistry.algorithm(identifier)
        let path = try catalogCIDataset().path(Self.track)
        let reference = try panako.fingerprint(file: path)
        let excerpt = try AudioReader.read(path, sampleRate: panako.sampleRate, window: TimeWindow(start: 15, duration: 10))
        for factor in [0.95, 1.05] {
            let played = try Speed(factor: factor).apply(excerpt, random: SeededNoise(seed: 5))
            let found = panako.compare(query: try panako.fingerprint(played, role: .query), reference: reference)
            let timeFactor = try #require(found.timeFactor)
            #expect(abs(timeFactor / factor - 1) < 0.005 && abs(found.offset - 15) < 0.05 && panako.isMatch(found), "\(identifier) at \(factor): \(found)")
        }
    }
}
