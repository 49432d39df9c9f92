import AudioIO
import Evaluation
import Foundation

/// Where `run --keep-audio` writes inside the run's folder: each query as the algorithms heard it, and
/// the references it was ranked against. The report page links a player to each file that exists.
public enum RunAudio {
    public static func query(test: String, _ query: RunResults.Query) -> String {
        "queries/\(test)/\(query.source)\(query.draw.map { "-\($0 + 1)" } ?? "").wav"
    }

    public static func reference(_ source: String) -> String { "queries/references/\(source).wav" }
}

extension Runner {
    /// With --keep-audio: the queries (all, or those some algorithm did not identify) and the references
    /// they should have and did rank first, as WAV at the working rate, until the size limit.
    func keepAudio(_ tests: [PlannedTest], sources: [Source], matrices: [SimilarityMatrix], audio: QueryAudio, progress: ProgressReporter,
                   problems: inout Problems) {
        let c = configuration
        guard let folder = c.keepAudioFolder, c.keepAudio != .none else { return }
        let references = Dictionary(uniqueKeysWithValues: sources.map { ($0.id, $0.reference) })
        var chosen: [(test: Int, row: Int, references: [String])] = []
        for (t, test) in tests.enumerated() {
            let own = matrices.filter { $0.test == test.record.definition.id && $0.rows.count == test.record.queries.count }
            for row in test.record.queries.indices {
                let failing = own.filter { !$0.isIdentified(row) }
                guard c.keepAudio == .all || !failing.isEmpty else { continue }
                let tops = failing.compactMap { m in m.topColumn(row).map { m.columns[$0] } }
                chosen.append((t, row, [test.record.queries[row].source] + tops))
            }
        }
        progress.start("keeping audio", total: chosen.count)
        var written = Set<String>(), bytes = 0, full = false
        func write(_ made: Result<Audio, Error>, _ path: String, test: String) {
            guard !full, !written.contains(path) else { return }
            do {
                let audio = try made.get()
                let size = 44 + 2 * audio.samples.count
                guard bytes + size <= c.keepAudioLimitBytes else { full = true; return }
                let url = folder.appendingPathComponent(path)
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try AudioWriter.write(audio, to: url.path)
                written.insert(path)
                bytes += size
            } catch {
                problems.fail("keep-audio \(path)", "\(error)", test: test)
            }
        }
        for item in chosen {
            defer { progress.advance() }
            let test = tests[item.test].record, id = test.definition.id
            write(audio.query(test: item.test, row: item.row), RunAudio.query(test: id, test.queries[item.row]), test: id)
            for source in Set(item.references).sorted() {
                guard let excerpt = references[source] else { continue }
                write(audio.excerpts.audio(excerpt), RunAudio.reference(source), test: id)
            }
        }
        progress.finish()
        // Said on standard error, not in the results: what a run keeps does not change what it measured.
        Console.note(String(format: "kept audio: %d files, %.0f MB, in %@ (--keep-audio %@%@)", written.count, Double(bytes) / 1e6,
                                                   folder.appendingPathComponent("queries").path, c.keepAudio.rawValue,
                                                   full ? String(format: "; stopped at the %.0f MB cap, --keep-audio-limit", Double(c.keepAudioLimitBytes) / 1e6) : ""))
    }
}
