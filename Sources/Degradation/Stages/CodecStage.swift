/// `{"codec": {"format": "mp3", "compression": 0.9}}` (mp3, ogg or opus; 0 best quality, 1 smallest) or
/// `{"codec": {"format": "mp3", "kbps": 64}}` (constant bitrate): encoded and decoded again.
public struct CodecStage: StageUnit {
    public static let name = "codec"
    public enum Setting: Sendable, Equatable {
        case compression(Codec.Format, Double)
        case mp3(kbps: Double)
    }
    public var setting: Setting
    public init(_ setting: Setting) { self.setting = setting }

    public init(from decoder: Decoder) throws {
        let f = try decoder.stageFields()
        guard let format = Codec.Format(rawValue: try f.decode(String.self, forKey: StageFields("format"))) else {
            throw DecodingError.dataCorruptedError(forKey: StageFields("format"), in: f, debugDescription: "mp3, ogg or opus")
        }
        if f.has("kbps") {
            guard format == .mp3 else {
                throw DecodingError.dataCorruptedError(forKey: StageFields("kbps"), in: f, debugDescription: "a bitrate is for mp3; ogg and opus take a compression level")
            }
            setting = .mp3(kbps: try f.number("kbps", in: 32...320))
        } else {
            setting = .compression(format, try f.number("compression", in: 0...1))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: StageFields.self)
        switch setting {
        case .compression(let format, let compression):
            try c.encode(format.rawValue, forKey: StageFields("format"))
            try c.encode(compression, forKey: StageFields("compression"))
        case .mp3(let kbps):
            try c.encode(Codec.Format.mp3.rawValue, forKey: StageFields("format"))
            try c.encode(kbps, forKey: StageFields("kbps"))
        }
    }

    public func stages(_ context: StageContext) throws -> [any Degradation] {
        switch setting {
        case .compression(let format, let compression): return [Codec(container: format, compression: compression)]
        case .mp3(let kbps): return [Codec(mp3Kbps: kbps)]
        }
    }

    public static func sweepSense(_ parameter: String) -> (neutral: Double?, largerIsHarder: Bool) { (nil, parameter != "kbps") }
}
