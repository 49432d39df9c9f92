import Fingerprinting
import Evaluation
import Foundation
import SuiteEvaluation

/// summary.md: one table of algorithms × tests (identified, mean diagonal, margin), then the same per
/// source family, the thesis's own figures beside ours, and what was skipped or failed.
public func summaryMarkdown(_ results: RunResults, matrixLink: (SimilarityMatrix) -> String) -> String {
    var out = "# FingerprintBench summary\n\n"
    out += "fpbench \(results.tool.version) · dataset `\(results.dataset.name)` (manifest SHA-256 `\(results.dataset.manifestSHA256.prefix(16))…`) · "
    out += "seed \(results.seed) · \(results.references.count) references · algorithms: \(results.algorithms.map(\.identifier).joined(separator: ", "))\n\n"
    out += "Each cell: identified n/N (row maximum on the own source) · mean diagonal score · mean margin "
    out += "(own score − best other score, in points). Matrices are linked from each cell.\n\n"
    out += table(results, families: nil, matrixLink: matrixLink)
    out += intervals(results)
    out += pairDifficulty(results)

    let families = Array(Set(results.dataset.sources.map(\.family))).sorted()
    if families.count > 1 {
        for family in families {
            let count = results.dataset.sources.filter { $0.family == family }.count
            out += "\n## Family `\(family)` (\(count) source\(count == 1 ? "" : "s"))\n\n"
            out += table(results, families: [family], matrixLink: matrixLink)
        }
    }

    out += catalogSearch(results)
    out += haitsmaAndThesis(results)
    out += "\n## Figures\n\nA heatmap of every similarity matrix (rows: queries, columns: references, own source outlined):\n\n"
    for algorithm in results.algorithms.map(\.identifier) {
        let links = results.matrices.filter { $0.algorithm == algorithm }
            .map { "[\($0.test)](\(matrixLink($0).replacingOccurrences(of: ".md", with: ".svg")))" }
        out += "- \(algorithm): " + links.joined(separator: " · ") + "\n"
    }

    if let borrowed = results.dataset.borrowed { out += "\n" + borrowedSection(borrowed, users: "tests") }
    if !results.skipped.isEmpty {
        out += "\n## Skipped\n\n" + results.skipped.map { "- \($0.item): \($0.reason)\n" }.joined()
    }
    if !results.failures.isEmpty {
        out += "\n## Failed\n\n" + results.failures.map { "- \($0.item): \($0.reason)\n" }.joined()
    }
    out += "\nEvery parameter of every algorithm, with its source, and every degradation with its seed: `results.json`.\n"
    return out
}

/// The catalog search: each algorithm's own index and "no match" threshold answering every test's queries.
func catalogSearch(_ results: RunResults) -> String {
    guard let first = results.catalogs.first else { return "" }
    var out = ""
    out += "\n## Catalog search\n\n\(first.references) recordings (\(first.references - first.distractors) references + \(first.distractors) distractors), "
    out += "each algorithm's own index and \"no match\" threshold. Each cell: right source first / queries [95 % Wilson interval] · wrong first (a false positive) · no match. Every answer: catalog.csv.\n\n"
    let tests = results.tests.map(\.definition.id)
    out += "| algorithm | " + tests.map(results.header).joined(separator: " | ") + " | MiB per hour |\n|---|" + String(repeating: "---|", count: tests.count) + "---:|\n"
    for algorithm in results.algorithms.map(\.identifier) {
        let rows = results.catalogs.filter { $0.algorithm == algorithm }
        let cells = tests.map { test in
            rows.first { $0.test == test }.map { r in
                let rate = Rate(r.correct, of: r.queries)
                return String(format: "%d/%d [%.0f-%.0f] · %d · %d", r.correct, r.queries, 100 * rate.low, 100 * rate.high, r.wrong, r.noMatch)
            } ?? "—"
        }
        out += "| \(algorithm) | " + cells.joined(separator: " | ") + " | \(rows.first.map { String(format: "%.2f", $0.mebibytesPerHour) } ?? "—") |\n"
    }
    out += results.leftOutNote
    return out
}

