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

/// `{"preset": "radio-broadcast"}`: a named chain of stages (`DegradationPreset`).
public struct PresetStage: StageUnit {
    public static let name = "preset", example = #"{"preset": "radio-broadcast"}"#
    /// Its value is a preset's name, not an object of fields.
    public static let fields: [StageField] = []
    public static var valueSchema: [String: Any] { ["enum": DegradationPreset.allCases.map(\.rawValue)] }
    public var preset: DegradationPreset
    public init(_ preset: DegradationPreset) { self.preset = preset }
    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        let name = try c.decode(String.self)
        guard let preset = DegradationPreset(rawValue: name) else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription:
                "unknown preset '\(name)'; presets: \(DegradationPreset.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self.preset = preset
    }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(preset.rawValue)
    }
    public var recordings: [String] { preset.stages.flatMap(\.recordings) }
    public func stages(_ context: StageContext) throws -> [any Degradation] { try preset.stages.flatMap { try $0.stages(context) } }
}

/// The units by the names suite files give them, for building stages in code: `.speed(factor: 1.02)`.
extension StageSpec {
    public static func gain(dB: Double) -> StageSpec { StageSpec(GainStage(dB)) }
    public static func clipping(_ level: Clipping.Level) -> StageSpec { StageSpec(ClippingStage(level)) }
    public static func compressor(threshold: Double, ratio: Double, attack: Double, release: Double) -> StageSpec {
        StageSpec(CompressorStage(threshold: threshold, ratio: ratio, attack: attack, release: release))
    }
    public static func lowpass(hz: Double) -> StageSpec { StageSpec(LowPassStage(hz)) }
    public static func highpass(hz: Double) -> StageSpec { StageSpec(HighPassStage(hz)) }
    public static func speed(factor: Double) -> StageSpec { StageSpec(SpeedStage(factor)) }
    public static func tempo(factor: Double) -> StageSpec { StageSpec(TempoStage(factor)) }
    public static func pitch(semitones: Double) -> StageSpec { StageSpec(PitchStage(semitones)) }
    public static func codec(_ format: Codec.Format, compression: Double) -> StageSpec { StageSpec(CodecStage(.compression(format, compression))) }
    public static func mp3(kbps: Double) -> StageSpec { StageSpec(CodecStage(.mp3(kbps: kbps))) }
    public static func impulse(id: String) -> StageSpec { StageSpec(ImpulseStage(id: id)) }
    public static func noise(_ noise: NoiseSpec) -> StageSpec { StageSpec(NoiseStage(noise)) }
    public static func preset(_ preset: DegradationPreset) -> StageSpec { StageSpec(PresetStage(preset)) }
}
