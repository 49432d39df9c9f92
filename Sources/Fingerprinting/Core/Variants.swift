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
        default: throw refuse("this parameter cannot be set from the command line")
        }
    }
}

extension AlgorithmRegistry {
    /// Named variants. Adding one means adding one entry here.
    public static let namedVariants: [NamedVariant] = [
        NamedVariant(base: "constellation", name: "birdsong", values: [("sampleRate", "22050")],
                     why: "our choice, for the thesis's question: bird song sits between 1 and 10 kHz, above the default's 5.5 kHz "
                        + "Nyquist limit (68 % of the Bengalese finch's energy lies above every default band); 22,050 Hz reaches 11 kHz "
                        + "with the same 512-point FFT and 256-sample hop, so frames last half as long"),
        NamedVariant(base: "panako", name: "dense", values: [("peakBinRadius", "25"), ("minimumAlignedHits", "24"), ("commonHashLimit", "60")],
                     why: "our choice, measured on the catalog: our FFT front end finds about 30 triplets a second with Panako's "
                        + "±51-bin neighbourhood, too few to survive noise or a tempo change; ±25 bins gives about 13 times as many "
                        + "(speed, tempo, pitch: 99-100 % of 10 s queries instead of 71-89 %), and with 24 aligned triplets "
                        + "2 of 100 negative 10 s queries still match (the benchmark calibrates its own threshold); so many triplets "
                        + "need few common ones: skipping a hash held more than 60 times keeps a query's search within 3 times its "
                        + "13 h time up to 300 h with the speed, tempo and pitch conditions' accuracy (a limit of 20 kept it flat but "
                        + "lost them 3-11 points at 300 h; Reports/scale-synthetic/scale-panako-dense-limits.md)"),
        NamedVariant(base: "constellation", name: "large",
                     values: [("hashBits", "32"), ("fftSize", "1024"), ("peakBinRadius", "20"), ("maximumFrequencyDelta", "62"), ("commonHashLimit", "2000")],
                     why: "our choice, for catalogs of thousands of hours: the 20-bit hash has about 1M values, so at 10,000 h each sits "
                        + "at thousands of positions and every one is skipped as common (0 of 100 queries found); Wang's 32-bit layout "
                        + "with twice the frequency resolution (1,024-point frames; the peak neighbourhood and target zone kept in Hz) "
                        + "spreads the same pairs over many more hashes, and a lookup limit of 2,000 keeps those a large catalog holds often"),
    ]

    /// An identifier with its variant part: "constellation@fanOut=5,sampleRate=22050" or "constellation@birdsong".
    public static func parseVariant(_ identifier: String) throws -> (base: String, values: [(name: String, value: String)])? {
        guard let at = identifier.firstIndex(of: "@") else { return nil }
        let base = String(identifier[..<at])
        // "constellation@large@fanOut=5", as `--set` names a changed named variant: the named values, then the changes.
        var values: [(name: String, value: String)] = []
        for (i, part) in identifier[identifier.index(after: at)...].split(separator: "@", omittingEmptySubsequences: false).enumerated() {
            if i == 0, let named = namedVariants.first(where: { $0.base == base && $0.name == part }) {
                values = named.values
                continue
            }
            let changes = try part.split(separator: ",", omittingEmptySubsequences: false).map { pair -> (name: String, value: String) in
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                    let named = namedVariants.filter { $0.base == base }.map(\.identifier)
                    throw VariantError(description: "'\(identifier)': after '@' comes NAME=VALUE[,NAME=VALUE...]"
                                       + (named.isEmpty ? "" : " or a named variant (\(named.joined(separator: ", ")))"))
                }
                return (parts[0], parts[1])
            }
            if let twice = Dictionary(grouping: changes, by: \.name).first(where: { $0.value.count > 1 })?.key {
                throw VariantError(description: "'\(identifier)': \(twice) is set twice; set each parameter once")
            }
            values = values.filter { value in !changes.contains { $0.name == value.name } } + changes
        }
        return (base, values)
    }
}
