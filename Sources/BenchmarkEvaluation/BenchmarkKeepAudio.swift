import AudioIO
import Degradation
import Evaluation
import Foundation

/// The last phase with `--keep-audio`: the audio behind answers written as WAV files (`BenchmarkAudio`
/// names them), so a reader of the report page can hear a failure: the query as the algorithms heard
/// it, the excerpt it should have matched and the one it did match. Queries are made again from their
/// seeds, so nothing is held during the run.
extension Benchmark {
    /// One file to write: what it is and its size at the working rate (16-bit WAV).
    struct KeptFile {
        enum Content {
            case query(BenchmarkQuery, condition: String)
            case excerpt(track: Int, start: Double, length: Double)
        }
        var path: String
        var content: Content
        var bytes: Int
    }

    func keepAudio(_ r: BenchmarkResults, stageContext: StageContext, progress: ProgressReporter) {
        let c = configuration
        guard c.keepAudio != .none, let folder = c.keepAudioFolder else { return }
        let files = Self.filesToKeep(r, mode: c.keepAudio, limitBytes: c.keepAudioLimitBytes)
        let conditions = Dictionary(r.spec.conditions.map { ($0.id, $0) } + [(BenchmarkCondition.cleanID, r.spec.conditions[0].clean)], uniquingKeysWith: { a, _ in a })
        // One task per query (its window decoded once for all its conditions) and one per excerpt.
        var tasks: [[KeptFile]] = [], taskOf: [String: Int] = [:]
        for file in files {
            let key: String
            if case .query(let q, _) = file.content { key = "query " + q.id } else { key = file.path }
            if let t = taskOf[key] { tasks[t].append(file) } else { taskOf[key] = tasks.count; tasks.append([file]) }
        }
        progress.start("keeping audio", total: files.count)
        let written = parallelMap(tasks.count, threads: c.threads) { t -> [(file: KeptFile, written: Bool)] in
            var window: Audio?
            return tasks[t].map { file in
                defer { progress.advance() }
                let path = folder.appendingPathComponent(file.path)
                do {
                    let audio: Audio
                    switch file.content {
                    case .query(let q, let condition):
                        guard let condition = conditions[condition] else { return (file, false) }
                        if window == nil {
                            window = try self.window(q)
                        }
                        audio = try chain(q, condition, stageContext: stageContext).apply(window!)
                    case .excerpt(let track, let start, let length):
                        audio = try AudioReader.read(c.dataset.path(r.catalog.tracks[track]), sampleRate: workingRate,
                                                     window: TimeWindow(start: max(0, start), duration: length))
                    }
                    try FileManager.default.createDirectory(at: path.deletingLastPathComponent(), withIntermediateDirectories: true)
                    try AudioWriter.write(audio, to: path.path)
                    return (file, true)
                } catch { return (file, false) }  // an excerpt past a track's end: the page shows no player
            }
        }.flatMap { $0 }.filter(\.written).map(\.file)
        progress.finish()
        let bytes = written.reduce(0) { $0 + $1.bytes }
        Console.note(String(format: "kept audio: %d files, %.0f MB, in %@ (--keep-audio %@, cap %.0f MB)",
                                                   written.count, Double(bytes) / 1e6, folder.appendingPathComponent(BenchmarkAudio.folder).path,
                                                   c.keepAudio.rawValue, Double(c.keepAudioLimitBytes) / 1e6))
    }

    /// The files behind the chosen answers, failing answers of the longest queries first, each answer
    /// whole (its query and both excerpts) until the next would pass `limitBytes`.
    static func filesToKeep(_ r: BenchmarkResults, mode: KeepAudio, limitBytes: Int) -> [KeptFile] {
        let metrics = BenchmarkMetrics(r), queries = Dictionary(uniqueKeysWithValues: r.queries.map { ($0.id, $0) })
        let trackIndex = Dictionary(r.catalog.tracks.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { a, _ in a })
        func bytes(_ seconds: Double) -> Int { 44 + 2 * Int((seconds * workingRate).rounded(.up)) }
        var chosen: [(order: (Double, Int), files: [KeptFile])] = []
        for (n, answer) in r.answers.enumerated() {
            guard let q = queries[answer.query], answer.failure == nil else { continue }
            let threshold = metrics.negative(answer.algorithm, q.length)?.calibratedThreshold ?? 0
            guard mode == .all || BenchmarkMetrics.isFailure(BenchmarkMetrics.calibratedOutcome(answer, query: q, threshold: threshold, results: r)) else { continue }
            var files = [KeptFile(path: answer.question.keptAudio, content: .query(q, condition: answer.condition), bytes: bytes(q.length))]
            let truth = answer.expectedOffset ?? q.start
            if !q.negative, let t = trackIndex[q.file] {
                files.append(KeptFile(path: BenchmarkAudio.reference(track: t, start: truth, length: q.length),
                                      content: .excerpt(track: t, start: truth, length: q.length), bytes: bytes(q.length)))
            }
            if let top = answer.top.first {
                files.append(KeptFile(path: BenchmarkAudio.reference(track: top.track, start: top.offset, length: q.length),
                                      content: .excerpt(track: top.track, start: top.offset, length: q.length), bytes: bytes(q.length)))
            }
            chosen.append(((-q.length, n), files))
        }
        var kept: [KeptFile] = [], paths = Set<String>(), total = 0
        for answer in chosen.sorted(by: { $0.order < $1.order }) {
            let new = answer.files.filter { !paths.contains($0.path) }
            let size = new.reduce(0) { $0 + $1.bytes }
            guard total + size <= limitBytes else { break }
            total += size
            for file in new where paths.insert(file.path).inserted { kept.append(file) }
        }
        return kept
    }
}
