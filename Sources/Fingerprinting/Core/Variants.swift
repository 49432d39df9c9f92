import Foundation

/// A variant of an algorithm: the same algorithm with some parameters changed, and an identifier of
/// its own, `constellation@sampleRate=22050` (or `constellation@birdsong` for a named one), so it is a
/// column of its own in every table, its changed values are marked in its profile and its fingerprints
/// are cached apart.
public struct VariantError: Error, CustomStringConvertible {
    public let description: String
}

/// A variant with a name, registered like Aurio's named profiles: the values it changes and why.
public struct NamedVariant: Sendable {
    public var base: String
    public var name: String
    public var values: [(name: String, value: String)]
    public var why: String
    public var identifier: String { "\(base)@\(name)" }
}

extension AlgorithmParameters {
    /// A copy with each named value set, parsed as the type of its default. A name the parameters lack,
    /// a value of the wrong type or out of range is refused with the reason (a variant never traps).
    public func setting(_ values: [(name: String, value: String)]) throws -> Self {
        let defaults = Dictionary(uniqueKeysWithValues: Mirror(reflecting: self).children.compactMap { child in child.label.map { ($0, child.value) } })
        guard var object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(self)) as? [String: Any] else {
            throw VariantError(description: "these parameters cannot be changed")
        }
        for (name, text) in values {
            guard let current = defaults[name] else {
                throw VariantError(description: "no parameter '\(name)'; parameters: \(defaults.keys.sorted().joined(separator: ", "))")
            }
            object[name] = try Self.parse(text, like: current, name: name)
        }
        let changed = try JSONDecoder().decode(Self.self, from: JSONSerialization.data(withJSONObject: object))
        if let problem = changed.problem {
            throw VariantError(description: values.map { "\($0.name)=\($0.value)" }.joined(separator: ",") + ": " + problem)
        }
        return changed
    }

    private static func parse(_ text: String, like current: Any, name: String) throws -> Any {
        func refuse(_ why: String) -> VariantError { VariantError(description: "\(name)=\(text): \(why)") }
        switch current {
        case let number as Int:
            guard let value = Int(text) else { throw refuse("a whole number is needed") }
            let range = number > 0 ? 1...1_000_000 : -1_000_000...1_000_000
            guard range.contains(value) else { throw refuse("must be within \(range.lowerBound)...\(range.upperBound)") }
            return value
        case let number as Double:
            guard let value = Double(text), value.isFinite else { throw refuse("a number is needed") }
            if name == "sampleRate" || name.hasSuffix("SampleRate") {
                guard (4000...192_000).contains(value) else { throw refuse("a sample rate must be 4,000 to 192,000 Hz") }
            } else if number > 0 {
                guard value > 0 && value <= 1_000_000 else { throw refuse("must be above 0 and at most 1,000,000 (its default is \(number))") }
            } else {
                guard abs(value) <= 1_000_000 else { throw refuse("must be within ±1,000,000") }
            }
            return value
        case is Bool:
            guard let value = Bool(text) else { throw refuse("true or false") }
            return value
        case is String: return text
        case let choice as any ParameterChoice: return try Self.choose(text, like: choice, refuse)
        default: throw refuse("this parameter cannot be set from the command line")
        }
    }

    private static func choose<Choice: ParameterChoice>(_ text: String, like: Choice, _ refuse: (String) -> VariantError) throws -> String {
        guard Choice(rawValue: text) != nil else { throw refuse("one of " + Choice.allCases.map(\.rawValue).joined(separator: ", ")) }
        return text
    }
}

/// A parameter that takes one of a few named ways (an enum of strings), set by its name: `panako@lineFit=twoPoint`.
public protocol ParameterChoice: RawRepresentable<String>, CaseIterable, Codable, Sendable, Equatable {}
