import Fingerprinting
import BenchmarkEvaluation
import Evaluation
import Foundation

/// A benchmark folder's report.html: the summary with its figures, each cell of the tables
/// `BenchmarkReport.linkedTables` names opening the answers behind it, and every answer (outcome at the
/// calibrated threshold, truth, answer, score, the condition and its seed, and players for the audio the
/// run kept).
enum BenchmarkPage {
    static func write(_ r: BenchmarkResults, metrics m: BenchmarkMetrics, summary: String, linking tables: [Table], to folder: URL) throws {
        var page = HTMLPage(title: "Identification benchmark: \(r.catalog.dataset)")
        let markdown = MarkdownHTML(folder: folder, linking: tables)
        page.add(markdown.render(summary))
        page.queries = queries(r, metrics: m, folder: folder)
        try page.write(to: folder)
    }

    static func queries(_ r: BenchmarkResults, metrics m: BenchmarkMetrics, folder: URL) -> QueryList {
        let queries = Dictionary(uniqueKeysWithValues: r.queries.map { ($0.id, $0) })
        let conditions = Dictionary(r.spec.conditions.map { ($0.id, $0.title) }, uniquingKeysWith: { a, _ in a })
        let kept = KeptFiles(in: folder).path
        let trackIndex = Dictionary(r.catalog.tracks.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { a, _ in a })
        var list = QueryList(
            columns: ["algorithm", "length", "condition", "outcome", "query", "truth", "answer", "answer at (s)", "score", "threshold", "degradation", "seed"].map { .init(name: $0) }
                + ["query audio", "should have matched", "did match"].map { .init(name: $0, kind: .audio) },
            filters: ["algorithm", "length", "condition", "outcome"],
            failed: Outcome.allCases.map(\.rawValue).filter { $0 != Outcome.correct.rawValue } + [BenchmarkMetrics.falsePositive],
            caption: "One row per algorithm, query and condition; failing answers first. The outcome is at the threshold calibrated on the negative "
                + "queries of that length (the summary's bold figures): correct means the right recording within ±\(BenchmarkReport.g(r.spec.offsetTolerance)) s. "
                + "Seed: the degradation chain's, \(r.seedRule). Players appear for the audio the run kept (<code>fpbench benchmark --keep-audio failures</code>).")
        var failing: [[String]] = [], passing: [[String]] = []
        for answer in r.answers {
            guard let q = queries[answer.query] else { continue }
            let threshold = m.negative(answer.algorithm, q.length)?.calibratedThreshold ?? 0
            let outcome = BenchmarkMetrics.calibratedOutcome(answer, query: q, threshold: threshold, results: r)
            let top = answer.top.first
            let truthStart = answer.expectedOffset ?? q.start
            let condition = q.negative ? "clean" : answer.condition
            let seed = answer.question.chainSeed(r.seed)
            let truth = q.negative ? "\(q.file) (not in the catalog)" : String(format: "%@ @ %.2f s", q.file, truthStart)
            // The answer's file and offset apart: the page stores each column's distinct values once.
            let answered = top.map { r.catalog.tracks[$0.track] + ($0.score > threshold ? "" : " (below the threshold)") } ?? "no candidate"
            let answeredAt = top.map { String(format: "%.2f", $0.offset) } ?? ""
            let score = top.map { String(format: "%.3f", $0.score) } ?? ""
            let title = conditions[answer.condition] ?? answer.condition
            let queryAudio = kept(answer.question.keptAudio)
            var shouldMatch = ""
            if !q.negative, let t = trackIndex[q.file] { shouldMatch = kept(BenchmarkAudio.reference(track: t, start: truthStart, length: q.length)) }
            let didMatch = top.map { kept(BenchmarkAudio.reference(track: $0.track, start: $0.offset, length: q.length)) } ?? ""
            let row: [String] = [answer.algorithm, QueryLength(q.length).number, condition, outcome, q.id, truth, answered, answeredAt, score,
                                 String(format: "%.3f", threshold), title, String(format: "%016llx", seed), queryAudio, shouldMatch, didMatch]
            if BenchmarkMetrics.isFailure(outcome) { failing.append(row) } else { passing.append(row) }
        }
        list.rows = failing + passing
        return list
    }
}
