import Degradation
import DSP
import Foundation

/// One degradation stage as a suite file or a benchmark condition writes it, one key naming the unit:
/// `{"gain": {"dB": -6}}`, `{"clipping": {"dBFS": -3}}` or `{"clipping": {"share": 0.01}}`,
/// `{"compressor": {"threshold": -20, "ratio": 4, "attack": 0.005, "release": 0.1}}`,
/// `{"lowpass": {"hz": 3000}}`, `{"highpass": {"hz": 300}}`, `{"speed": {"factor": 1.02}}`,
/// `{"codec": {"format": "mp3", "compression": 0.9}}` (mp3, ogg or opus; 0 best quality, 1 smallest),
/// `{"noise": {"kind": "pink", "level": {"snr": {"dB": 10}}}}`. Values are checked when read.
public enum StageSpec: Sendable, Codable, Equatable {
    case gain(dB: Double)
    case clipping(Clipping.Level)
    case compressor(threshold: Double, ratio: Double, attack: Double, release: Double)
    case lowpass(hz: Double)
    case highpass(hz: Double)
    case speed(factor: Double)
    case codec(Codec.Format, compression: Double)
    case noise(NoiseSpec)

    enum Unit: String, CodingKey, CaseIterable { case gain, clipping, compressor, lowpass, highpass, speed, codec, noise }
    enum Field: String, CodingKey { case dB, dBFS, share, threshold, ratio, attack, release, hz, factor, format, compression }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: Unit.self)
        guard c.allKeys.count == 1, let unit = c.allKeys.first else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription:
                "a stage is one of \(Unit.allCases.map(\.rawValue).joined(separator: ", ")), as {\"gain\": {\"dB\": -6}}"))
        }
        func number(_ field: Field, in range: ClosedRange<Double>, _ f: KeyedDecodingContainer<Field>) throws -> Double {
            let value = try f.decode(Double.self, forKey: field)
            guard range.contains(value) else {
                throw DecodingError.dataCorruptedError(forKey: field, in: f, debugDescription: "must be within \(range.lowerBound)...\(range.upperBound), got \(value)")
            }
            return value
        }
        if unit == .noise { self = .noise(try c.decode(NoiseSpec.self, forKey: .noise)); return }
        let f = try c.nestedContainer(keyedBy: Field.self, forKey: unit)
        switch unit {
        case .gain: self = .gain(dB: try number(.dB, in: -120...60, f))
        case .clipping:
            self = f.contains(.share) ? .clipping(.share(try number(.share, in: 0...1, f))) : .clipping(.dBFS(try number(.dBFS, in: -120...0, f)))
        case .compressor:
            self = .compressor(threshold: try number(.threshold, in: -120...0, f), ratio: try number(.ratio, in: 1...1000, f),
                               attack: f.contains(.attack) ? try number(.attack, in: 0.0001...10, f) : 0.005,
                               release: f.contains(.release) ? try number(.release, in: 0.0001...10, f) : 0.1)
        case .lowpass: self = .lowpass(hz: try number(.hz, in: 1...200_000, f))
        case .highpass: self = .highpass(hz: try number(.hz, in: 0...200_000, f))
        case .speed: self = .speed(factor: try number(.factor, in: 0.25...4, f))
        case .codec:
            guard let container = Codec.Format(rawValue: try f.decode(String.self, forKey: .format)) else {
                throw DecodingError.dataCorruptedError(forKey: .format, in: f, debugDescription: "mp3, ogg or opus")
            }
            self = .codec(container, compression: try number(.compression, in: 0...1, f))
        case .noise: fatalError("handled above")
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Unit.self)
        switch self {
        case .noise(let spec): try c.encode(spec, forKey: .noise)
        case .gain(let dB):
            var f = c.nestedContainer(keyedBy: Field.self, forKey: .gain)
            try f.encode(dB, forKey: .dB)
        case .clipping(.dBFS(let d)):
            var f = c.nestedContainer(keyedBy: Field.self, forKey: .clipping)
            try f.encode(d, forKey: .dBFS)
        case .clipping(.share(let s)):
            var f = c.nestedContainer(keyedBy: Field.self, forKey: .clipping)
            try f.encode(s, forKey: .share)
        case .compressor(let t, let r, let a, let rel):
            var f = c.nestedContainer(keyedBy: Field.self, forKey: .compressor)
            try f.encode(t, forKey: .threshold); try f.encode(r, forKey: .ratio); try f.encode(a, forKey: .attack); try f.encode(rel, forKey: .release)
        case .lowpass(let hz):
            var f = c.nestedContainer(keyedBy: Field.self, forKey: .lowpass)
            try f.encode(hz, forKey: .hz)
        case .highpass(let hz):
            var f = c.nestedContainer(keyedBy: Field.self, forKey: .highpass)
            try f.encode(hz, forKey: .hz)
        case .speed(let factor):
            var f = c.nestedContainer(keyedBy: Field.self, forKey: .speed)
            try f.encode(factor, forKey: .factor)
        case .codec(let container, let compression):
            var f = c.nestedContainer(keyedBy: Field.self, forKey: .codec)
            try f.encode(container.rawValue, forKey: .format)
            try f.encode(compression, forKey: .compression)
        }
    }

    /// The dataset recording it names, if any.
    var recording: String? { if case .noise(let spec) = self { return spec.kind.recording } else { return nil } }
}

extension QueryPlanner {
    /// The degradation unit a stage spec stands for.
    public func stage(_ spec: StageSpec) throws -> any Degradation {
        switch spec {
        case .gain(let dB): return Gain(decibels: dB)
        case .clipping(let level): return Clipping(level: level)
        case .compressor(let t, let r, let a, let rel): return Compressor(threshold: t, ratio: r, attack: a, release: rel)
        case .lowpass(let hz): return BandPass(low: 0, high: hz, label: "low-pass")
        case .highpass(let hz): return BandPass(low: hz, high: .infinity, label: "high-pass")
        case .speed(let factor): return Speed(factor: factor)
        case .codec(let container, let compression): return Codec(container: container, compression: compression)
        case .noise(let noise): return try addNoise(noise)
        }
    }
}

/// Test 1's crop through any list of stages (gain, clipping, compression, filters, speed, codec, noise).
public struct Degraded: QueryRecipe {
    public static let kind = "degraded"
    public var stages: [StageSpec]
    public init(stages: [StageSpec]) { self.stages = stages }
    public var recordings: [String] { stages.compactMap(\.recording) }
    public func stages(_ planner: QueryPlanner, random: SeededNoise) throws -> [any Degradation] { try stages.map(planner.stage) }
}
