import Foundation

/// Cache keys from what determines an input, known before anything is decoded. Each engine adds the
/// keys of its own queries (`SuiteEvaluation`, `BenchmarkEvaluation`).
package struct ContentKeys {
    package let dataset: Dataset
    package let seed: UInt64

    package init(dataset: Dataset, seed: UInt64) {
        self.dataset = dataset
        self.seed = seed
    }

    /// A file by its manifest checksum (or, without one, its size and modification time).
    package func file(_ path: String) -> String {
        if let sha = dataset.recordedSHA256(path) { return "sha256:\(sha)" }
        let full = FileManager.default.fileExists(atPath: path) ? path : dataset.path(path)
        let attributes = try? FileManager.default.attributesOfItem(atPath: full)
        return "file:\(path)|\(attributes?[.size] ?? 0)|\((attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)"
    }

    /// The recordings a query's stages use, each by its file's key.
    package func recordings(_ ids: [String]) -> String {
        let named = dataset.manifest.noises + dataset.manifest.impulseResponses
        return ids.sorted().map { id in "\(id)=" + (named.first { $0.id == id }.map { file($0.file) } ?? file(id)) }.joined(separator: ",")
    }

    /// A value's definition as sorted JSON (every field), or `fallback` if it does not encode.
    package static func definition(_ value: some Encodable, fallback: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? fallback
    }
}
