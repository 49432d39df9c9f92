import Evaluation
import Foundation
import SuiteEvaluation

/// Two algorithms side by side on the same run: per test, identified (with 95 % Wilson intervals) / mean
/// diagonal / margin for each and the deltas, McNemar's exact test on the paired outcomes per test and
/// over all tests, then the sources that went from miss to hit and from hit to miss.
public func algorithmComparisonMarkdown(_ results: RunResults, baseline: String, candidate: String) -> String {
    var out = "# \(candidate) against \(baseline)\n\n"
    out += "Dataset `\(results.dataset.name)`, seed \(results.seed). Δ = candidate − baseline. Identified n/N with its 95 % Wilson interval; "
    out += "p: McNemar's exact test on the paired outcomes (the same queries), two-sided; n.s.: not significant at the 5 % level.\n\n"
    out += "| test | identified (\(baseline)) | identified (\(candidate)) | Δ | p | mean diagonal (\(baseline)) | mean diagonal (\(candidate)) | Δ points | margin Δ points |\n"
    out += "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n"
    var changes = ""
    var allGained = 0, allLost = 0
    for test in results.tests.map(\.definition.id) {
        guard let b = results.matrix(algorithm: baseline, test: test), let c = results.matrix(algorithm: candidate, test: test) else { continue }
        let sb = b.statistics, sc = c.statistics
        func delta(_ x: Double?, _ y: Double?) -> String { x.flatMap { x in y.map { String(format: "%+.1f", 100 * ($0 - x)) } } ?? "" }
        let queries = results.queries(of: b)
        func label(_ row: Int) -> String { b.rows[row] + (queries.indices.contains(row) ? queries[row].draw.map { " #\($0 + 1)" } ?? "" : "") }
        let gained = b.rows.indices.filter { !b.isIdentified($0) && c.isIdentified($0) }.map(label)
        let lost = b.rows.indices.filter { b.isIdentified($0) && !c.isIdentified($0) }.map(label)
        allGained += gained.count
        allLost += lost.count
        func rate(_ s: MatrixStatistics) -> String {
            let r = Rate(s.identified, of: s.count)
            return "\(s.identified)/\(s.count) [\(String(format: "%.0f-%.0f", 100 * r.low, 100 * r.high))]"
        }
        out += "| \(results.header(test)) | \(rate(sb)) | \(rate(sc)) | \(String(format: "%+d", sc.identified - sb.identified)) | "
        let p = mcNemarExactP(lost.count, gained.count)
        out += String(format: "%.3g", p) + (p < 0.05 ? "" : " (n.s.)") + " | "
        out += "\(percent(sb.meanDiagonal)) | \(percent(sc.meanDiagonal)) | \(delta(sb.meanDiagonal, sc.meanDiagonal)) | \(delta(sb.meanMargin, sc.meanMargin)) |\n"
        if !gained.isEmpty || !lost.isEmpty {
            changes += "- \(test): miss → hit: \(gained.isEmpty ? "none" : gained.joined(separator: ", ")); "
            changes += "hit → miss: \(lost.isEmpty ? "none" : lost.joined(separator: ", "))\n"
        }
    }
    let p = mcNemarExactP(allLost, allGained)
    out += results.leftOutNote
    out += "\n\(results.draws) quer\(results.draws == 1 ? "y" : "ies") per source and test (`--queries-per-source`)."
    out += String(format: " Over all tests: %d queries went from miss to hit, %d from hit to miss; McNemar's exact p = %.3g", allGained, allLost, p)
    out += p < 0.05 ? ", significant at the 5 % level.\n" : ": not significant at the 5 % level (the difference may be chance).\n"
    out += "\n## Sources that changed\n\n" + (changes.isEmpty ? "None: both identify the same sources in every test.\n" : changes)
    return out
}
