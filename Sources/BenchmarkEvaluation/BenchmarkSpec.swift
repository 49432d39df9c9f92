import AudioIO
import Degradation
import DSP
import Evaluation
import Fingerprinting
import Foundation

/// One way of degrading every benchmark query, from the existing degradation units.
public struct BenchmarkCondition: Sendable, Codable, Equatable {
    public var id: String
    public var title: String
    public var noise: NoiseSpec?
    public var playback: PlaybackSpec?
    /// Any further stages, in order, after the noise and the playback chain (see `StageSpec`).
    public var stages: [StageSpec]?

    public init(id: String, title: String, noise: NoiseSpec? = nil, playback: PlaybackSpec? = nil, stages: [StageSpec]? = nil) {
        self.id = id
        self.title = title
        self.noise = noise
        self.playback = playback
        self.stages = stages
    }

    /// The dataset recordings (noises, impulse responses) the condition needs.
    var recordings: [String] {
        [noise?.kind.recording].compactMap { $0 } + (playback?.recordings ?? []) + (stages ?? []).flatMap(\.recordings)
    }

    /// Its stages (the query is already cut): noise, the playback chain (drift and delay drawn from `seed`),
    /// then any further stages.
    func stages(_ context: StageContext, seed: UInt64) throws -> [any Degradation] {
        var stages: [any Degradation] = []
        if let noise { stages.append(try noise.addNoise(context)) }
        if let playback { stages += try playback.stages(context, random: SeededNoise(seed: derivedSeed(seed, "draws"))) }
        stages += try (self.stages ?? []).flatMap { try $0.stages(context) }
        return stages
    }
}

/// What the identification benchmark asks: query lengths, how many queries, which conditions.
/// Every field may be set in a spec file (`fpbench benchmark --spec FILE`); left-out fields keep these defaults.
public struct BenchmarkSpec: Sendable, Codable, Equatable {
    /// Query lengths in seconds (the neural-fingerprint benchmark uses 1-10 s).
    public var queryLengths: [Double] = [1, 2, 5, 10]
    /// The query lengths a benchmark or a calibration admits: no built-in algorithm fingerprints less than 0.1 s
    /// (Panako's and the constellation's shortest input is longer), and a shorter window would cut every negative
    /// recording into millions of slots.
    public static let queryLengthRange = 0.1...600.0
    public static let queryLengthRangeText = "at least 0.1 s (no algorithm fingerprints less) and at most 600 s"
    /// Positions cut from catalog tracks per query length; each is degraded under every condition.
    public var queriesPerLength = 100
    /// Queries cut from the negative recordings per query length (the false-positive test): half calibrate
    /// each threshold, half measure it; 1,000 put the held-out rate's 95 % Wilson interval at 1 % within
    /// 0.4-2.3 % (500 left 2.5 chance false positives to the held-out half, 0.2-2.9 %), and calibrate on 500.
    public var negativesPerLength = 1000
    public var conditions: [BenchmarkCondition] = BenchmarkSpec.standardConditions
    /// A top answer is correct when its offset is within this many seconds of the truth (Panako, Olaf).
    public var offsetTolerance = 0.5
    /// The false-positive rate at which each algorithm's threshold is calibrated on the negatives.
    public var falsePositiveTarget = 0.01
    /// How sure each calibrated threshold holds that target (`Calibration.allowedAbove`); nil (left out of the
    /// file, so results written before it keep their seal): `Calibration.standardConfidence`, 0.9, with which
    /// 500 calibration windows let at most 1 score above a 1 % threshold.
    public var falsePositiveConfidence: Double?
    public var confidence: Double { falsePositiveConfidence ?? Calibration.standardConfidence }
    /// Above this many hours of catalog, algorithms without an index (brute force) are skipped.
    public var bruteForceHourLimit = 1.0
    /// Outside systems' files to run beside the algorithms (as `--system`), relative to the working folder.
    public var systems: [String]?
    /// Query starts rounded down to a multiple of this many seconds, so they fall on an algorithm's frame
    /// grid (`fpbench sweep skew` then moves them by parts of its hop); nil (left out of the file): to the millisecond.
    public var startGrid: Double?

