import AudioIO
import Fingerprinting
import Foundation

/// What a system answered, kept beside its index (`answers.jsonl` in its state folder) by the SHA-256 of
/// the query file it was asked about, so a run that was interrupted, or run again on the same queries, asks
/// only what is missing. The state folder is the system's version, settings and catalog, and a new index
/// comes with an empty memory; an answer that failed is not kept (asked again). One line per query, written
/// as each batch is answered; a line cut short by an interruption is ignored. Each keeps its share of what
/// the call that answered it cost, so a resumed run's costs are those measured when each query was asked.
final class AnswerMemory {
    struct Entry: Codable {
        var key: String
        var lines: [Stored]
        /// Absent in memories written before costs were kept: such an answer counts in no cost figure.
        var cost: Cost?
    }

    /// A query's share of its call: the call's CPU and wall seconds over its queries, and the call's peak.
    struct Cost: Codable {
        var cpuSeconds: Double
        var wallSeconds: Double
        var peakResidentBytes: Int

        init(sharing call: OutsideSystem.Call) {
            cpuSeconds = call.cpuSeconds / Double(max(1, call.queries))
            wallSeconds = call.wallSeconds / Double(max(1, call.queries))
            peakResidentBytes = call.peakResidentBytes
        }

        /// Remembered answers' costs as one call of theirs: the shares summed, the largest peak (nil: none kept).
        static func call(summing costs: [Cost]) -> OutsideSystem.Call? {
            guard let peak = costs.map(\.peakResidentBytes).max() else { return nil }
            return OutsideSystem.Call(queries: costs.count, cpuSeconds: costs.reduce(0) { $0 + $1.cpuSeconds },
                                      wallSeconds: costs.reduce(0) { $0 + $1.wallSeconds }, peakResidentBytes: peak)
        }
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
    private var known: [String: Entry] = [:]
    private let lock = NSLock()

    init(state: URL) {
        file = state.appendingPathComponent(Self.fileName)
        for line in (RegularFile.contents(file.path).map { String(decoding: $0, as: UTF8.self) } ?? "").split(separator: "\n") {
            if let entry = try? JSONDecoder().decode(Entry.self, from: Data(line.utf8)) { known[entry.key] = entry }
        }
    }

    static func key(_ query: String) -> String? { try? sha256Hex(file: query) }

    /// The remembered answer to the query whose file hashes to `key`, its lines naming `query`, and its cost.
    func answer(_ key: String, query: String) -> (lines: [AnswerFormat.Line], cost: Cost?)? {
        lock.withLock { known[key] }.map { entry in
            (entry.lines.map { .init(query: query, reference: $0.reference, offset: $0.offset, score: $0.score, rawScore: $0.rawScore) }, entry.cost)
        }
    }

    /// Keeps answers (by key) with their share of the `call` that answered them, appended to the file at once.
    func remember(_ answers: [(key: String, lines: [AnswerFormat.Line])], call: OutsideSystem.Call?) {
        guard !answers.isEmpty else { return }
        let cost = call.map(Cost.init(sharing:))
        let entries = answers.map {
            Entry(key: $0.key, lines: $0.lines.map { Stored(reference: $0.reference, offset: $0.offset, score: $0.score, rawScore: $0.rawScore) }, cost: cost)
        }
        let text = entries.compactMap { try? String(decoding: JSONEncoder().encode($0), as: UTF8.self) }.map { $0 + "\n" }.joined()
        lock.withLock {
            for entry in entries { known[entry.key] = entry }
            if !FileManager.default.fileExists(atPath: file.path) { _ = FileManager.default.createFile(atPath: file.path, contents: nil) }
            guard let handle = try? FileHandle(forUpdating: file) else { return }
            defer { try? handle.close() }
            // After a line an interruption cut short, a new line first, or the next entry would be glued to it and lost.
            let end = (try? handle.seekToEnd()) ?? 0
            var cut = false
            if end > 0, (try? handle.seek(toOffset: end - 1)) != nil, let last = try? handle.read(upToCount: 1) { cut = last != Data("\n".utf8) }
            _ = try? handle.seekToEnd()
            try? handle.write(contentsOf: Data(((cut ? "\n" : "") + text).utf8))
        }
    }
}
