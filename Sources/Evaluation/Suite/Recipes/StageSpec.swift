import Degradation
import DSP
import Foundation

/// One degradation stage as a suite file or a benchmark condition writes it, one key naming the unit:
/// `{"gain": {"dB": -6}}`, `{"clipping": {"dBFS": -3}}` or `{"clipping": {"share": 0.01}}`,
/// `{"compressor": {"threshold": -20, "ratio": 4, "attack": 0.005, "release": 0.1}}`,
/// `{"lowpass": {"hz": 3000}}`, `{"highpass": {"hz": 300}}`, `{"speed": {"factor": 1.02}}`,
/// `{"tempo": {"factor": 1.05}}`, `{"pitch": {"semitones": -1}}`,
/// `{"codec": {"format": "mp3", "compression": 0.9}}` (mp3, ogg or opus; 0 best quality, 1 smallest) or
/// `{"codec": {"format": "mp3", "kbps": 64}}`, `{"impulse": {"id": "greathall"}}` (an impulse response of
/// the dataset), `{"noise": {"kind": "pink", "level": {"snr": {"dB": 10}}}}`, and `{"preset": "radio-broadcast"}`
/// (a named chain, `DegradationPreset`). Values are checked when read.
public indirect enum StageSpec: Sendable, Codable, Equatable {
    case gain(dB: Double)
    case clipping(Clipping.Level)
    case compressor(threshold: Double, ratio: Double, attack: Double, release: Double)
    case lowpass(hz: Double)
    case highpass(hz: Double)
    case speed(factor: Double)
    case tempo(factor: Double)
    case pitch(semitones: Double)
    case codec(Codec.Format, compression: Double)
    case mp3(kbps: Double)
    case impulse(id: String)
    case noise(NoiseSpec)
    case preset(DegradationPreset)

    enum Unit: String, CodingKey, CaseIterable { case gain, clipping, compressor, lowpass, highpass, speed, tempo, pitch, codec, impulse, noise, preset }
    enum Field: String, CodingKey { case dB, dBFS, share, threshold, ratio, attack, release, hz, factor, semitones, format, compression, kbps, id }

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
        switch unit {
        case .noise: self = .noise(try c.decode(NoiseSpec.self, forKey: .noise)); return
        case .preset:
            let name = try c.decode(String.self, forKey: .preset)
            guard let preset = DegradationPreset(rawValue: name) else {
                throw DecodingError.dataCorruptedError(forKey: .preset, in: c, debugDescription:
                    "unknown preset '\(name)'; presets: \(DegradationPreset.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            self = .preset(preset); return
        default: break
        }
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
        case .tempo: self = .tempo(factor: try number(.factor, in: 0.25...4, f))
        case .pitch: self = .pitch(semitones: try number(.semitones, in: -24...24, f))
        case .codec:
            guard let container = Codec.Format(rawValue: try f.decode(String.self, forKey: .format)) else {
                throw DecodingError.dataCorruptedError(forKey: .format, in: f, debugDescription: "mp3, ogg or opus")
            }
            if f.contains(.kbps) {
                guard container == .mp3 else {
                    throw DecodingError.dataCorruptedError(forKey: .kbps, in: f, debugDescription: "a bitrate is for mp3; ogg and opus take a compression level")
                }
                self = .mp3(kbps: try number(.kbps, in: 32...320, f))
            } else {
                self = .codec(container, compression: try number(.compression, in: 0...1, f))
            }
        case .impulse: self = .impulse(id: try f.decode(String.self, forKey: .id))
        case .noise, .preset: fatalError("handled above")
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Unit.self)
        func fields(_ unit: Unit, _ values: [(Field, Double)]) throws {
            var f = c.nestedContainer(keyedBy: Field.self, forKey: unit)
            for (field, value) in values { try f.encode(value, forKey: field) }
        }
        switch self {
        case .noise(let spec): try c.encode(spec, forKey: .noise)
        case .preset(let preset): try c.encode(preset.rawValue, forKey: .preset)
        case .gain(let dB): try fields(.gain, [(.dB, dB)])
        case .clipping(.dBFS(let d)): try fields(.clipping, [(.dBFS, d)])
        case .clipping(.share(let s)): try fields(.clipping, [(.share, s)])
        case .compressor(let t, let r, let a, let rel): try fields(.compressor, [(.threshold, t), (.ratio, r), (.attack, a), (.release, rel)])
        case .lowpass(let hz): try fields(.lowpass, [(.hz, hz)])
        case .highpass(let hz): try fields(.highpass, [(.hz, hz)])
        case .speed(let factor): try fields(.speed, [(.factor, factor)])
        case .tempo(let factor): try fields(.tempo, [(.factor, factor)])
        case .pitch(let semitones): try fields(.pitch, [(.semitones, semitones)])
        case .codec(let container, let compression):
            var f = c.nestedContainer(keyedBy: Field.self, forKey: .codec)
            try f.encode(container.rawValue, forKey: .format)
            try f.encode(compression, forKey: .compression)
        case .mp3(let kbps):
            var f = c.nestedContainer(keyedBy: Field.self, forKey: .codec)
            try f.encode(Codec.Format.mp3.rawValue, forKey: .format)
            try f.encode(kbps, forKey: .kbps)
        case .impulse(let id):
            var f = c.nestedContainer(keyedBy: Field.self, forKey: .impulse)
            try f.encode(id, forKey: .id)
        }
    }

    /// The dataset recordings (noises, impulse responses) it names.
    var recordings: [String] {
        switch self {
        case .noise(let spec): return spec.kind.recording.map { [$0] } ?? []
        case .impulse(let id): return [id]
        case .preset(let preset): return preset.stages.flatMap(\.recordings)
        default: return []
        }
    }
}

