/// `{"codec": {"format": "mp3", "compression": 0.9}}` (mp3, ogg or opus; 0 best quality, 1 smallest) or
/// `{"codec": {"format": "mp3", "kbps": 64}}` (constant bitrate): encoded and decoded again.
public struct CodecStage: StageUnit {
    public static let name = "codec", example = #"{"codec": {"format": "mp3", "kbps": 64}}"#
    public static let fields: [StageField] = [.choice("format", Codec.Format.allCases.map(\.rawValue)),
                                              .number("kbps", 32...320, required: false), .number("compression", 0...1, required: false)]
    public static let fieldCount: ClosedRange<Int>? = 2...2
    public static let about: String? = "format and compression (0 best ... 1 smallest), or for mp3 a bitrate in kbps."
    public enum Setting: Sendable, Equatable {
        case compression(Codec.Format, Double)
        case mp3(kbps: Double)
    }
    public var setting: Setting
    public init(_ setting: Setting) { self.setting = setting }

    public init(from decoder: Decoder) throws {
        let f = try decoder.stageFields()
        let format: Codec.Format = try f.choice(Self.field("format"))
        if f.has("kbps") {
            guard format == .mp3 else {
                throw DecodingError.dataCorruptedError(forKey: StageFields("kbps"), in: f, debugDescription: "a bitrate is for mp3; ogg and opus take a compression level")
            }
            setting = .mp3(kbps: try f.number(Self.field("kbps")))
        } else {
            setting = .compression(format, try f.number(Self.field("compression")))
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
