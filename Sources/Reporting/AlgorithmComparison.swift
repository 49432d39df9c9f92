import Evaluation
import Foundation

/// Two algorithms side by side on the same run: per test, identified / mean diagonal / margin for each
/// and the deltas, then the sources that went from miss to hit and from hit to miss.
public func algorithmComparisonMarkdown(_ results: RunResults, baseline: String, candidate: String) -> String {
    var out = "# \(candidate) against \(baseline)\n\n"
    out += "Dataset `\(results.dataset.name)`, seed \(results.seed). Δ = candidate − baseline.\n\n"
    out += "| test | identified (\(baseline)) | identified (\(candidate)) | Δ | mean diagonal (\(baseline)) | mean diagonal (\(candidate)) | Δ points | margin Δ points |\n"
    out += "|---|---:|---:|---:|---:|---:|---:|---:|\n"
    var changes = ""
    for test in results.tests.map(\.definition.id) {
        guard let b = results.matrix(algorithm: baseline, test: test), let c = results.matrix(algorithm: candidate, test: test) else { continue }
        let sb = b.statistics, sc = c.statistics
        func delta(_ x: Double?, _ y: Double?) -> String { x.flatMap { x in y.map { String(format: "%+.1f", 100 * ($0 - x)) } } ?? "" }
        out += "| \(test) | \(sb.identified)/\(sb.count) | \(sc.identified)/\(sc.count) | \(String(format: "%+d", sc.identified - sb.identified)) | "
        out += "\(percent(sb.meanDiagonal)) | \(percent(sc.meanDiagonal)) | \(delta(sb.meanDiagonal, sc.meanDiagonal)) | \(delta(sb.meanMargin, sc.meanMargin)) |\n"
        let gained = b.rows.indices.filter { !b.isIdentified($0) && c.isIdentified($0) }.map { b.rows[$0] }
        let lost = b.rows.indices.filter { b.isIdentified($0) && !c.isIdentified($0) }.map { b.rows[$0] }
        if !gained.isEmpty || !lost.isEmpty {
            changes += "- \(test): miss → hit: \(gained.isEmpty ? "none" : gained.joined(separator: ", ")); "
            changes += "hit → miss: \(lost.isEmpty ? "none" : lost.joined(separator: ", "))\n"
        }
    }
    out += "\n## Sources that changed\n\n" + (changes.isEmpty ? "None: both identify the same sources in every test.\n" : changes)
    return out
}