/// Named chains after the Audio Degradation Toolbox's ISMIR 2013 presets (Mauch & Ewert 2013,
/// `degradations/ISMIR2013Degradations/*.m`), with our substitutions said beside each. The toolbox's
/// final normalisation is left out (every algorithm here is level-invariant up to clipping).
public enum DegradationPreset: String, Sendable, Codable, CaseIterable {
    case smartphoneRecording = "smartphone-recording"
    case smartphonePlayback = "smartphone-playback"
    case radioBroadcast = "radio-broadcast"
    case strongMP3 = "strong-mp3"
    case liveRecording = "live-recording"

    public var stages: [StageSpec] {
        switch self {
        case .smartphoneRecording:
            // ADT: the Nexus One's microphone response (we have none: its 100 Hz-7 kHz band stands in),
            // compression at -35 dB with slope 0.5 (ratio 2), 10 ms attack and release, 0.3 % of samples
            // clipped, pink noise at 35 dB SNR.
            return [.highpass(hz: 100), .lowpass(hz: 7000), .compressor(threshold: -35, ratio: 2, attack: 0.01, release: 0.01),
                    .clipping(.share(0.003)), .noise(NoiseSpec(kind: .pink, level: .snr(dB: 35)))]
        case .smartphonePlayback:
            // ADT: the Nexus One's front speaker (a phone speaker cuts below 400-600 Hz: a 500 Hz-12 kHz band
            // stands in), pink noise at 40 dB SNR.
            return [.highpass(hz: 500), .lowpass(hz: 12_000), .noise(NoiseSpec(kind: .pink, level: .snr(dB: 40)))]
        case .radioBroadcast:
            // ADT: compression at -40 dB with slope 0.6 (ratio 2.5), 200 ms attack and release; 2 % faster.
            return [.compressor(threshold: -40, ratio: 2.5, attack: 0.2, release: 0.2), .speed(factor: 1.02)]
        case .strongMP3:
            // ADT's "strong" MP3 level: LAME --preset cbr 64.
            return [.mp3(kbps: 64)]
        case .liveRecording:
            // ADT: the Great Hall's impulse response (the dataset's `greathall`), pink noise at 40 dB SNR.
            return [.impulse(id: "greathall"), .noise(NoiseSpec(kind: .pink, level: .snr(dB: 40)))]
        }
    }
}

extension QueryPlanner {
    /// The degradation units a stage spec stands for (a preset: several).
    public func stages(_ spec: StageSpec) throws -> [any Degradation] {
        switch spec {
        case .gain(let dB): return [Gain(decibels: dB)]
        case .clipping(let level): return [Clipping(level: level)]
        case .compressor(let t, let r, let a, let rel): return [Compressor(threshold: t, ratio: r, attack: a, release: rel)]
        case .lowpass(let hz): return [BandPass(low: 0, high: hz, label: "low-pass")]
        case .highpass(let hz): return [BandPass(low: hz, high: .infinity, label: "high-pass")]
        case .speed(let factor): return [Speed(factor: factor)]
        case .tempo(let factor): return [Tempo(factor: factor)]
        case .pitch(let semitones): return [Pitch(semitones: semitones)]
        case .codec(let container, let compression): return [Codec(container: container, compression: compression)]
        case .mp3(let kbps): return [Codec(mp3Kbps: kbps)]
        case .impulse(let id):
            guard let response = recordings[id] else { throw DatasetError(path: id, reason: "no such impulse response in the dataset") }
            return [ImpulseResponse(name: id, kind: "room", response: response)]
        case .noise(let noise): return [try addNoise(noise)]
        case .preset(let preset): return try preset.stages.flatMap(stages)
        }
    }
}

/// Test 1's crop through any list of stages (`StageSpec`: gain, clipping, compression, filters, speed, tempo, pitch,
/// codec, impulse responses, noise, presets).
public struct Degraded: QueryRecipe {
    public static let kind = "degraded"
    public var stages: [StageSpec]
    public init(stages: [StageSpec]) { self.stages = stages }
    public var recordings: [String] { stages.flatMap(\.recordings) }
    public func stages(_ planner: QueryPlanner, random: SeededNoise) throws -> [any Degradation] { try stages.flatMap(planner.stages) }
}