/// Haitsma's five parameters, each pointed at its figure, and the thesis's own figures beside ours.
func haitsmaAndThesis(_ results: RunResults) -> String {
    var out = ""
    out += "\n## Haitsma's five parameters\n\n"
    out += "Robustness: tests 3 and 4 above, and `fpbench sweep noise`. Reliability: test 2 and the margins. "
    out += "Granularity: `fpbench sweep length`. Scalability: the catalog search above (memory per hour; `fpbench identify` for your own catalogs). "
    out += "Fingerprint size, per second of reference audio:\n\n| algorithm | bytes per second |\n|---|---:|\n"
    for algorithm in results.algorithms {
        out += "| \(algorithm.identifier) | \(algorithm.bytesPerSecond.map { String(format: "%.1f", $0) } ?? "—") |\n"
    }

    guard results.algorithm("afa-thesis") != nil else { return out }  // nothing to set beside the thesis
    out += "\n## Beside the thesis (Brandner 2013, AFA)\n\n"
    out += "| test | thesis | afa-thesis here |\n|---|---|---|\n"
    let thesis = [("test1-cropping", "every source identified, 92-99 %"), ("test1-image-grid", "every source identified, 92-99 %"),
                  ("test2-recordings", "about 50 %, one source identified"), ("test3-noise-3.16", "mean about 56.6 %"),
                  ("test4-playback", "49-54 %, two sources identified")]
    for (test, figure) in thesis {
        guard let m = results.matrix(algorithm: "afa-thesis", test: test) else { continue }
        let s = m.statistics
        out += "| \(test) | \(figure) | \(s.identified)/\(s.count) identified, mean diagonal \(percent(s.meanDiagonal)) % |\n"
    }
    return out
}

private func table(_ results: RunResults, families: [String]?, matrixLink: (SimilarityMatrix) -> String) -> String {
    let tests = results.tests.map(\.definition.id)
    var out = "| algorithm | " + tests.map(results.header).joined(separator: " | ") + " |\n|---|" + String(repeating: "---|", count: tests.count) + "\n"
    for algorithm in results.algorithms.map(\.identifier) {
        let cells = tests.map { test -> String in
            guard let m = results.matrix(algorithm: algorithm, test: test) else { return "—" }
            let rows = m.rows.indices.filter { families?.contains(results.family(of: m.rows[$0])) ?? true }
            guard !rows.isEmpty else { return "—" }
            let s = MatrixStatistics(m, rows: rows)
            return "[\(s.identified)/\(s.count) · \(percent(s.meanDiagonal)) % · \(percent(s.meanMargin))](\(matrixLink(m)))"
        }
        out += "| \(algorithm) | " + cells.joined(separator: " | ") + " |\n"
    }
    return out + results.leftOutNote
}

/// Identified and matched per algorithm and test, each with its 95 % Wilson interval, the mean
/// diagonal score with its seeded bootstrap interval, and the chance of identifying a source by luck.
func intervals(_ results: RunResults) -> String {
    let chance = results.references.isEmpty ? 0 : 1 / Double(results.references.count)
    var out = "\n## Identified and matched, with 95 % intervals\n\n"
    out += "n = \(results.draws) quer\(results.draws == 1 ? "y" : "ies") per source and test. Identified: the own source ranks first in the row. "
    out += "Matched: the own source's comparison passes the algorithm's documented threshold (what a catalog would answer). "
    out += "n/N [95 % Wilson interval]; mean: the mean own-source score [95 % bootstrap interval, 2,000 seeded resamples]. "
    out += String(format: "Chance of identifying by luck with %d references: %.1f %% (the last row). ", results.references.count, 100 * chance)
    out += "Figure: [identified.svg](identified.svg).\n\n"
    return out + identificationTable(results).markdown + results.leftOutNote
}

