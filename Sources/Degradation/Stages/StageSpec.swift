import AudioIO
import DSP
import Foundation

/// One kind of degradation stage as suite files, benchmark conditions and sweeps name it, one key per unit:
/// `{"gain": {"dB": -6}}`. A unit reads and writes its own value (checking every field's range), says which
/// dataset recordings it needs, builds its degradations, and tells a sweep how its parameters hurt. Adding a
/// unit is one file and one line in `StageUnits.all`; the suite schema's stage part follows its declared fields.
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
    /// Its value's fields: decoding reads their ranges from here, and so do the suite schema
    /// (`StageUnits.schema`), `--parameter` and the help. A unit whose value is not an object has none.
    static var fields: [StageField] { get }
    /// How many fields a value holds, when not every combination is allowed (clipping: one of two).
    static var fieldCount: ClosedRange<Int>? { get }
    /// What the schema says of the unit beyond its fields' own words.
    static var about: String? { get }
    /// Its value in the suite schema: by default an object of `fields`.
    static var valueSchema: [String: Any] { get }
    /// A stage as a suite file writes it, `{"gain": {"dB": -6}}`: checked against the schema and the decoder.
    static var example: String { get }
}

extension StageUnit {
    public var recordings: [String] { [] }
    public static func sweepSense(_ parameter: String) -> (neutral: Double?, largerIsHarder: Bool) { (nil, true) }
    public static var fieldCount: ClosedRange<Int>? { nil }
    public static var about: String? { nil }
    public static var valueSchema: [String: Any] {
        var schema: [String: Any] = ["type": "object", "additionalProperties": false,
                                     "properties": Dictionary(uniqueKeysWithValues: fields.map { ($0.name, $0.schema) })]
        let required = fields.filter(\.required).map(\.name)
        if !required.isEmpty { schema["required"] = required }
        if let count = fieldCount { schema["minProperties"] = count.lowerBound; schema["maxProperties"] = count.upperBound }
        if let about { schema["description"] = about }
        return schema
    }
    /// A declared field by name.
    static func field(_ name: String) -> StageField {
        guard let field = fields.first(where: { $0.name == name }) else { preconditionFailure("\(Self.name) declares no field \(name)") }
        return field
    }
    /// The fields a sweep can vary: the numbers.
    public static var numberFields: [String] { fields.filter { $0.range != nil }.map(\.name) }
    func isEqual(_ other: any StageUnit) -> Bool { (other as? Self) == self }
}

/// One field of a unit's value as suite files write it: `dB` in `{"gain": {"dB": -6}}`.
public struct StageField: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// A number within the range; `whole`: 1.5 is refused, never truncated.
        case number(ClosedRange<Double>, whole: Bool)
        case choice([String])
        case text
    }
    public var name: String
    public var kind: Kind
    /// The value an absent number takes; nil: it must be given (unless `required` says otherwise).
    public var fallback: Double?
    /// The value an absent choice takes; nil: it must be given.
    public var fallbackChoice: String?
    public var required: Bool
    public var about: String?

    /// A number field; required unless it has a fallback or `required` says otherwise (one of several).
    public static func number(_ name: String, _ range: ClosedRange<Double>, whole: Bool = false, or fallback: Double? = nil,
                              required: Bool? = nil, about: String? = nil) -> StageField {
        StageField(name: name, kind: .number(range, whole: whole), fallback: fallback, required: required ?? (fallback == nil), about: about)
    }
    public static func choice(_ name: String, _ values: [String], or fallback: String? = nil, about: String? = nil) -> StageField {
        StageField(name: name, kind: .choice(values), fallbackChoice: fallback, required: fallback == nil, about: about)
    }
    public static func text(_ name: String, about: String) -> StageField { StageField(name: name, kind: .text, required: true, about: about) }

    public var range: ClosedRange<Double>? { if case .number(let range, _) = kind { return range } else { return nil } }

    /// The field in the suite schema.
    var schema: [String: Any] {
        var schema: [String: Any]
        switch kind {
        case .number(let range, let whole): schema = ["type": whole ? "integer" : "number", "minimum": range.lowerBound, "maximum": range.upperBound]
        case .choice(let values): schema = ["enum": values]
        case .text: schema = ["type": "string"]
        }
        if let fallback { schema["default"] = fallback }
        if let fallbackChoice { schema["default"] = fallbackChoice }
        if let about { schema["description"] = about }
        return schema
    }
}

