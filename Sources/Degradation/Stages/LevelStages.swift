// Level and dynamics: gain, clipping, compression (the Audio Degradation Toolbox's units).

/// `{"gain": {"dB": -6}}`: hurts in both directions around 0 dB.
public struct GainStage: OneNumberStage {
    public static let name = "gain", field = "dB", range: ClosedRange<Double> = -120...60, example = #"{"gain": {"dB": -6}}"#
    public var value: Double
    public init(_ value: Double) { self.value = value }
    public func stages(_ context: StageContext) throws -> [any Degradation] { [Gain(decibels: value)] }
    public static func sweepSense(_ parameter: String) -> (neutral: Double?, largerIsHarder: Bool) { (0, true) }
}

/// `{"clipping": {"dBFS": -3}}` or `{"clipping": {"share": 0.01}}` (the share of samples clipped).
public struct ClippingStage: StageUnit {
    public static let name = "clipping", example = #"{"clipping": {"dBFS": -3}}"#
    public static let fields: [StageField] = [.number("dBFS", -120...0, required: false), .number("share", 0...1, required: false)]
    public static let fieldCount: ClosedRange<Int>? = 1...1
    public var level: Clipping.Level
    public init(_ level: Clipping.Level) { self.level = level }
    public init(from decoder: Decoder) throws {
        let f = try decoder.stageFields()
        level = f.has("share") ? .share(try f.number(Self.field("share"))) : .dBFS(try f.number(Self.field("dBFS")))
    }
    public func encode(to encoder: Encoder) throws {
        switch level {
        case .dBFS(let d): try encoder.stageFields([("dBFS", d)])
        case .share(let s): try encoder.stageFields([("share", s)])
        }
    }
    public func stages(_ context: StageContext) throws -> [any Degradation] { [Clipping(level: level)] }
    public static func sweepSense(_ parameter: String) -> (neutral: Double?, largerIsHarder: Bool) { (nil, parameter != "dBFS") }
}

/// `{"compressor": {"threshold": -20, "ratio": 4, "attack": 0.005, "release": 0.1}}` (attack and release optional).
public struct CompressorStage: StageUnit {
    public static let name = "compressor", example = #"{"compressor": {"threshold": -20, "ratio": 4}}"#
    public static let fields: [StageField] = [
        .number("threshold", -120...0), .number("ratio", 1...1000),
        .number("attack", 0.0001...10, or: 0.005),  // 5 ms: a typical fast attack
        .number("release", 0.0001...10, or: 0.1),  // 100 ms: a typical release
    ]
    public var threshold: Double, ratio: Double, attack: Double, release: Double
    public init(threshold: Double, ratio: Double, attack: Double, release: Double) {
        self.threshold = threshold; self.ratio = ratio; self.attack = attack; self.release = release
    }
    public init(from decoder: Decoder) throws {
        let f = try decoder.stageFields()
        self.init(threshold: try f.number(Self.field("threshold")), ratio: try f.number(Self.field("ratio")),
                  attack: try f.number(Self.field("attack")), release: try f.number(Self.field("release")))
    }
    public func encode(to encoder: Encoder) throws {
        try encoder.stageFields([("threshold", threshold), ("ratio", ratio), ("attack", attack), ("release", release)])
    }
    public func stages(_ context: StageContext) throws -> [any Degradation] {
        [Compressor(threshold: threshold, ratio: ratio, attack: attack, release: release)]
    }
    public static func sweepSense(_ parameter: String) -> (neutral: Double?, largerIsHarder: Bool) { (nil, parameter != "threshold") }
}
