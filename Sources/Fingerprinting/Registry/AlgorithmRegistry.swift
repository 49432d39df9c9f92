/// Every built-in algorithm, by identifier. Adding an algorithm means adding one line here.
public enum AlgorithmRegistry {
    public static let all: [AnyAlgorithm] = [
        AnyAlgorithm(MelodyAnalyzing()),
        AnyAlgorithm(AFAThesis()),
        AnyAlgorithm(Waveprint()),
        AnyAlgorithm(Constellation()),
        AnyAlgorithm(HaitsmaKalker()),
        AnyAlgorithm(ChromaBaseline()),
        AnyAlgorithm(Panako()),
        AnyAlgorithm(QuadFingerprinting()),
        AnyAlgorithm(NAFPSmall()),
    ]

    public static var identifiers: [String] { all.map(\.identifier) }

    /// A built-in algorithm, or a variant of one ("constellation@sampleRate=22050", "constellation@birdsong").
    public static func algorithm(_ identifier: String) throws -> AnyAlgorithm { try algorithm(identifier, among: all) }

    /// An algorithm of `available` by identifier, or a variant of one.
    public static func algorithm(_ identifier: String, among available: [AnyAlgorithm]) throws -> AnyAlgorithm {
        if let found = available.first(where: { $0.identifier == identifier }) { return found }
        guard let (base, values) = try parseVariant(identifier), let found = available.first(where: { $0.identifier == base }) else {
            throw UnknownAlgorithm(identifier: identifier, known: available.map(\.identifier) + namedVariants.map(\.identifier))
        }
        return try found.variant(values, identifier: identifier)
    }
}

public struct UnknownAlgorithm: Error, CustomStringConvertible {
    public let identifier: String
    public var known = AlgorithmRegistry.identifiers + AlgorithmRegistry.namedVariants.map(\.identifier)
    public var description: String {
        "unknown algorithm '\(identifier)'; known: \(known.joined(separator: ", ")) (and variants: ALGORITHM@PARAMETER=VALUE)"
    }
}

extension AlgorithmRegistry {
    /// The built-in algorithms with every one of `capabilities`, by identifier (for help texts and messages).
    public static func identifiers(with capabilities: Capabilities) -> [String] {
        all.filter { $0.capabilities.isSuperset(of: capabilities) }.map(\.identifier)
    }
}
