import AudioIO
import DSP
@testable import Fingerprinting
import Foundation
import SuiteEvaluation
import Testing

/// The CI dataset's four real recordings with the 9 s reference windows of the default dataset.
struct RealRecording: Sendable, CustomStringConvertible {
    let file: String
    let referenceStart: Double
    var path: String { testDataRoot.appendingPathComponent(file).path }
    var description: String { file }

    static let all = [
        RealRecording(file: "birds/finch-348.wav", referenceStart: 6),
        RealRecording(file: "birds/finch-363.wav", referenceStart: 7),
        RealRecording(file: "birds/petrel-XC663885.wav", referenceStart: 1),
        RealRecording(file: "birds/petrel-XC46092.wav", referenceStart: 1),
    ]

    func reference(_ algorithm: AnyAlgorithm) throws -> AnyFingerprint {
        try algorithm.fingerprint(file: path, window: TimeWindow(start: referenceStart, duration: 9))
    }

    /// A 4 s query starting `offset` seconds into the reference window.
    func crop(_ algorithm: AnyAlgorithm, offset: Double) throws -> AnyFingerprint {
        try algorithm.fingerprint(file: path, window: TimeWindow(start: referenceStart + offset, duration: 4), role: .query)
    }
}

@Suite struct AFAThesisTests {
    let afa = AnyAlgorithm(AFAThesis())
    /// One spectral image: 128 rows × 64 samples at 5,512 Hz.
    let imageSeconds = 128.0 * 64 / 5512

    @Test func subFingerprintCountsFollowTheThesisArithmetic() throws {
        let noise = SeededNoise(seed: 1)
        for (seconds, expected) in [(9.0, 5), (4.0, 2)] {
            let audio = Audio(samples: noise.gaussian(count: Int(seconds * 5512), sigma: 0.1), sampleRate: 5512)
            let print = try afa.fingerprint(audio)
            #expect(print.subFingerprintCount == expected)
            #expect(print.byteCount == expected * 50)  // 400 bits each
        }
    }

    @Test func identityScoresOne() throws {
        let recording = RealRecording.all[2]
        let print = try recording.reference(afa)
        let result = afa.compare(query: print, reference: print)
        #expect(result.score == 1 && result.offset == 0)
    }

    /// Measured on the four real recordings: a crop that starts on an image boundary scores 93.5-100 %
    /// (the thesis: 92-99 %); its sub-sample misalignment after resampling costs the rest.
    @Test(arguments: RealRecording.all) func anImageAlignedCropIsFoundInItsOwnRecording(recording: RealRecording) throws {
        let query = try recording.crop(afa, offset: imageSeconds)
        let own = afa.compare(query: query, reference: try recording.reference(afa))
        #expect(own.score >= 0.9)
        #expect(abs(own.offset - imageSeconds) < 0.01)
        for other in RealRecording.all where other.file != recording.file {
            let unrelated = afa.compare(query: query, reference: try other.reference(afa))
            #expect(unrelated.score < own.score - 0.3)
            #expect((0.45...0.62).contains(unrelated.score), "unrelated \(other): \(unrelated.score)")
        }
    }

    /// The thesis's own explanation of its failures: one hop (11.6 ms) of misalignment and the
    /// rank-order signs agree no better than chance (measured 49.5-57.7 % on these recordings).
    @Test(arguments: RealRecording.all) func aShiftedCropFallsToChance(recording: RealRecording) throws {
        let query = try recording.crop(afa, offset: imageSeconds + 64.0 / 5512)
        let own = afa.compare(query: query, reference: try recording.reference(afa))
        #expect((0.45...0.62).contains(own.score), "\(own.score)")
    }
}

@Suite struct MelodyAnalyzingTests {
    let maa = AnyAlgorithm(MelodyAnalyzing())
    let binWidth = 44_100.0 / 512

    /// Five sines on exact FFT bins, one per 4,410 Hz range, the loudest of each range known.
    func fiveTones(_ bins: [Int], duration: Double = 1) -> Audio {
        let n = Int(duration * 44_100)
        let samples = (0..<n).map { t in
            bins.reduce(Float(0)) { sum, bin in sum + Float(0.15 * sin(2 * .pi * Double(bin * t) / 512)) }
        }
        return Audio(samples: samples, sampleRate: 44_100)
    }

    @Test func eachWindowHoldsTheLoudestFrequencyOfEachRange() throws {
        let bins = [20, 70, 120, 160, 230]  // 1,723 / 6,029 / 10,336 / 13,781 / 19,811 Hz
        let print = try #require(try maa.fingerprint(fiveTones(bins)).base as? MAAFingerprint)
        #expect(print.windowCount == 44_100 / 512)
        for window in 0..<print.windowCount {
            #expect(print.frequencies(window: window) == bins.map { Double($0) * binWidth })
        }
    }

    @Test func windowsMatchBelow400HzOfSummedDifference() throws {
        let reference = try maa.fingerprint(fiveTones([20, 70, 120, 160, 230]))
        // 4 bins off in total: 344.5 Hz < 400 Hz, every window matches.
        let near = try maa.fingerprint(fiveTones([21, 71, 121, 161, 230]))
        let nearResult = maa.compare(query: near, reference: reference)
        #expect(nearResult.score == 1 && nearResult.rawFigure == 86)
        // 5 bins off: 430.7 Hz, no window matches.
        let far = try maa.fingerprint(fiveTones([21, 71, 121, 161, 231]))
        #expect(maa.compare(query: far, reference: reference).rawFigure == 0)
    }

    /// The loudest bin of a range, eight bins at a time, is the one a scan finds: the first of equal values
    /// (drawn from four, so most ranges hold ties), for every length to 40 at ten offsets; NaN is passed over.
    @Test func theFirstLoudestBinIsTheScansEvenAmongTies() {
        let noise = SeededNoise(seed: 5)
        var power = (0..<60).map { _ in Float(noise.integer(below: 4)) }
        func scan(_ range: Range<Int>) -> Int {
            var best: Float = -1, loudest = -1
            for k in range where power[k] > best { (best, loudest) = (power[k], k) }
            return loudest
        }
        for round in 0..<2 {
            if round == 1 { for k in stride(from: 3, to: 60, by: 7) { power[k] = .nan } }
            for start in 0..<10 {
                for length in 0...40 {
                    let range = start..<(start + length)
                    #expect(power.withUnsafeBufferPointer { firstLoudest($0.baseAddress!, range) } == scan(range), "\(range), round \(round)")
                }
            }
        }
        #expect(firstLoudest([Float.nan, .nan], 0..<2) == -1 && firstLoudest([Float](repeating: .nan, count: 9), 0..<9) == -1)
    }

    @Test func identityScoresOneAndWindowsAreComparedIndexByIndex() throws {
        let recording = RealRecording.all[0]
        let print = try recording.reference(maa)
        let identity = maa.compare(query: print, reference: print)
        #expect(identity.score == 1 && identity.rawFigure == Double(44_100 * 9 / 512))
        // The first 4 s of the reference: the same windows, so every compared window matches.
        let head = try recording.crop(maa, offset: 0)
        #expect(maa.compare(query: head, reference: print).score == 1)
    }
}
