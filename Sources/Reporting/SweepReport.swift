import Evaluation
import Foundation
import SuiteEvaluation
import Sweeps

/// A sweep's report: sweep.csv, sweep.md (with the breaking points and their grid evidence),
/// accuracy.svg and diagonal.svg, sweep.json, report.html. Written atomically.
public enum SweepReport {

    public static func write(_ record: SweepRecord, to folder: URL) throws {
        try OutputFolder.write(folder) { held in
            try held.put(csv(record), "sweep.csv")
            let algorithms = orderedUnique(record.points.map(\.algorithm))
            func series(_ value: (SweepPoint) -> Double?) -> [(name: String, points: [(x: Double, y: Double)])] {
                algorithms.map { a in (a, record.points.filter { $0.algorithm == a }.compactMap { p in value(p).map { (p.level, 100 * $0) } }) }
            }
            try held.put(Figures.lineChart(title: "\(record.rate.prefix(1).uppercased() + record.rate.dropFirst()), \(record.dataset) dataset, seed \(record.seed)",
                                      xLabel: record.axis, yLabel: "\(record.rate) (%)", chance: record.chance.map { 100 * $0 },
                                      series: series { $0.accuracy }), "accuracy.svg")
            if record.points.contains(where: { $0.meanDiagonal != nil }) {
                try held.put(Figures.lineChart(title: "Mean score of the own source", xLabel: record.axis,
                                          yLabel: "mean diagonal score (%)", series: series(\.meanDiagonal)), "diagonal.svg")
            }
            let text = markdown(record)
            try held.put(text, "sweep.md")
            try latexTables(record, diagonal: record.points.contains { $0.meanDiagonal != nil }).write(into: held)
            try SweepPage.write(record, markdown: text, to: folder)
            try held.put(record.sealed().encoded(), "sweep.json")
        }
    }

    /// sweep.csv: one row per algorithm and level.
    static func csv(_ record: SweepRecord) -> String {
        CSV.file(["algorithm", "level", "identified", "count", "top1_accuracy_percent", "wilson_low_percent", "wilson_high_percent",
                  "mean_diagonal_percent", "mean_margin_points"], record.points.map { p in
            let r = Rate(p.identified, of: p.count)
            return [p.algorithm, String(format: "%g", p.level), "\(p.identified)", "\(p.count)", "\(percent(p.accuracy))", "\(percent(r.low))",
                    "\(percent(r.high))", "\(percent(p.meanDiagonal))", "\(percent(p.meanMargin))"]
        })
    }

    /// sweep.md: the rate per level with its interval, then the breaking points.
    static func markdown(_ record: SweepRecord) -> String {
        var md = "# Sweep: \(record.axis)\n\nfpbench \(record.tool) · dataset `\(record.dataset)` · seed \(record.seed)\n\n"
        md += "![\(record.rate)](accuracy.svg)\n\n## \(record.rate.prefix(1).uppercased() + record.rate.dropFirst()) (%) per level\n\n"
        md += "Each cell: \(record.rate) [95 % Wilson interval]"
        md += (record.chance.map { String(format: "; chance is %.1f %% (the dashed line)", 100 * $0) } ?? "") + ".\n\n"
        md += levelTable(record).markdown
        if record.points.contains(where: { $0.meanDiagonal != nil }) {
            md += "\nMean own-source score and margin: sweep.csv; chart: [diagonal.svg](diagonal.svg).\n"
        }
        md += breakingPoints(record)
        if record.failures > 0 { md += "\n\(record.failures) queries could not be fingerprinted (too short, ...) and count as misses.\n" }
        return md
    }

    /// Where each algorithm's rate first falls below each threshold, with the grid levels on either side.
    static func breakingPoints(_ record: SweepRecord) -> String {
        guard !record.breakingPoints.isEmpty else { return "" }
        let sided = record.breakingPoints.contains { $0.side != nil }
        var md = "\n## Breaking points\n\nWhere the \(record.rate) first falls below the threshold, walking from the easy end"
        md += sided ? " (on each side of the neutral level)" : ""
        md += record.refinement == "bisection" ? "; refined by bisection between the grid levels on either side.\n\n"
            : "; interpolated linearly between the grid levels on either side (± half the grid step).\n\n"
        return md + breakingTable(record).markdown
    }

