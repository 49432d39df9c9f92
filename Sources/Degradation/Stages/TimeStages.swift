// Time and pitch: speed (both), tempo (pitch kept) and pitch (tempo kept); each hurts on both sides of neutral.
// And skip: the query cut a little later (sub-frame time skew).

/// `{"speed": {"factor": 1.02}}`: played faster, higher and shorter, as a tape or a turntable.
public struct SpeedStage: OneNumberStage {
    public static let name = "speed", field = "factor", range: ClosedRange<Double> = 0.25...4, example = #"{"speed": {"factor": 1.02}}"#
    public var value: Double
    public init(_ value: Double) { self.value = value }
    public func stages(_ context: StageContext) throws -> [any Degradation] { [Speed(factor: value)] }
    public static func sweepSense(_ parameter: String) -> (neutral: Double?, largerIsHarder: Bool) { (1, true) }
}

/// `{"tempo": {"factor": 1.05}}`: faster, pitch kept (Rubber Band).
public struct TempoStage: OneNumberStage {
    public static let name = "tempo", field = "factor", range: ClosedRange<Double> = 0.25...4, example = #"{"tempo": {"factor": 1.05}}"#
    public var value: Double
    public init(_ value: Double) { self.value = value }
    public func stages(_ context: StageContext) throws -> [any Degradation] { [Tempo(factor: value)] }
    public static func sweepSense(_ parameter: String) -> (neutral: Double?, largerIsHarder: Bool) { (1, true) }
}

/// `{"pitch": {"semitones": -1}}`: transposed, tempo kept (Rubber Band).
public struct PitchStage: OneNumberStage {
    public static let name = "pitch", field = "semitones", range: ClosedRange<Double> = -24...24, example = #"{"pitch": {"semitones": -1}}"#
    public var value: Double
    public init(_ value: Double) { self.value = value }
    public func stages(_ context: StageContext) throws -> [any Degradation] { [Pitch(semitones: value)] }
    public static func sweepSense(_ parameter: String) -> (neutral: Double?, largerIsHarder: Bool) { (0, true) }
}

/// `{"skip": {"seconds": 0.004}}`: the query's first moments dropped, so it starts that much later; with
/// query starts on an algorithm's frame grid, a fraction of its hop is sub-frame time skew (`fpbench sweep skew`).
public struct SkipStage: OneNumberStage {
    public static let name = "skip", field = "seconds", range: ClosedRange<Double> = 0...10, example = #"{"skip": {"seconds": 0.004}}"#
    public static let about: String? = "The query's first seconds dropped: it starts that much later (sub-frame time skew when less than a hop)."
    public var value: Double
    public init(_ value: Double) { self.value = value }
    public func stages(_ context: StageContext) throws -> [any Degradation] { [Skip(seconds: value)] }
    public static func sweepSense(_ parameter: String) -> (neutral: Double?, largerIsHarder: Bool) { (0, true) }
}