/// Identified (and matched) per algorithm and test with their intervals, and the chance row: the model
/// of summary.md's table and of its LaTeX, where a cell is the identified count with its interval below.
func identificationTable(_ results: RunResults) -> Table {
    let tests = results.tests.map(\.definition.id)
    let chance = results.references.isEmpty ? 0 : 1 / Double(results.references.count)
    func cell(_ k: Int, _ n: Int) -> String {
        let r = Rate(k, of: n)
        return String(format: "%d/%d [%.0f-%.0f]", k, n, 100 * r.low, 100 * r.high)
    }
    let rows = results.algorithms.map { info -> [Table.Cell] in
        let algorithm = info.identifier
        return [Table.Cell(markdown: algorithm, latex: LaTeX.escaped(algorithm), cites: Citation.cited(in: info.profile))] + tests.map { test -> Table.Cell in
            guard let m = results.matrix(algorithm: algorithm, test: test), !m.rows.isEmpty else { return .missing }
            let rows = Array(m.rows.indices), n = rows.count, s = m.statistics, identified = rows.filter(m.isIdentified).count
            var text = cell(identified, n)
            if m.matched != nil { text += " · matched " + cell(rows.filter(m.isMatched).count, n) }
            if let mean = MeanInterval(s.diagonals, seed: derivedSeed(results.seed, "bootstrap", algorithm, test)) {
                text += String(format: " · mean %.1f %% [%.1f-%.1f]", 100 * mean.mean, 100 * mean.low, 100 * mean.high)
            }
            let rate = Rate(identified, of: n)
            return Table.Cell(markdown: text, latex: "\(identified)/\(n)", below: String(format: "%.0f--%.0f", 100 * rate.low, 100 * rate.high), rate: rate)
        }
    }
    let chanceRow = [Table.Cell.text("chance")] + tests.map { _ in Table.Cell.text(String(format: "%.1f %%", 100 * chance)) }
    return Table(columns: [Table.Column("algorithm")] + tests.map { Table.Column(results.header($0), latex: Table.heading(.text(results.header($0)))) },
                 rows: rows + [chanceRow])

}

/// Each test-2 pair's similarity by the fixed yardstick, a column per test, the mean last.
func pairDifficulty(_ results: RunResults) -> String {
    guard let pairs = results.pairs, !pairs.isEmpty else { return "" }
    let tests = results.tests.map(\.definition.id).filter { test in pairs.contains { $0.test == test } }
    var out = "\n## How alike the pairs of test 2 are\n\n"
    out += "Yardstick, the same whatever algorithms ran: \(PairYardstick.name). 100 % is the same sound; "
    out += "unrelated music scores about 50 %. Lower is a harder pair.\n\n"
    out += "| source | family | " + tests.joined(separator: " | ") + " |\n|---|---|" + String(repeating: "---:|", count: tests.count) + "\n"
    for source in results.dataset.sources where pairs.contains(where: { $0.source == source.id }) {
        let cells = tests.map { test in pairs.first { $0.test == test && $0.source == source.id }.map { percent($0.score) } ?? "—" }
        out += "| \(source.id) | \(source.family) | " + cells.joined(separator: " | ") + " |\n"
    }
    let means = tests.map { test -> String in
        let scores = pairs.filter { $0.test == test }.map(\.score)
        return scores.isEmpty ? "—" : percent(scores.reduce(0, +) / Double(scores.count))
    }
    return out + "| mean | | " + means.joined(separator: " | ") + " |\n"
}

extension RunResults {
    /// A test's id as table headers show it: marked † when it ran without some of its stages.
    func header(_ test: String) -> String { self.test(test)?.stagesLeftOut == nil ? test : test + " †" }

    /// What a † means, under each table that can show one (empty when no test is marked).
    var leftOutNote: String {
        let marked = tests.filter { $0.stagesLeftOut != nil }
        guard !marked.isEmpty else { return "" }
        return "\n† " + marked.map { "\($0.definition.id) ran without the stages that use \($0.stagesLeftOut!.map { "'\($0)'" }.joined(separator: ", "))" }
            .joined(separator: "; ") + ": not in the dataset (--missing-recordings leave-out).\n"
    }

    /// "algorithm · test title", with † and what was left out when the test ran without some of its stages.
    func title(_ m: SimilarityMatrix) -> String {
        let record = test(m.test)
        let leftOut = record?.stagesLeftOut.map { " † (without the stages that use \($0.joined(separator: ", ")): not in the dataset)" } ?? ""
        return "\(m.algorithm) · \(record?.definition.title ?? m.test)" + leftOut
    }
}

/// "## Recordings from the project's set": what a run borrowed (`MissingRecordingPolicy.borrow`), with checksums.
func borrowedSection(_ borrowed: [BorrowedRecording], users: String) -> String {
    "## Recordings from the project's set\n\nThe dataset has no " + borrowed.map { "`\($0.id)`" }.joined(separator: ", ")
        + "; the \(users) that need them used the project's own: "
        + borrowed.map { "\($0.id) = \($0.dataset)/\($0.file) (SHA-256 \($0.sha256.prefix(12))…)" }.joined(separator: "; ") + ".\n\n"
}
