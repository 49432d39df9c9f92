import BenchmarkEvaluation
import Fingerprinting
import Foundation

/// `fpbench scale`'s report: scale.csv (one row per algorithm and size) and scale.md (the table, under
/// the command that reproduces it), written into a locked output folder.
public enum ScaleReport {
    /// Writes both files and returns the Markdown.
    @discardableResult
    public static func write(_ points: [SyntheticScale.Point], length: Double, slices: Int, command: String, version: String, to folder: URL) throws -> String {
        let header = ["algorithm", "condition", "hours (synthetic past the real catalog)", "synthetic tracks", "index MiB", "prints MiB", "build s", "peak resident MiB",
                      "search ms median", "search ms p90", "positives", "correct", "threshold", "held-out negatives", "held-out false positives",
                      "false positives at the real catalog's threshold"]
        let rows = points.map { p in
            [p.algorithm, p.condition, String(format: "%.1f", p.hours), "\(p.syntheticTracks)", mib(p.indexBytes), mib(p.printBytes), String(format: "%.1f", p.buildSeconds),
             mib(p.peakResidentBytes), String(format: "%.2f", p.searchMilliseconds), String(format: "%.2f", p.searchMilliseconds90), "\(p.positives)",
             "\(p.correct)", String(format: "%.4f", p.threshold), "\(p.heldOutNegatives)", "\(p.heldOutFalsePositives)", "\(p.falsePositivesAtRealThreshold)"]
        }
        let degraded = points.contains { $0.condition != BenchmarkCondition.cleanID }
        let md = "# Synthetic scale test (\(QueryLength(length).spoken) \(degraded ? "clean and degraded" : "clean") queries; catalog grown with SYNTHETIC tracks"
            + (slices > 1 ? "; built and searched as \(slices) slices: memory of the largest, search time summed" : "") + ")\n\n"
            + "`\(command)` — \(version).\n\n"
            + (degraded ? "A degraded condition's row counts its positives at the threshold the clean negatives calibrate at that size; "
                + "its false-positive columns are the clean row's.\n\n" : "")
            + (points.contains { !$0.syntheticPrintsHeld } ? "A vector algorithm's synthetic tracks are vectors drawn to the real segments' statistics, "
                + "not held: drawn again when a candidate is verified (in its search time), so its prints column is the real tracks' alone; "
                + "past \(VectorSearch.exactLimit) segments its index is FAISS's (\(VectorSearch.automatic(count: VectorSearch.exactLimit + 1, dimension: 128)) for 128 floats).\n\n" : "")
            + table(points).markdown
        var tables = LaTeXTables()
        tables.add("scale", table(points).latex(caption: String(format: "Scale with %g\\,s queries", length) + (degraded ? ", clean and degraded" : "")
            + ": the catalog grown with synthetic tracks past the real one" + (slices > 1 ? ", built and searched as \(slices) slices" : "")
            + "; index, fingerprints and peak memory in MiB, search CPU per query in ms, correct answers, and held-out false positives at the "
            + "threshold calibrated at that size and at the real catalog's.", label: "tab:scale"), citing: [])
        try OutputFolder.write(folder) { held in
            try held.put(CSV.file(header, rows), "scale.csv")
            try held.put(md, "scale.md")
            try tables.write(into: held)
        }
        return md
    }

    /// Bytes as whole MiB.
    static func mib(_ bytes: Int) -> String { String(format: "%.0f", Double(bytes) / 1_048_576) }

    /// One row per algorithm, condition and size.
    static func table(_ points: [SyntheticScale.Point]) -> Table {
        let columns = [Table.Column("algorithm"), Table.Column("condition")]
            + ["hours", "index MiB", "prints MiB", "peak MiB", "search ms (median / p90)", "correct", "held-out false positives", "at the real catalog's threshold"]
                .map { Table.Column($0, numeric: true) }
        return Table(columns: columns, rows: points.map { p in
            [p.algorithm, p.condition, String(format: "%.0f", p.hours), mib(p.indexBytes), mib(p.printBytes), mib(p.peakResidentBytes),
             String(format: "%.1f / %.1f", p.searchMilliseconds, p.searchMilliseconds90), "\(p.correct)/\(p.positives)",
             "\(p.heldOutFalsePositives)/\(p.heldOutNegatives)", "\(p.falsePositivesAtRealThreshold)/\(p.heldOutNegatives)"].map(Table.Cell.text)
        })
    }
}
