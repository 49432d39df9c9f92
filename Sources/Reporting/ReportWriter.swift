import Evaluation
import Foundation
import SuiteEvaluation

/// Writes a run's report folder: results.json, results.csv (every comparison, one per row), catalog.csv
/// (every catalog answer, one per row), identified.svg (rates with intervals and chance),
/// matrices/ALGORITHM/TEST.{csv,raw.csv,md,svg} (each source's first query: the thesis's layout), summary.md and report.html.
/// Every file is written atomically (a temporary file, then a rename).
public enum ReportWriter {
    public static func write(_ results: RunResults, to folder: URL, includeResults: Bool = true) throws {
        try OutputFolder.write(folder) { try write(results, into: $0, includeResults: includeResults) }
    }

    public static func write(_ results: RunResults, into held: OutputFolder.Held, includeResults: Bool = true) throws {
        if includeResults { try held.put(results.sealed().encoded(), "results.json") }
        for m in results.matrices.map(results.firstQueries) {
            let base = "matrices/\(m.algorithm)/\(m.test)"
            try FileManager.default.createDirectory(at: held.url.appendingPathComponent("matrices/\(m.algorithm)"), withIntermediateDirectories: true)
            try held.put(matrixCSV(m), base + ".csv")
            try held.put(matrixCSV(m, raw: true), base + ".raw.csv")
            try held.put(matrixMarkdown(m, results: results), base + ".md")
            try held.put(Figures.heatmap(m, title: results.title(m)), base + ".svg")
        }
        try held.put(longCSV(results), "results.csv")
        if !results.catalogs.isEmpty { try held.put(catalogCSV(results), "catalog.csv") }
        try held.put(identifiedFigure(results), "identified.svg")
        let summary = summaryMarkdown(results) { "matrices/\($0.algorithm)/\($0.test).md" }
        try held.put(summary, "summary.md")
        try latexTables(results).write(into: held)
        try RunPage.write(results, summary: summary, to: held.url)
    }

    /// The suite's LaTeX: the identification table, each matrix (each source's first query) with its
    /// heatmap, and the identified figure.
    static func latexTables(_ results: RunResults) -> LaTeXTables {
        var tables = LaTeXTables()
        let identification = identificationTable(results), n = results.references.count
        let caption = "Identified: the query's own source ranks first among \(n) references, of \(results.draws) quer\(results.draws == 1 ? "y" : "ies") per source "
            + "and test (the thesis's four tests); 95\\,\\% Wilson interval below (\\%). Bold: the test's best and every count whose interval "
            + "reaches it. Last row: the chance of identifying by luck."
        tables.add("identified", identification.latex(caption: caption, label: "tab:identified"), citing: identification.rows.flatMap { $0[0].cites })
        tables.add(figure: "identified", caption: "Identified (\\%) per algorithm and test, with 95\\,\\% intervals; the line: chance.")
        for m in results.matrices.map(results.firstQueries) {
            let name = "matrix-\(m.algorithm)-\(m.test)", s = m.statistics
            let caption = LaTeX.escaped(results.title(m)) + ": similarity scores (\\%) of each source's first query (rows) against each reference "
                + "(columns). Bold: the row's maximum; underlined: the query's own source. Identified \(s.identified)/\(s.count); mean own-source score "
                + "\(percent(s.meanDiagonal))\\,\\%."
            tables.add(name, matrixTable(m).latex(caption: caption, label: "tab:\(name)"), citing: [])
            tables.add(figure: "matrices/\(m.algorithm)/\(m.test)", caption: LaTeX.escaped(results.title(m)) + ": the similarity matrix as a heatmap, the own source outlined.")
        }
        return tables
    }
}

/// Identified per algorithm and test, with 95 % intervals and the chance level.
func identifiedFigure(_ results: RunResults) -> String {
    let tests = results.tests.map(\.definition.id)
    return Figures.rateBars(title: "Identified (own source ranked first), \(results.draws) quer\(results.draws == 1 ? "y" : "ies") per source",
                            yLabel: "identified (%)", groups: tests, chance: results.references.isEmpty ? 0 : 1 / Double(results.references.count),
                            series: results.algorithms.map { algorithm in
                                (algorithm.identifier, tests.map { test in
                                    results.matrix(algorithm: algorithm.identifier, test: test).map { Rate($0.statistics.identified, of: $0.statistics.count) }
                                })
                            })
}
