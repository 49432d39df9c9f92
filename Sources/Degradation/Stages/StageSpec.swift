import AudioIO
import DSP
import Foundation

/// One kind of degradation stage as suite files, benchmark conditions and sweeps name it, one key per unit:
/// `{"gain": {"dB": -6}}`. A unit reads and writes its own value (checking every field's range), says which
/// dataset recordings it needs, builds its degradations, and tells a sweep how its parameters hurt. Adding a
/// unit is one file and one line in `StageUnits.all`.
public protocol StageUnit: Sendable, Codable, Equatable {
    /// The key suite files, benchmark conditions, sweeps and `--unit` name it by: "gain".
    static var name: String { get }
    /// The degradations it stands for (a preset: several).
    func stages(_ context: StageContext) throws -> [any Degradation]
    /// Dataset recordings (noises, impulse responses) it names.
    var recordings: [String] { get }
    /// For a sweep over `parameter`: the level that changes nothing when harm lies on both sides (nil: one-sided),
    /// and whether a larger level is harder.
    static func sweepSense(_ parameter: String) -> (neutral: Double?, largerIsHarder: Bool)
}

extension StageUnit {
    public var recordings: [String] { [] }
    public static func sweepSense(_ parameter: String) -> (neutral: Double?, largerIsHarder: Bool) { (nil, true) }
    func isEqual(_ other: any StageUnit) -> Bool { (other as? Self) == self }
}

/// Every stage unit a suite file may name, in the order errors list them. Adding a unit means adding one line here.
public enum StageUnits {
    public static let all: [any StageUnit.Type] = [
        GainStage.self, ClippingStage.self, CompressorStage.self, LowPassStage.self, HighPassStage.self,
        SpeedStage.self, TempoStage.self, PitchStage.self, CodecStage.self, ImpulseStage.self, NoiseStage.self,
        PresetStage.self, BitCrushStage.self, RoomStage.self, SkipStage.self,
    ]
}

/// What building a stage may need from the run: the dataset's noise recordings and impulse responses, by id,
/// and whether a stage whose recording is missing is left out (the run allows it) or fails.
public struct StageContext: Sendable {
    public var recordings: [String: Audio]
    public var leavesOutMissing: Bool
    public init(recordings: [String: Audio], leavesOutMissing: Bool = false) {
        self.recordings = recordings
        self.leavesOutMissing = leavesOutMissing
    }

    /// Whether the stage that uses `ids` is left out: one is missing and the run allows it.
    public func leavesOut(_ ids: [String]) -> Bool { leavesOutMissing && ids.contains { recordings[$0] == nil } }

    /// A recording the stage names, or the reason it cannot be had.
    func recording(_ id: String, _ what: String) throws -> Audio {
        guard let audio = recordings[id] else { throw MissingRecording(id: id, reason: what) }
        return audio
    }
}

/// A stage names a recording the run does not have.
public struct MissingRecording: Error, CustomStringConvertible {
    public var id: String
    public var reason: String
    public var description: String { "\(id): \(reason)" }
}

/// One stage of a suite file or a benchmark condition: a unit and its values. Values are checked when read.
public struct StageSpec: Sendable, Codable, Equatable {
    public var unit: any StageUnit

    public init(_ unit: any StageUnit) { self.unit = unit }

    public static func == (a: StageSpec, b: StageSpec) -> Bool { a.unit.isEqual(b.unit) }

    public var recordings: [String] { unit.recordings }
    public func stages(_ context: StageContext) throws -> [any Degradation] { try unit.stages(context) }

    struct Key: CodingKey {
        var stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        guard c.allKeys.count == 1, let key = c.allKeys.first, let type = StageUnits.all.first(where: { $0.name == key.stringValue }) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription:
                "a stage is one of \(StageUnits.all.map { $0.name }.joined(separator: ", ")), as {\"gain\": {\"dB\": -6}}"))
        }
        func read<U: StageUnit>(_ type: U.Type) throws -> any StageUnit { try c.decode(U.self, forKey: key) }
        unit = try read(type)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        func write<U: StageUnit>(_ unit: U) throws { try c.encode(unit, forKey: Key(stringValue: U.name)) }
        try write(unit)
    }
}

/// A unit with one number field, `{"speed": {"factor": 1.02}}`: its type names the field and its range.
public protocol OneNumberStage: StageUnit {
    static var field: String { get }
    static var range: ClosedRange<Double> { get }
    var value: Double { get }
    init(_ value: Double)
}

extension OneNumberStage {
    public init(from decoder: Decoder) throws { self.init(try decoder.stageFields().number(Self.field, in: Self.range)) }
    public func encode(to encoder: Encoder) throws { try encoder.stageFields([(Self.field, value)]) }
}

/// The fields of a unit's value: `{"dB": -6}`.
struct StageFields: CodingKey {
    var stringValue: String
    init(stringValue: String) { self.stringValue = stringValue }
    init(_ name: String) { stringValue = name }
    var intValue: Int? { nil }
    init?(intValue: Int) { nil }
}

extension Decoder {
    /// The unit's fields, for `number`.
    func stageFields() throws -> KeyedDecodingContainer<StageFields> { try container(keyedBy: StageFields.self) }
}

extension KeyedDecodingContainer where Key == StageFields {
    /// A number field within `range` (or `fallback` when absent and one is given).
    func number(_ name: String, in range: ClosedRange<Double>, or fallback: Double? = nil) throws -> Double {
        let key = StageFields(name)
        if let fallback, !contains(key) { return fallback }
        let value = try decode(Double.self, forKey: key)
        guard range.contains(value) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "must be within \(range.lowerBound)...\(range.upperBound), got \(value)")
        }
        return value
    }
    /// A whole-number field within `range`: 1.5 is refused, never truncated.
    func wholeNumber(_ name: String, in range: ClosedRange<Double>, or fallback: Double? = nil) throws -> Double {
        let value = try number(name, in: range, or: fallback)
        guard value == value.rounded() else {
            throw DecodingError.dataCorruptedError(forKey: StageFields(name), in: self, debugDescription: "must be a whole number, got \(value)")
        }
        return value
    }
    func has(_ name: String) -> Bool { contains(StageFields(name)) }
}

extension Encoder {
    /// Writes the unit's number fields in order.
    func stageFields(_ values: [(String, Double)]) throws {
        var c = container(keyedBy: StageFields.self)
        for (name, value) in values { try c.encode(value, forKey: StageFields(name)) }
    }
}
