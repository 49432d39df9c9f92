import Evaluation
import Foundation
import SuiteEvaluation

/// A suite run's report.html: the summary (each cell opens the queries behind it), every similarity
/// matrix as a heat map (own source outlined, each row's top answer dotted: a dot inside the outline is
/// an identified query), and every query's answer with players for the audio the run kept.
enum RunPage {
    static func write(_ results: RunResults, summary: String, to folder: URL) throws {
        var page = HTMLPage(title: "FingerprintBench run: \(results.dataset.name), seed \(results.seed)")
        let markdown = MarkdownHTML(folder: folder, anchor: { href in
            // matrices/ALGORITHM/TEST.md → the queries behind the cell; .svg → the heat map on this page.
            let parts = href.components(separatedBy: "/")
            guard parts.count == 3, parts[0] == "matrices" else { return nil }
            let test = (parts[2] as NSString).deletingPathExtension
            return parts[2].hasSuffix(".svg") ? "#m-\(parts[1])-\(test)" : QueryList.href(["algorithm": parts[1], "test": test])
        })
        page.add(markdown.render(summary))
        page.add(heatMaps(results, folder: folder))
        page.queries = queries(results, folder: folder)
        try page.write(to: folder)
    }

    static func heatMaps(_ results: RunResults, folder: URL) -> String {
        var html = "<h2 id=\"similarity-matrices\">Similarity matrices</h2>\n<p>Rows: queries (each source's first), columns: references; "
        html += "darker is a higher score; the own source is outlined and each row's top score dotted, so a dot inside the outline is an identified query. "
        html += "Unfold an algorithm for its matrices; click a matrix for its queries.</p>\n"
        if let svg = try? String(contentsOf: folder.appendingPathComponent("identified.svg"), encoding: .utf8) {
            html = "<figure data-file=\"identified.svg\">\(HTMLPage.inlineSVG(svg))</figure>\n" + html
        }
        for algorithm in results.algorithms.map(\.identifier) {
            // Folded per algorithm (a link to a matrix unfolds it): a page with every matrix opens faster.
            let count = results.matrices.filter { $0.algorithm == algorithm }.count
            html += "<details><summary>\(HTMLPage.escape(algorithm)) (\(count) matri\(count == 1 ? "x" : "ces"))</summary>\n<div class=\"matrices\">\n"
            for m in results.matrices where m.algorithm == algorithm {
                let file = "matrices/\(m.algorithm)/\(m.test).svg"
                guard let svg = try? String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8) else { continue }
                html += "<figure id=\"m-\(HTMLPage.escape(m.algorithm))-\(HTMLPage.escape(m.test))\" data-file=\"\(HTMLPage.escape(file))\">"
                html += "<a href=\"\(HTMLPage.escape(QueryList.href(["algorithm": m.algorithm, "test": m.test])))\">\(HTMLPage.inlineSVG(svg))</a></figure>\n"
            }
            html += "</div>\n</details>\n"
        }
        return html
    }

    static func queries(_ results: RunResults, folder: URL) -> QueryList {
        let references = Dictionary(uniqueKeysWithValues: results.dataset.sources.map { ($0.id, $0.name) })
        let kept = KeptFiles(in: folder).path
        var list = QueryList(
            columns: ["algorithm", "test", "outcome", "query", "truth", "answer", "own score", "degradation", "seed"].map { .init(name: $0) }
                + ["query audio", "should have matched", "did match"].map { .init(name: $0, kind: .audio) },
            filters: ["algorithm", "test", "outcome"], failed: [notIdentified],
            caption: "One row per algorithm and query; queries not identified first. Identified: the own source scored strictly above every other "
                + "reference. Answer: the reference ranked first, with its score. Seed: the query's (crop and every degradation). Players appear for "
                + "the audio the run kept (<code>fpbench run --keep-audio failures</code>).")
        var failing: [[String]] = [], passing: [[String]] = []
        for m in results.matrices {
            let queries = results.queries(of: m)
            for row in m.rows.indices {
                let query = queries.indices.contains(row) ? queries[row] : nil
                let top = m.topColumn(row)
                let own = m.diagonal(row).flatMap { m.scores[row][$0] }
                let outcome = m.isIdentified(row) ? "identified" : notIdentified
                let truth = query.map { String(format: "%@ (%@ @ %.2f s)", $0.source, $0.excerpt.file, $0.excerpt.start) } ?? m.rows[row]
                let answer = top.map { String(format: "%@ (%.3f)", m.columns[$0], m.scores[row][$0] ?? 0) } ?? "no score"
                let chain = (query?.degradations ?? []).map { describe(name: $0.name, parameters: $0.parameters) }.joined(separator: " → ")
                let queryAudio = query.map { kept(RunAudio.query(test: m.test, $0)) } ?? ""
                let row: [String] = [m.algorithm, m.test, outcome, m.rows[row] + (query?.draw.map { " #\($0 + 1)" } ?? ""),
                                     "\(truth) — \(references[m.rows[row]] ?? "")", answer, own.map { String(format: "%.3f", $0) } ?? "",
                                     chain.isEmpty ? "none" : chain, query.map { String($0.seed) } ?? "", queryAudio,
                                     kept(RunAudio.reference(m.rows[row])), top.map { kept(RunAudio.reference(m.columns[$0])) } ?? ""]
                if outcome == notIdentified { failing.append(row) } else { passing.append(row) }
            }
        }
        list.rows = failing + passing
        return list
    }

    static let notIdentified = "not identified"

    /// "speed (factor 0.95)".
    static func describe(name: String, parameters: [String: String]) -> String {
        let fields = parameters.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
        return fields.isEmpty ? name : "\(name) (\(fields.joined(separator: ", ")))"
    }
}
