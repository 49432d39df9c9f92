import AudioIO
import DSP

/// What a degradation did, recorded with every result: its name and every parameter, as text.
public struct DegradationRecord: Sendable, Codable, Equatable {
    public var name: String
    public var parameters: [String: String]

    public init(_ name: String, _ parameters: [String: String]) {
        self.name = name
        self.parameters = parameters
    }
}

/// One small, composable step that changes a query (after the Audio Degradation Toolbox's units).
/// Random choices draw from the chain's seeded generator, so a seed fixes the outcome.
public protocol Degradation: Sendable {
    var record: DegradationRecord { get }
    /// Where a moment of the input lands in the output (identity for stages that keep time).
    var timeMap: TimeMap { get }
    func apply(_ audio: Audio, random: SeededNoise) throws -> Audio
}

extension Degradation {
    public var timeMap: TimeMap { .identity }
}

/// How a stage moves time: the moment t seconds into its input is at scale · t + shift in its output.
/// Every unit that changes timing has one (speed, tempo, delay, drift, crop), as the Audio Degradation
/// Toolbox's time maps, so a benchmark knows where the reference's moment went.
public struct TimeMap: Sendable, Equatable {
    public var scale: Double
    public var shift: Double

    public init(scale: Double = 1, shift: Double = 0) {
        self.scale = scale
        self.shift = shift
    }

    public static let identity = TimeMap()

    /// This map, then `next`.
    public func then(_ next: TimeMap) -> TimeMap { TimeMap(scale: next.scale * scale, shift: next.scale * shift + next.shift) }

    public func callAsFunction(_ t: Double) -> Double { scale * t + shift }

    /// The input moment that lands at `t` in the output.
    public func inverse(_ t: Double) -> Double { (t - shift) / scale }
}

/// The revision of the degradations' arithmetic, part of every degraded query's cache key: bump it when any
/// stage's output changes (a room's model, Rubber Band's settings, a codec's parameters), so no fingerprint
/// of audio degraded the old way is reused. 1: the stages as of the reliability pass of November 2026. 2: rooms
/// whose bands are solved as an acoustician measures them (bb3d7de; f1c8d9a solved them whole, under the same
/// stage definitions, and its fingerprints must not be reused).
public let degradationRevision = 2

/// Degradations applied in order with one seeded generator.
public struct DegradationChain: Sendable {
    public var stages: [any Degradation]
    public var seed: UInt64

    public init(_ stages: [any Degradation], seed: UInt64) {
        self.stages = stages
        self.seed = seed
    }

    public func apply(_ audio: Audio) throws -> Audio {
        let random = SeededNoise(seed: seed)
        return try stages.reduce(audio) { try $1.apply($0, random: random) }
    }

    public var records: [DegradationRecord] { stages.map(\.record) }

    /// Every stage's time map, in order.
    public var timeMap: TimeMap { stages.reduce(.identity) { $0.then($1.timeMap) } }
}

func format(_ value: Double) -> String { String(format: "%g", value) }

/// The exact slice [start, start + duration) seconds.
public struct Crop: Degradation {
    public var start: Double
    public var duration: Double
    public init(start: Double, duration: Double) { self.start = start; self.duration = duration }
    public var record: DegradationRecord { DegradationRecord("crop", ["start_s": format(start), "duration_s": format(duration)]) }
    public var timeMap: TimeMap { TimeMap(shift: -start) }
    public func apply(_ audio: Audio, random: SeededNoise) -> Audio { audio.slice(start: start, duration: duration) }
}

/// Silence prepended: playback that starts late.
public struct Delay: Degradation {
    public var seconds: Double
    public init(seconds: Double) { self.seconds = seconds }
    public var record: DegradationRecord { DegradationRecord("delay", ["seconds": format(seconds)]) }
    public var timeMap: TimeMap { TimeMap(shift: seconds) }
    public func apply(_ audio: Audio, random: SeededNoise) -> Audio {
        Audio(samples: [Float](repeating: 0, count: Int((seconds * audio.sampleRate).rounded())) + audio.samples,
              sampleRate: audio.sampleRate)
    }
}

