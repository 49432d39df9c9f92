import AudioIO

/// Where a noise comes from: generated, or a recording (a noise id of the dataset, or an audio file's
/// path). Written as one string in suite files: "white-uniform", "white-gaussian", "pink", "babble".
public enum NoiseSource: Sendable, Equatable, Codable, CustomStringConvertible {
    case whiteUniform, whiteGaussian, pink
    case recording(String)

    public init(_ text: String) {
        switch text {
        case "white-uniform": self = .whiteUniform
        case "white-gaussian": self = .whiteGaussian
        case "pink": self = .pink
        default: self = .recording(text)
        }
    }

    public var description: String {
        switch self {
        case .whiteUniform: return "white-uniform"
        case .whiteGaussian: return "white-gaussian"
        case .pink: return "pink"
        case .recording(let id): return id
        }
    }

    /// The recording it names, if any.
    public var recording: String? { if case .recording(let id) = self { return id } else { return nil } }

    public init(from decoder: Decoder) throws { self.init(try decoder.singleValueContainer().decode(String.self)) }
    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// Noise for a test or a benchmark condition: its source and its level.
public struct NoiseSpec: Sendable, Codable, Equatable {
    public var kind: NoiseSource
    public var level: NoiseLevel

    public init(kind: NoiseSource, level: NoiseLevel) {
        self.kind = kind
        self.level = level
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        kind = try c.decode(NoiseSource.self, forKey: .kind)
        level = try c.decode(NoiseLevel.self, forKey: .level)
        switch level {
        case .peak(let dBFS) where !(dBFS >= -200 && dBFS <= 0):
            throw DecodingError.dataCorruptedError(forKey: .level, in: c, debugDescription: "a peak level must be between -200 and 0 dBFS, got \(dBFS)")
        case .snr(let dB) where !(dB >= -60 && dB <= 200):
            throw DecodingError.dataCorruptedError(forKey: .level, in: c, debugDescription: "an SNR must be between -60 and 200 dB, got \(dB)")
        default: break
        }
    }
}

extension NoiseSpec {
    /// The recording it names, if any.
    public var recordings: [String] { kind.recording.map { [$0] } ?? [] }

    /// The noise unit, with its recording when it names one.
    public func addNoise(_ context: StageContext) throws -> AddNoise {
        switch kind {
        case .whiteUniform: return AddNoise(kind: .whiteUniform, level: level)
        case .whiteGaussian: return AddNoise(kind: .whiteGaussian, level: level)
        case .pink: return AddNoise(kind: .pink, level: level)
        case .recording(let id):
            let audio = try context.recording(id, "no such noise (white-uniform, white-gaussian, pink, or a noise id of the dataset)")
            return AddNoise(kind: .recorded(name: id, audio: audio), level: level)
        }
    }
}

/// `{"noise": {"kind": "pink", "level": {"snr": {"dB": 10}}}}`: generated or recorded noise added at a level.
public struct NoiseStage: StageUnit {
    public static let name = "noise", example = #"{"noise": {"kind": "pink", "level": {"snr": {"dB": 10}}}}"#
    /// Its value is the suite schema's noise (`NoiseSpec`), as a test's noise is.
    public static let fields: [StageField] = []
    public static var valueSchema: [String: Any] { ["$ref": "#/$defs/noise"] }
    public var noise: NoiseSpec
    public init(_ noise: NoiseSpec) { self.noise = noise }
    public init(from decoder: Decoder) throws { noise = try NoiseSpec(from: decoder) }
    public func encode(to encoder: Encoder) throws { try noise.encode(to: encoder) }
    public var recordings: [String] { noise.recordings }
    public func stages(_ context: StageContext) throws -> [any Degradation] { context.leavesOut(recordings) ? [] : [try noise.addNoise(context)] }
}
