import AudioIO
import Fingerprinting
import Foundation

/// What a system answered, kept beside its index (`answers.jsonl` in its state folder) by the SHA-256 of
/// the query file it was asked about, so a run that was interrupted, or run again on the same queries, asks
/// only what is missing. The state folder is the system's version, settings and catalog, and a new index
/// comes with an empty memory; an answer that failed is not kept (asked again). One line per query, written
/// as each batch is answered; a line cut short by an interruption is ignored.
final class AnswerMemory {
    struct Entry: Codable {
        var key: String
        var lines: [Stored]
    }

    /// An answer line without its query path (a temporary file's, different in every run).
    struct Stored: Codable {
        var reference: String?
        var offset: Double
        var score: Double
        var rawScore: Double
    }

    static let fileName = "answers.jsonl"
    private let file: URL
    private var known: [String: [Stored]] = [:]
    private let lock = NSLock()

    init(state: URL) {
        file = state.appendingPathComponent(Self.fileName)
        for line in (RegularFile.contents(file.path).map { String(decoding: $0, as: UTF8.self) } ?? "").split(separator: "\n") {
            if let entry = try? JSONDecoder().decode(Entry.self, from: Data(line.utf8)) { known[entry.key] = entry.lines }
        }
    }

    static func key(_ query: String) -> String? { try? sha256Hex(file: query) }

    /// The remembered answer to the query whose file hashes to `key`, its lines naming `query`.
    func answer(_ key: String, query: String) -> [AnswerFormat.Line]? {
        lock.withLock { known[key] }?.map { .init(query: query, reference: $0.reference, offset: $0.offset, score: $0.score, rawScore: $0.rawScore) }
    }

    /// Keeps answers (by key), appended to the file at once.
    func remember(_ answers: [(key: String, lines: [AnswerFormat.Line])]) {
        guard !answers.isEmpty else { return }
        let entries = answers.map { Entry(key: $0.key, lines: $0.lines.map { Stored(reference: $0.reference, offset: $0.offset, score: $0.score, rawScore: $0.rawScore) }) }
        let text = entries.compactMap { try? String(decoding: JSONEncoder().encode($0), as: UTF8.self) }.map { $0 + "\n" }.joined()
        lock.withLock {
            for entry in entries { known[entry.key] = entry.lines }
            if !FileManager.default.fileExists(atPath: file.path) { _ = FileManager.default.createFile(atPath: file.path, contents: nil) }
            guard let handle = try? FileHandle(forWritingTo: file) else { return }
            defer { try? handle.close() }
            _ = try? handle.seekToEnd()
            try? handle.write(contentsOf: Data(text.utf8))
        }
    }
}