/// The first `seconds` dropped: a query cut that much later, between two of an algorithm's frames when
/// `seconds` is less than its hop (sub-frame time skew).
public struct Skip: Degradation {
    public var seconds: Double
    public init(seconds: Double) { self.seconds = seconds }
    public var record: DegradationRecord { DegradationRecord("skip", ["seconds": format(seconds)]) }
    public var timeMap: TimeMap { TimeMap(shift: -seconds) }
    public func apply(_ audio: Audio, random: SeededNoise) -> Audio {
        audio.slice(start: seconds, duration: Double(audio.samples.count) / audio.sampleRate)
    }
}

/// Playback and recording clocks that disagree: the audio is played `factor` times too fast
/// (resampled by soxr), so its duration becomes duration / factor.
public struct ClockDrift: Degradation {
    public var factor: Double
    public init(factor: Double) { self.factor = factor }
    public var record: DegradationRecord { DegradationRecord("clock-drift", ["factor": String(format: "%.6f", factor)]) }
    public var timeMap: TimeMap { TimeMap(scale: 1 / factor) }
    public func apply(_ audio: Audio, random: SeededNoise) throws -> Audio { try playedFaster(audio, factor, label: "clock drift") }
}

/// The audio played `factor` times too fast: its samples taken at `factor` times the rate and resampled
/// back (soxr), pitch and tempo together.
func playedFaster(_ audio: Audio, _ factor: Double, label: String) throws -> Audio {
    try Audio(samples: audio.samples, sampleRate: audio.sampleRate * factor).resampled(to: audio.sampleRate, label: label)
}

/// An ideal band-pass (bins outside [low, high] Hz zeroed in one FFT of the whole query):
/// a loudspeaker's or a phone microphone's usable band.
public struct BandPass: Degradation {
    public var low: Double
    public var high: Double
    public var label: String
    public init(low: Double, high: Double, label: String) { self.low = low; self.high = high; self.label = label }
    public var record: DegradationRecord {
        // Named as suite files name the unit it stands for; a band with both edges (a loudspeaker, a microphone) has none.
        DegradationRecord(low == 0 ? "lowpass" : high.isInfinite ? "highpass" : "band-pass", ["low_hz": format(low), "high_hz": format(high), "models": label])
    }
    public func apply(_ audio: Audio, random: SeededNoise) -> Audio {
        var size = 1
        while size < audio.samples.count { size <<= 1 }
        let fft = RealFFT(size: size)
        let binWidth = audio.sampleRate / Double(size)
        let bins = audio.samples.withUnsafeBufferPointer { frame in
            fft.transform(frame) { spectrum in
                spectrum.enumerated().map { k, bin in
                    let f = Double(k) * binWidth
                    return f >= low && f <= high ? bin : (Float(0), Float(0))
                }
            }
        }
        return Audio(samples: Array(inverseRealFFT(bins, size: size).prefix(audio.samples.count)), sampleRate: audio.sampleRate)
    }
}

/// Convolution with an impulse response (a room, or a loudspeaker cabinet standing in for a speaker),
/// the result scaled back to the input's RMS level so that only the colouring changes.
public struct ImpulseResponse: Degradation {
    public var name: String
    public var kind: String
    public var response: Audio
    public init(name: String, kind: String, response: Audio) { self.name = name; self.kind = kind; self.response = response }
    public var record: DegradationRecord {
        DegradationRecord("impulse", ["name": name, "kind": kind, "length_s": format(response.duration), "level": "matched to input RMS"])
    }
    public func apply(_ audio: Audio, random: SeededNoise) throws -> Audio {
        let kernel = try response.resampled(to: audio.sampleRate, label: name).samples
        let wet = convolve(audio.samples, with: kernel)
        let scale = rms(wet) > 0 ? Float(rms(audio.samples) / rms(wet)) : 0
        return Audio(samples: wet.map { $0 * scale }, sampleRate: audio.sampleRate)
    }
}

/// Root mean square of a signal.
public func rms(_ samples: [Float]) -> Double {
    samples.isEmpty ? 0 : (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)).squareRoot()
}
