import Foundation

/// The three results files fpbench writes, told apart by their `kind` field: one place reads it for
/// `report` and `merge`. Files written before the suite's and the sweep's carried it are told by their
/// fields: a sweep's has an `axis`, a suite run's neither.
public enum ResultsKind: String, Sendable, Codable, CaseIterable {
    /// `fpbench run`'s results.json (the thesis suite's matrices).
    case suite
    /// `fpbench benchmark`'s results.json (answers to queries among whole tracks).
    case benchmark
    /// A sweep's sweep.json (accuracy at each level, breaking points).
    case sweep

    /// What a message calls such a file.
    public var fileDescription: String {
        switch self {
        case .suite: return "a suite run's results.json"
        case .benchmark: return "a benchmark's results.json"
        case .sweep: return "a sweep's sweep.json"
        }
    }

    /// Its JSON Schema, in the repository's Schemas/ folder.
    public var schema: String {
        switch self {
        case .suite: return "results.schema.json"
        case .benchmark: return "benchmark-results.schema.json"
        case .sweep: return "sweep.schema.json"
        }
    }

    /// The kind of a results file's content; refused when it is not JSON or names a kind fpbench does not write.
    public static func of(_ data: Data, path: String) throws -> ResultsKind {
        struct Fields: Decodable { var kind: String?; var axis: String? }
        let fields: Fields
        do { fields = try JSONDecoder().decode(Fields.self, from: data) } catch {
            throw DatasetError(path: path, reason: "not a results file: not a JSON object with a text kind (\(error.localizedDescription))")
        }
        guard let written = fields.kind else { return fields.axis != nil ? .sweep : .suite }
        guard let kind = ResultsKind(rawValue: written) else {
            throw DatasetError(path: path, reason: "kind '\(written)' is none of fpbench's results (\(allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        return kind
    }
}
