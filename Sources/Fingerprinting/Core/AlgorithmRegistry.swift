/// Every built-in algorithm, by identifier. Adding an algorithm means adding one line here.
public enum AlgorithmRegistry {
    public static let all: [AnyAlgorithm] = [
        AnyAlgorithm(MelodyAnalyzing()),
        AnyAlgorithm(AFAThesis()),
        AnyAlgorithm(Waveprint()),
        AnyAlgorithm(Constellation()),
        AnyAlgorithm(HaitsmaKalker()),
        AnyAlgorithm(ChromaBaseline()),
    ]

    public static var identifiers: [String] { all.map(\.identifier) }

    public static func algorithm(_ identifier: String) throws -> AnyAlgorithm {
        guard let found = all.first(where: { $0.identifier == identifier }) else {
            throw UnknownAlgorithm(identifier: identifier)
        }
        return found
    }
}

public struct UnknownAlgorithm: Error, CustomStringConvertible {
    public let identifier: String
    public var description: String {
        "unknown algorithm '\(identifier)'; known: \(AlgorithmRegistry.identifiers.joined(separator: ", "))"
    }
}