    public init() {}

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = BenchmarkSpec()
        queryLengths = try c.decodeIfPresent([Double].self, forKey: .queryLengths) ?? d.queryLengths
        queriesPerLength = try c.decodeIfPresent(Int.self, forKey: .queriesPerLength) ?? d.queriesPerLength
        negativesPerLength = try c.decodeIfPresent(Int.self, forKey: .negativesPerLength) ?? d.negativesPerLength
        conditions = try c.decodeIfPresent([BenchmarkCondition].self, forKey: .conditions) ?? d.conditions
        offsetTolerance = try c.decodeIfPresent(Double.self, forKey: .offsetTolerance) ?? d.offsetTolerance
        falsePositiveTarget = try c.decodeIfPresent(Double.self, forKey: .falsePositiveTarget) ?? d.falsePositiveTarget
        falsePositiveConfidence = try c.decodeIfPresent(Double.self, forKey: .falsePositiveConfidence)
        bruteForceHourLimit = try c.decodeIfPresent(Double.self, forKey: .bruteForceHourLimit) ?? d.bruteForceHourLimit
        systems = try c.decodeIfPresent([String].self, forKey: .systems)
        startGrid = try c.decodeIfPresent(Double.self, forKey: .startGrid)
    }

    /// Clean; white noise at 10, 5 and 0 dB SNR; speech babble at 5 dB; the simulated playback chain of test 4
    /// (a guitar cabinet in a great hall: the extreme); three simulated rooms, from a living room to a hall;
    /// the field's hard cases: speed ±5 % (a radio station's, a turntable's), tempo ±10 % with the pitch
    /// kept (a time-stretched edit), ±1 semitone with the tempo kept (a transposed stream).
    public static let standardConditions = [
        BenchmarkCondition(id: "clean", title: "clean"),
        BenchmarkCondition(id: "white-10dB", title: "white noise, 10 dB SNR", noise: NoiseSpec(kind: .whiteGaussian, level: .snr(dB: 10))),
        BenchmarkCondition(id: "white-5dB", title: "white noise, 5 dB SNR", noise: NoiseSpec(kind: .whiteGaussian, level: .snr(dB: 5))),
        BenchmarkCondition(id: "white-0dB", title: "white noise, 0 dB SNR", noise: NoiseSpec(kind: .whiteGaussian, level: .snr(dB: 0))),
        BenchmarkCondition(id: "babble-5dB", title: "speech babble, 5 dB SNR", noise: NoiseSpec(kind: .recording("babble"), level: .snr(dB: 5))),
        BenchmarkCondition(id: "playback", title: "simulated loudspeaker, room, microphone (test 4)", playback: .phone),
        room("room-0.3s", "a furnished living room (5 × 4 × 2.6 m, RT60 0.3 s), 1.5 m from a small speaker, pink hum at 30 dB SNR",
             RoomStage(rt60: 0.3), NoiseSpec(kind: .pink, level: .snr(dB: 30))),
        room("room-0.8s", "a busy bar (10 × 8 × 3.5 m, RT60 0.8 s, absorbing as an audience), 2.5 m from a small speaker, babble at 10 dB SNR",
             RoomStage(rt60: 0.8, distance: 2.5, size: [10, 8, 3.5], walls: .occupied), NoiseSpec(kind: .recording("babble"), level: .snr(dB: 10))),
        room("room-1.5s", "an empty hall (20 × 15 × 8 m, RT60 1.5 s), 4 m from a small speaker, pink noise at 20 dB SNR",
             RoomStage(rt60: 1.5, distance: 4, size: [20, 15, 8], walls: .empty), NoiseSpec(kind: .pink, level: .snr(dB: 20))),
        BenchmarkCondition(id: "speed-0.95", title: "5 % slower, pitch with it", stages: [StageSpec(SpeedStage(0.95))]),
        BenchmarkCondition(id: "speed-1.05", title: "5 % faster, pitch with it", stages: [StageSpec(SpeedStage(1.05))]),
        BenchmarkCondition(id: "tempo-0.9", title: "10 % slower, pitch kept", stages: [StageSpec(TempoStage(0.9))]),
        BenchmarkCondition(id: "tempo-1.1", title: "10 % faster, pitch kept", stages: [StageSpec(TempoStage(1.1))]),
        BenchmarkCondition(id: "pitch-down", title: "a semitone down, tempo kept", stages: [StageSpec(PitchStage(-1))]),
        BenchmarkCondition(id: "pitch-up", title: "a semitone up, tempo kept", stages: [StageSpec(PitchStage(1))]),
    ]

    /// A recording played in a room: a small full-range speaker (150 Hz-12 kHz, gently compressed: a phone's or
    /// a laptop's; our choice), the room, its noise, and a phone's microphone band (about 100 Hz-7 kHz, as test 4).
    static func room(_ id: String, _ title: String, _ room: RoomStage, _ noise: NoiseSpec) -> BenchmarkCondition {
        let speaker: [StageSpec] = [.highpass(hz: 150), .lowpass(hz: 12_000), .compressor(threshold: -20, ratio: 2, attack: 0.005, release: 0.1)]
        return BenchmarkCondition(id: id, title: title, stages: speaker + [StageSpec(room), .noise(noise), .highpass(hz: 100), .lowpass(hz: 7000)])
    }

    /// Reads a spec file, naming the field that is wrong.
    public static func load(_ path: String) throws -> BenchmarkSpec {
        let spec = try decodeStrictly(BenchmarkSpec.self, path: path, missing: "no such spec file", broken: "broken benchmark spec")
        try spec.validate(path: path)
        return spec
    }

    public func validate(path: String) throws {
        func fail(_ reason: String) -> DatasetError { DatasetError(path: path, reason: reason) }
        if queryLengths.isEmpty || queryLengths.contains(where: { !Self.queryLengthRange.contains($0) }) {
            throw fail("queryLengths: each must be \(Self.queryLengthRangeText)")
        }
        if !(1...100_000).contains(queriesPerLength) { throw fail("queriesPerLength: 1 to 100,000") }
        // Half calibrate each threshold, half measure it held out: fewer than 2 leaves a threshold calibrated on nothing.
        if !(2...100_000).contains(negativesPerLength) { throw fail("negativesPerLength: 2 to 100,000 (half calibrate the threshold, half measure it)") }
        if conditions.isEmpty { throw fail("conditions: at least one") }
        if let unsafe = conditions.first(where: { !SafeName.check($0.id) }) {
            throw fail("conditions: id '\(unsafe.id)' is not a safe file name (\(SafeName.rule)): it names the condition's files")
        }
        if let twice = Dictionary(grouping: conditions, by: \.id).first(where: { $0.value.count > 1 })?.key {
            throw fail("conditions: id '\(twice)' appears twice")
        }
        if !(offsetTolerance > 0) { throw fail("offsetTolerance must be above 0") }
        if !(falsePositiveTarget > 0 && falsePositiveTarget < 1) { throw fail("falsePositiveTarget must be in (0, 1)") }
        if !(confidence > 0 && confidence < 1) { throw fail("falsePositiveConfidence must be in (0, 1)") }
        if let startGrid, !(startGrid > 0 && startGrid <= 10) { throw fail("startGrid must be above 0 and at most 10 s") }
    }
}
