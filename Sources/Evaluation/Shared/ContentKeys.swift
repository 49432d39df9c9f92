import AudioIO
import Degradation
import Fingerprinting
import Foundation

/// Cache keys from what determines an input, known before anything is decoded.
struct ContentKeys {
    let dataset: Dataset
    let seed: UInt64

    /// A file by its manifest checksum (or, without one, its size and modification time).
    func file(_ path: String) -> String {
        if let sha = dataset.recordedSHA256(path) { return "sha256:\(sha)" }
        let full = FileManager.default.fileExists(atPath: path) ? path : dataset.path(path)
        let attributes = try? FileManager.default.attributesOfItem(atPath: full)
        return "file:\(path)|\(attributes?[.size] ?? 0)|\((attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)"
    }

    func excerpt(_ e: Excerpt) -> String { "excerpt|\(file(e.file))|\(e.start)|\(e.duration)|\(Runner.workingRate)" }

    /// A benchmark query under a condition: its window, the condition (every field), its chain seed and
    /// the recordings its stages use.
    func benchmarkQuery(_ q: BenchmarkQuery, condition: BenchmarkCondition, seed chainSeed: UInt64) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let definition = (try? encoder.encode(condition)).map { String(decoding: $0, as: UTF8.self) } ?? condition.id
        return "benchmark|\(file(q.file))|\(q.start)|\(q.length)|\(definition)|seed \(chainSeed)|\(recordings(condition.recordings))|\(Runner.workingRate)"
    }

    private func recordings(_ ids: [String]) -> String {
        let named = dataset.manifest.noises + dataset.manifest.impulseResponses
        return ids.sorted().map { id in "\(id)=" + (named.first { $0.id == id }.map { file($0.file) } ?? file(id)) }.joined(separator: ",")
    }

    /// A query is fixed by the run's seed, its test (every field), its source and draw, its excerpt and the
    /// recordings its stages use.
    func query(_ test: TestDefinition, source: String, draw: Int, excerpt cut: Excerpt) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let definition = (try? encoder.encode(test)).map { String(decoding: $0, as: UTF8.self) } ?? test.id
        return "query|seed \(seed)|\(definition)|\(source)\(draw == 0 ? "" : "|draw \(draw)")|\(excerpt(cut))|\(recordings(test.recipe.recordings))"
    }
}