    /// The rate per algorithm (rows) and level (columns), its interval below in LaTeX.
    static func levelTable(_ record: SweepRecord) -> Table {
        let levels = orderedUnique(record.points.map(\.level)).sorted()
        let rows = orderedUnique(record.points.map(\.algorithm)).map { a -> [Table.Cell] in
            [.text(a)] + levels.map { level in
                record.points.first { $0.algorithm == a && $0.level == level }.map { p in
                    let r = Rate(p.identified, of: p.count)
                    return Table.Cell(markdown: String(format: "%@ [%.0f-%.0f]", percent(p.accuracy), 100 * r.low, 100 * r.high),
                                      latex: percent(p.accuracy), below: String(format: "%.0f--%.0f", 100 * r.low, 100 * r.high), rate: r)
                } ?? .missing
            }
        }
        return Table(columns: [Table.Column("algorithm")] + levels.map { Table.Column(String(format: "%g", $0), numeric: true) }, rows: rows)
    }

    /// Each algorithm's breaking points with the grid levels on either side.
    static func breakingTable(_ record: SweepRecord) -> Table {
        let sided = record.breakingPoints.contains { $0.side != nil }
        let columns = [Table.Column("algorithm")] + (sided ? [Table.Column("side")] : [])
            + [Table.Column("threshold", numeric: true), Table.Column("breaking point", numeric: true), Table.Column("last grid level above"),
               Table.Column("first grid level below"), Table.Column("bisection steps", numeric: true)]
        return Table(columns: columns, rows: record.breakingPoints.map { b in
            let decimals = max(2, Int((-log10(max(b.tolerance / 2, 1e-9))).rounded(.up)))  // enough to show the ± part
            let point = b.level.map { String(format: "%.\(decimals)f ± %.\(decimals)f", $0, b.tolerance / 2) }
                ?? (b.firstBelow == nil ? "never below on the grid" : "below from the first level")
            func evidence(_ p: SweepPoint?) -> String { p.map { String(format: "%g (%@ %%)", $0.level, percent($0.accuracy)) } ?? "—" }
            return ([b.algorithm] + (sided ? [b.side ?? ""] : []) + ["\(percent(b.threshold)) %", point, evidence(b.lastAbove), evidence(b.firstBelow),
                                                                   "\(b.evaluations.count)"]).map(Table.Cell.text)
        })
    }

    /// The sweep's LaTeX: its rate per level, its breaking points and its figures.
    static func latexTables(_ record: SweepRecord, diagonal: Bool) -> LaTeXTables {
        var tables = LaTeXTables()
        let axis = LaTeX.escaped(record.axis), rate = LaTeX.escaped(record.rate)
        let refined = record.refinement == "bisection" ? "refined by bisection" : "interpolated linearly"
        tables.add("levels", levelTable(record).latex(caption: "\(rate.prefix(1).uppercased() + rate.dropFirst()) (\\%) of each algorithm at each level of \(axis) "
            + "(dataset \(LaTeX.escaped(record.dataset)), seed \(record.seed)); 95\\,\\% Wilson interval below. Bold: the level's best and every rate whose interval reaches it.",
            label: "tab:sweep-levels"), citing: [])
        if !record.breakingPoints.isEmpty {
            tables.add("breaking-points", breakingTable(record).latex(caption: "Breaking points along \(axis): where the \(rate) first falls below each threshold, "
                + "walking from the easy end, with the grid levels on either side (\(refined)).",
                label: "tab:sweep-breaking-points"), citing: [])
        }
        tables.add(figure: "accuracy", caption: "\(rate.prefix(1).uppercased() + rate.dropFirst()) against \(axis).")
        if diagonal { tables.add(figure: "diagonal", caption: "Mean score of the own source against \(axis).") }
        return tables
    }

    public static func orderedUnique<T: Hashable>(_ values: [T]) -> [T] {
        var seen = Set<T>()
        return values.filter { seen.insert($0).inserted }
    }

    /// The (query length, condition) cells of `items`, in the order they first appear.
    static func cells<T>(_ items: [T], length: (T) -> Double, condition: (T) -> String) -> [(Double, String)] {
        var seen: [(Double, String)] = []
        for item in items where !seen.contains(where: { $0 == (length(item), condition(item)) }) { seen.append((length(item), condition(item))) }
        return seen
    }
}
