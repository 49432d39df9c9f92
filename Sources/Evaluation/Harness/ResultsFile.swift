import Fingerprinting
import Foundation

/// A results file: pretty, key-sorted JSON (stable bytes), read back with the broken field named.
public protocol ResultsFile: Codable {
    /// Why a decoded file cannot be what fpbench wrote (nil: it can).
    var inconsistency: String? { get }
}

extension ResultsFile {
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(self)
    }

    public var inconsistency: String? { nil }

    public static func decode(_ data: Data, path: String) throws -> Self {
        let value: Self
        do { value = try JSONDecoder().decode(Self.self, from: data) } catch let error as DecodingError {
            throw DatasetError(path: path, reason: "not a \(Self.self) file: \(explain(error))")
        }
        if let reason = value.inconsistency { throw DatasetError(path: path, reason: reason) }
        return value
    }
}
