import AudioIO
import DSP
import Foundation

/// A frequency band in Hz, written [low, high] in suite files.
public struct Band: Sendable, Equatable, Codable {
    public var low: Double
    public var high: Double

    public init(_ low: Double, _ high: Double) {
        self.low = low
        self.high = high
    }

    public init(from decoder: Decoder) throws {
        var c = try decoder.unkeyedContainer()
        guard c.count == 2 else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "a band is [low, high] in Hz, two numbers"))
        }
        low = try c.decode(Double.self)
        high = try c.decode(Double.self)
        guard low >= 0, low < high, high <= 200_000 else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "a band needs 0 <= low < high <= 200,000 Hz, got [\(low), \(high)]"))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.unkeyedContainer()
        try c.encode(low)
        try c.encode(high)
    }
}

/// Test 4's simulated chain. Impulse-response ids name the dataset's recordings; a run whose dataset lacks one
/// follows its `MissingRecordingPolicy` (refused, the stage left out and marked, or the project's borrowed). Drift and delay are drawn
/// per query from its seed.
public struct PlaybackSpec: Sendable, Codable, Equatable {
    public var loudspeaker: String?
    public var loudspeakerBand: Band
    public var room: String?
    public var background: NoiseSpec
    public var microphoneBand: Band
    /// The clock-drift factor is drawn uniformly from 1 ± this.
    public var maximumDrift: Double
    /// The delay is drawn uniformly from [0, this) seconds.
    public var maximumDelay: Double

    public init(loudspeaker: String?, loudspeakerBand: Band, room: String?, background: NoiseSpec, microphoneBand: Band,
                maximumDrift: Double, maximumDelay: Double) {
        self.loudspeaker = loudspeaker
        self.loudspeakerBand = loudspeakerBand
        self.room = room
        self.background = background
        self.microphoneBand = microphoneBand
        self.maximumDrift = maximumDrift
        self.maximumDelay = maximumDelay
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(loudspeaker: try c.decodeIfPresent(String.self, forKey: .loudspeaker),
                  loudspeakerBand: try c.decode(Band.self, forKey: .loudspeakerBand),
                  room: try c.decodeIfPresent(String.self, forKey: .room),
                  background: try c.decode(NoiseSpec.self, forKey: .background),
                  microphoneBand: try c.decode(Band.self, forKey: .microphoneBand),
                  maximumDrift: try c.decode(Double.self, forKey: .maximumDrift),
                  maximumDelay: try c.decode(Double.self, forKey: .maximumDelay))
        guard maximumDrift >= 0 && maximumDrift < 0.5 else {
            throw DecodingError.dataCorruptedError(forKey: .maximumDrift, in: c, debugDescription: "must be in [0, 0.5), got \(maximumDrift)")
        }
        guard maximumDelay >= 0 && maximumDelay <= 10 else {
            throw DecodingError.dataCorruptedError(forKey: .maximumDelay, in: c, debugDescription: "must be 0 to 10 s, got \(maximumDelay)")
        }
    }

    /// The dataset recordings the chain names.
    public var recordings: [String] { [loudspeaker, room].compactMap { $0 } + background.recordings }

    public static let phone = PlaybackSpec(
        loudspeaker: "cabinet-EVH-5150-III", loudspeakerBand: Band(150, 12_000),  // a small speaker's usable band (our choice)
        room: "greathall",
        background: NoiseSpec(kind: .pink, level: .snr(dB: 20)),  // a quiet room (our choice)
        microphoneBand: Band(100, 7000),  // a phone microphone's band, about 100 Hz to 7 kHz
        maximumDrift: 0.002,  // 0.2 %: cheap crystal oscillators are within ±100 ppm each; generous on purpose
        maximumDelay: 0.1)
}

extension PlaybackSpec {
    /// Loudspeaker, room, background noise, microphone, then clock drift and delay drawn from `random`. A
    /// recording the context lacks leaves its stage out when the run allows it (`StageContext.leavesOut`), else fails.
    public func stages(_ context: StageContext, random: SeededNoise) throws -> [any Degradation] {
        var stages: [any Degradation] = []
        if let id = loudspeaker, !context.leavesOut([id]) {
            stages.append(ImpulseResponse(name: id, kind: "loudspeaker (a guitar cabinet standing in)",
                                          response: try context.recording(id, "no such impulse response in the dataset")))
        }
        stages.append(BandPass(low: loudspeakerBand.low, high: loudspeakerBand.high, label: "loudspeaker"))
        if let id = room, !context.leavesOut([id]) {
            stages.append(ImpulseResponse(name: id, kind: "room", response: try context.recording(id, "no such impulse response in the dataset")))
        }
        if !context.leavesOut(background.recordings) { stages.append(try background.addNoise(context)) }
        stages.append(BandPass(low: microphoneBand.low, high: microphoneBand.high, label: "phone microphone"))
        stages.append(ClockDrift(factor: 1 + maximumDrift * (2 * random.unit() - 1)))
        stages.append(Delay(seconds: maximumDelay * random.unit()))
        return stages
    }
}
