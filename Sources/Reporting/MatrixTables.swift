import Evaluation
import Foundation
import SuiteEvaluation

/// One decimal, as the thesis's tables.
func percent(_ value: Double?) -> String { value.map { formatted("%.1f", 100 * $0) } ?? "" }

func figure(_ value: Double?) -> String { value.map { formatted("%g", (($0 * 10_000).rounded() / 10_000)) } ?? "" }

/// One number formatted by the C library's printf, as `String(format:)` formats it, at a fraction of
/// its cost (a report writes tens of thousands of numbers).
func formatted(_ format: String, _ value: Double) -> String {
    withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
        _ = withVaList([value]) { vsnprintf(buffer.baseAddress, buffer.count, format, $0) }
        return String(cString: buffer.baseAddress!)
    }
}

/// The thesis's matrix as CSV: the first column names the query's source, then one column per
/// reference; cells are scores in percent (one decimal), or with `raw` the algorithm's raw figure;
/// empty where the query failed.
public func matrixCSV(_ m: SimilarityMatrix, raw: Bool = false) -> String {
    let rows = m.rows.enumerated().map { row, source in [source] + (raw ? m.rawFigures[row].map(figure) : m.scores[row].map(percent)) }
    return CSV.file(["query \\ reference"] + m.columns, rows)
}

/// The matrix as Markdown: scores in percent with the raw figure in parentheses, each row's maximum in
/// bold, the own-source cell (the diagonal) in brackets; then identified n/N and the means.
public func matrixMarkdown(_ m: SimilarityMatrix, results: RunResults) -> String {
    let algorithm = results.algorithm(m.algorithm)
    let test = results.test(m.test)
    var out = "# \(results.title(m))\n\n"
    out += "Dataset `\(results.dataset.name)`, seed \(results.seed), fpbench \(results.tool.version).\n\n"
    if results.draws > 1 {
        out += "Each source's first of \(results.draws) queries (the thesis's layout); every query is a row of results.csv, "
        out += "and summary.md counts them all.\n\n"
    }
    if test?.queries.contains(where: \.simulated) == true { out += "Queries are **simulated** re-recordings (see the degradations in results.json).\n\n" }
    out += "Rows: queries (the unknown recordings); columns: references (the originals). Cells: score in %"
    out += algorithm.map { " (\($0.rawFigureName))" } ?? ""
    out += "; **bold** = row maximum; [brackets] = the query's own source. Heatmap: [\(m.test).svg](\(m.test).svg).\n\n"
    out += matrixTable(m).markdown
    let s = m.statistics
    out += "\nIdentified \(s.identified)/\(s.count) · mean diagonal \(percent(s.meanDiagonal)) % · "
    out += "mean off-diagonal \(percent(s.meanOffDiagonal)) % · mean margin \(percent(s.meanMargin)) points\n"
    return out
}

/// A matrix as a table model: in Markdown a cell is the score in % with the raw figure in parentheses,
/// the row's maximum in bold, the own source in brackets; in LaTeX the score alone, the maximum in bold,
/// the own source underlined.
func matrixTable(_ m: SimilarityMatrix) -> Table {
    let rows = m.rows.indices.map { row -> [Table.Cell] in
        let best = m.rowMaximum(row), own = m.diagonal(row)
        return [Table.Cell.text(m.rows[row])] + m.columns.indices.map { column -> Table.Cell in
            guard let score = m.scores[row][column] else { return .missing }
            var text = percent(score), latex = text
            if let raw = m.rawFigures[row][column], raw != score { text += " (\(figure(raw)))" }
            if score == best { (text, latex) = ("**\(text)**", "\\textbf{\(latex)}") }
            return column == own ? Table.Cell(markdown: "[\(text)]", latex: "\\underline{\(latex)}") : Table.Cell(markdown: text, latex: latex)
        }
    }
    return Table(columns: [Table.Column("query \\ reference", latex: "query")]
                 + m.columns.map { Table.Column($0, latex: Table.heading(.text($0))) }.map { var c = $0; c.numeric = true; return c }, rows: rows)
}

/// Every comparison of a run as one long, tidy table (results.csv): one row per algorithm × test ×
/// query × reference, ready for pandas or R. `draw` numbers a source's queries from 0; `rank` is the
/// reference's place in its row (1 = the highest score; ties keep the column order); `identified` and
/// `matched` are the row's.
public func longCSV(_ results: RunResults) -> String {
    var lines = [CSV.row(["run_id", "algorithm", "variant", "test", "family", "source", "draw", "query_seed", "reference", "own", "score",
                          "raw_figure", "offset_s", "rank", "identified", "matched"])]
    let family = Dictionary(uniqueKeysWithValues: results.dataset.sources.map { ($0.id, $0.family) })
    let runID = results.runID
    for m in results.matrices {
        let queries = results.queries(of: m), variant = results.algorithm(m.algorithm)?.profile.variant ?? ""
        for (row, source) in m.rows.enumerated() {
            let order = m.columns.indices.filter { m.scores[row][$0] != nil }
                .sorted { (m.scores[row][$0]!, -$0) > (m.scores[row][$1]!, -$1) }
            let query = queries.indices.contains(row) ? queries[row] : nil
            for (column, reference) in m.columns.enumerated() {
                let fields = [runID, m.algorithm, variant, m.test, family[source] ?? "", source,
                              String(query?.draw ?? 0), query.map { String($0.seed) } ?? "", reference,
                              reference == source ? "1" : "0", m.scores[row][column].map { String($0) } ?? "",
                              m.rawFigures[row][column].map { String($0) } ?? "", m.offsets[row][column].map { String($0) } ?? "",
                              order.firstIndex(of: column).map { String($0 + 1) } ?? "",
                              m.isIdentified(row) ? "1" : "0", m.matched == nil ? "" : (m.isMatched(row) ? "1" : "0")]
                lines.append(CSV.row(fields))
            }
        }
    }
    return lines.joined(separator: "\n") + "\n"
}

/// Every catalog answer of a run (catalog.csv): one row per algorithm × test × query, with the top
/// recording (empty: no match), its score and offset, and whether it is the query's own source.
public func catalogCSV(_ results: RunResults) -> String {
    let runID = results.runID
    let rows = results.catalogs.flatMap { catalog in
        zip(results.test(catalog.test)?.queries ?? [], catalog.answers ?? []).map { query, answer in
            [runID, catalog.algorithm, catalog.test, query.source, String(query.draw ?? 0), String(query.seed), answer.answer ?? "",
             answer.score.map { String($0) } ?? "", answer.offset.map { String($0) } ?? "", answer.answer == query.source ? "1" : "0"]
        }
    }
    return CSV.file(["run_id", "algorithm", "test", "source", "draw", "query_seed", "answer", "score", "offset_s", "correct"], rows)
}
