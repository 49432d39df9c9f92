/// What an algorithm can do beyond fingerprinting and comparing: found at the seam from its types
/// (`AnyAlgorithm.capabilities`), or declared by the algorithm (`declaredCapabilities`). Commands and help
/// texts ask for these instead of naming algorithms, so they cannot drift from the code.
public struct Capabilities: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Searches a catalog through an index of its own (else brute force over every reference).
    public static let indexed = Capabilities(rawValue: 1 << 0)
    /// Its index is one inverted file of keys, so a catalog can be held as slices (`--catalog-shard`, `scale --slices`).
    public static let sliceable = Capabilities(rawValue: 1 << 1)
    /// Its fingerprints can be drawn anew for a synthetic catalog (`fpbench scale`): 32-bit keys redrawn
    /// from the real ones, or vectors drawn to the real ones' statistics.
    public static let scalable = Capabilities(rawValue: 1 << 2)
    /// Fingerprints as a file decodes, holding a bounded window of samples, not the signal.
    public static let streaming = Capabilities(rawValue: 1 << 3)
    /// Estimates a match's time factor, so it can find a query played faster or slower (declared).
    public static let timeFactor = Capabilities(rawValue: 1 << 4)
    /// Takes parameter changes (`--set ALGORITHM.NAME=VALUE`, `ALGORITHM@NAME=VALUE`).
    public static let variants = Capabilities(rawValue: 1 << 5)

    /// Each capability with its name, in the order `fpbench algorithms` prints them.
    public static let named: [(capability: Capabilities, name: String)] = [
        (.indexed, "indexed"), (.sliceable, "sliceable"), (.scalable, "scalable"), (.streaming, "streaming"),
        (.timeFactor, "time-factor"), (.variants, "variants"),
    ]

    /// The names of the capabilities this set holds.
    public var names: [String] { Self.named.filter { contains($0.capability) }.map(\.name) }
}
