import Evaluation
import Foundation
import SuiteEvaluation

/// Writes a run's report folder: results.json, results.csv (every comparison, one per row), catalog.csv
/// (every catalog answer, one per row), identified.svg (rates with intervals and chance),
/// matrices/ALGORITHM/TEST.{csv,raw.csv,md,svg} (each source's first query: the thesis's layout), summary.md and report.html.
/// Every file is written atomically (a temporary file, then a rename).
public enum ReportWriter {
    public static func write(_ results: RunResults, to folder: URL, includeResults: Bool = true) throws {
        try OutputFolder.write(folder) {
            let fm = FileManager.default
            try fm.createDirectory(at: folder, withIntermediateDirectories: true)
            if includeResults { try results.sealed().encoded().write(to: folder.appendingPathComponent("results.json"), options: .atomic) }
            for m in results.matrices.map(results.firstQueries) {
                let base = folder.appendingPathComponent("matrices").appendingPathComponent(m.algorithm)
                try fm.createDirectory(at: base, withIntermediateDirectories: true)
                try Data(matrixCSV(m).utf8).write(to: base.appendingPathComponent("\(m.test).csv"), options: .atomic)
                try Data(matrixCSV(m, raw: true).utf8).write(to: base.appendingPathComponent("\(m.test).raw.csv"), options: .atomic)
                try Data(matrixMarkdown(m, results: results).utf8).write(to: base.appendingPathComponent("\(m.test).md"), options: .atomic)
                try Data(Figures.heatmap(m, title: results.title(m)).utf8).write(to: base.appendingPathComponent("\(m.test).svg"), options: .atomic)
            }
            try Data(longCSV(results).utf8).write(to: folder.appendingPathComponent("results.csv"), options: .atomic)
            if !results.catalogs.isEmpty {
                try Data(catalogCSV(results).utf8).write(to: folder.appendingPathComponent("catalog.csv"), options: .atomic)
            }
            try Data(identifiedFigure(results).utf8).write(to: folder.appendingPathComponent("identified.svg"), options: .atomic)
            let summary = summaryMarkdown(results) { "matrices/\($0.algorithm)/\($0.test).md" }
            try Data(summary.utf8).write(to: folder.appendingPathComponent("summary.md"), options: .atomic)
            try RunPage.write(results, summary: summary, to: folder)
        }
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