/// Every stage unit a suite file may name, in the order errors list them. Adding a unit: its own file and one
/// line here; help and completion follow, and the tests name what else must be written (the suite schema's
/// generated part, `SchemaTests`; docs/commands.md's paragraph of units, `DegradationUnitTests`).
public enum StageUnits {
    public static let all: [any StageUnit.Type] = [
        GainStage.self, ClippingStage.self, CompressorStage.self, LowPassStage.self, HighPassStage.self,
        SpeedStage.self, TempoStage.self, PitchStage.self, CodecStage.self, ImpulseStage.self, NoiseStage.self,
        PresetStage.self, BitCrushStage.self, RoomStage.self, SkipStage.self,
    ]

    public static func named(_ name: String) -> (any StageUnit.Type)? { all.first { $0.name == name } }

    /// The suite schema's `$defs.unit` and `$defs.stage`, written from the units (a test holds
    /// Schemas/suite.schema.json to them).
    public static var schema: (unit: [String: Any], stage: [String: Any]) {
        (["type": "object", "minProperties": 1, "maxProperties": 1, "propertyNames": ["enum": all.map { $0.name }]],
         ["oneOf": all.map { ["$ref": "#/$defs/unit", "required": [$0.name], "properties": [$0.name: $0.valueSchema]] }])
    }

    /// Each unit with the numbers a sweep can vary: "gain: dB; clipping: dBFS, share; ...".
    public static var sweepableParameters: String {
        all.filter { !$0.numberFields.isEmpty }.map { "\($0.name): \($0.numberFields.joined(separator: ", "))" }.joined(separator: "; ")
    }
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
    public static var fields: [StageField] { [.number(field, range)] }
    public init(from decoder: Decoder) throws { self.init(try decoder.stageFields().number(Self.fields[0])) }
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
    /// A declared number field: within its range, whole when it must be (1.5 refused, never truncated), its
    /// fallback when absent.
    func number(_ field: StageField) throws -> Double {
        guard case .number(let range, let whole) = field.kind else { preconditionFailure("\(field.name) is not a number field") }
        let key = StageFields(field.name)
        if let fallback = field.fallback, !contains(key) { return fallback }
        let value = try decode(Double.self, forKey: key)
        guard range.contains(value) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "must be within \(range.lowerBound)...\(range.upperBound), got \(value)")
        }
        guard !whole || value == value.rounded() else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "must be a whole number, got \(value)")
        }
        return value
    }
    /// A declared choice field: one of its values, named in the error when it is not; its fallback when absent.
    func choice<Value: RawRepresentable<String>>(_ field: StageField) throws -> Value {
        guard case .choice(let values) = field.kind else { preconditionFailure("\(field.name) is not a choice field") }
        let key = StageFields(field.name)
        let text = try field.fallbackChoice.flatMap { contains(key) ? nil : $0 } ?? decode(String.self, forKey: key)
        guard let value = Value(rawValue: text) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "must be one of \(values.joined(separator: ", ")), got \"\(text)\"")
        }
        return value
    }
    func has(_ name: String) -> Bool { contains(StageFields(name)) }
}

extension Encoder {
    /// Writes the unit's number fields in order, then its choices.
    func stageFields(_ values: [(String, Double)], choices: [(String, String)] = []) throws {
        var c = container(keyedBy: StageFields.self)
        for (name, value) in values { try c.encode(value, forKey: StageFields(name)) }
        for (name, value) in choices { try c.encode(value, forKey: StageFields(name)) }
    }
}
