import BenchmarkEvaluation
import Evaluation
import Fingerprinting
import Foundation
import Sweeps

/// The operating points' part of a benchmark folder: operating.csv (tidy: one row per point, condition and
/// length), a section of summary.md, and per condition and length two figures, accuracy against stored
/// MiB per hour and against query CPU (log scales), one line per algorithm or system, the front marked.
enum OperatingReport {
    /// The index budgets the summary names the best point within, in MiB per hour.
    static let budgets = [1.0, 4.0, 16.0]

    static func files(_ o: OperatingPoints) -> [(name: String, text: String)] {
        var files = [("operating.csv", csv(o))]
        for (length, condition) in cells(o) {
            let cell = o.points.filter { $0.length == length && $0.condition == condition }
            let title = "\(condition), \(QueryLength(length).spoken) queries"
            files.append((figureName("size", length, condition), chart(cell, names: names(o), title: "Correct top-1 against index size: \(title)",
                                                                      xLabel: "stored per hour of catalog (MiB, log scale)", x: { $0.mebibytesPerHour }, front: \.onSizeFront)))
            files.append((figureName("cpu", length, condition), chart(cell, names: names(o), title: "Correct top-1 against query CPU: \(title)",
                                                                     xLabel: "CPU per query (ms, log scale)", x: { $0.queryCPUMilliseconds }, front: \.onCPUFront)))
        }
        return files
    }

    static func figureName(_ axis: String, _ length: Double, _ condition: String) -> String {
        "operating-\(axis)-\(QueryLength(length).tag)-\(condition).svg"
    }

    static func cells(_ o: OperatingPoints) -> [(Double, String)] { SweepReport.cells(o.points, length: \.length, condition: \.condition) }

    static func names(_ o: OperatingPoints) -> [String] { SweepReport.orderedUnique(o.points.map(\.name)) }

    static func csv(_ o: OperatingPoints) -> String {
        let f = { (x: Double?) in x.map { String(format: "%.4g", $0) } ?? "" }
        return CSV.file(["name", "kind", "parameter", "value", "identifier", "length_s", "condition", "correct", "total", "rate", "interval_low", "interval_high",
                         "stored_mib_per_hour", "indexing_cpu_s_per_hour", "query_cpu_ms", "size_front", "cpu_front"],
                        o.points.map { p in
                            [p.name, p.outsideSystem ? "outside system" : "algorithm", p.parameter, p.value, p.identifier, String(format: "%g", p.length), p.condition,
                             String(p.correct.successes), String(p.correct.total), String(format: "%.4f", p.correct.value),
                             String(format: "%.4f", p.correct.low), String(format: "%.4f", p.correct.high),
                             f(p.mebibytesPerHour), f(p.indexingCPUSecondsPerHour), f(p.queryCPUMilliseconds), p.onSizeFront ? "1" : "0", p.onCPUFront ? "1" : "0"]
                        })
    }

    /// The section of summary.md: the best point within each budget, then every point per condition and length.
    static func summary(_ o: OperatingPoints) -> String {
        let cells = cells(o)
        var s = "## Operating points\n\nEach algorithm and system at several settings of one parameter, every point calibrated to its own threshold on the same negatives. "
        s += "**Stored per hour**: an algorithm's postings and the fingerprints kept beside them (both in memory when it searches); a system's index folder on disk. "
        s += "**Query CPU**: an algorithm's query fingerprinting and search (medians at that length, one thread, the query already decoded); a system's whole processes "
        s += "over every query it was asked (decoding its WAV, start-up shared by a batch), so the two are not the same accounting: a system pays for reading and starting. "
        s += "**Indexing CPU**: an algorithm's fingerprinting (decoding excluded), a system's whole indexing process. ◆ marks the Pareto front: no other point is as accurate "
        s += "or more at equal or lower cost. Data: operating.csv.\n\n"
        s += "### The most accurate point within an index budget\n\n" + budgetTable(o).markdown
        for (length, condition) in cells {
            s += "\n### \(condition), \(QueryLength(length).spoken) queries\n\n" + pointsTable(o, length: length, condition: condition).markdown
            s += "\n![size](\(figureName("size", length, condition)))\n\n![cpu](\(figureName("cpu", length, condition)))\n"
        }
        return s
    }

    /// The most accurate point within each budget (rows) for each condition and length (columns).
    static func budgetTable(_ o: OperatingPoints, cites: (String) -> [Citation] = { _ in [] }) -> Table {
        let cells = cells(o)
        let columns = [Table.Column("stored per hour")] + cells.map { Table.Column("\($0.1), \(QueryLength($0.0).spoken)") }
        return Table(columns: columns, rows: budgets.map { budget in
            [Table.Cell(markdown: "≤ \(String(format: "%g", budget)) MiB", latex: "$\\le$ \(String(format: "%g", budget))\\,MiB")] + cells.map { cell in
                guard let p = o.best(within: budget, length: cell.0, condition: cell.1) else { return .text("none") }
                let pct = BenchmarkReport.percent(p.correct)
                return Table.Cell(markdown: "\(p.identifier) \(pct) %", latex: LaTeX.escaped(p.identifier) + " \(pct)\\,\\%", cites: cites(p.identifier))
            }
        })
    }

    /// Every point of one condition and length, by stored size: its correct rate with its interval and its costs.
    static func pointsTable(_ o: OperatingPoints, length: Double, condition: String, cites: (String) -> [Citation] = { _ in [] }) -> Table {
        let g = { (x: Double?, format: String) in x.map { Table.Cell.text(String(format: format, $0)) } ?? .missing }
        let columns = ["point", "correct top-1 % [95 %]", "stored (MiB/h)", "indexing (CPU s/h)", "query CPU (ms)", "front: size · CPU"].map { Table.Column($0) }
        let points = o.points.filter { $0.length == length && $0.condition == condition }.sorted { $0.mebibytesPerHour < $1.mebibytesPerHour }
        return Table(columns: columns, rows: points.map { p in
            let front = [p.onSizeFront ? "size" : nil, p.onCPUFront ? "CPU" : nil].compactMap { $0 }.joined(separator: ", ")
            return [Table.Cell(markdown: p.identifier, latex: LaTeX.escaped(p.identifier), cites: cites(p.identifier)), BenchmarkReport.rateCell(p.correct),
                    g(p.mebibytesPerHour, "%.2f"), g(p.indexingCPUSecondsPerHour, "%.1f"), g(p.queryCPUMilliseconds, "%.2f"),
                    Table.Cell(markdown: "\(p.onSizeFront ? "◆" : "") · \(p.onCPUFront ? "◆" : "")", latex: front)]
        })
    }

    /// The operating points' LaTeX: the budget table, each condition and length's points, and their figures.
    static func latex(_ o: OperatingPoints, cites: (String) -> [Citation], into tables: inout LaTeXTables) {
        let budget = budgetTable(o, cites: cites)
        tables.add("operating-budgets", budget.latex(caption: "The most accurate operating point (correct top-1 at its calibrated threshold, \\%) whose index "
                                                     + "stores at most the budget per hour of catalog, for each condition and query length.", label: "tab:operating-budgets"),
                   citing: budget.rows.flatMap { $0.flatMap(\.cites) })
        for (length, condition) in cells(o) {
            let name = "operating-\(QueryLength(length).tag)-" + condition, table = pointsTable(o, length: length, condition: condition, cites: cites)
            let cell = LaTeX.escaped("\(condition), \(QueryLength(length).spoken) queries")
            let caption = cell + ": each operating point's correct top-1 (\\%) at its own calibrated "
                + "threshold, 95\\,\\% Wilson interval below (bold: the best and every rate whose interval reaches it); stored MiB per hour of catalog; indexing CPU s "
                + "per hour; query CPU ms (an algorithm's in-process medians, a system's whole processes); on the Pareto front of size or CPU."
            tables.add(name, table.latex(caption: caption, label: "tab:\(name)"), citing: table.rows.flatMap { $0[0].cites })
            for axis in ["size", "cpu"] {
                tables.add(figure: String(figureName(axis, length, condition).dropLast(4)),
                           caption: cell
                               + ": correct top-1 against \(axis == "size" ? "index size" : "query CPU") (log scale), one line per algorithm or system; the front dashed.")
            }
        }
    }

    /// Correct % against a cost on a log scale: one line per name through its points (by cost), the front
    /// as a dashed step line with its points ringed.
    static func chart(_ cell: [OperatingPoints.Point], names: [String], title: String, xLabel: String,
                      x: (OperatingPoints.Point) -> Double?, front: KeyPath<OperatingPoints.Point, Bool>) -> String {
        let width = 800.0, height = 460.0, left = 70.0, right = 270.0, top = 40.0, bottom = 60.0
        let placed = cell.compactMap { p in x(p).flatMap { $0 > 0 ? (p, $0) : nil } }
        let logs = placed.map { log10($0.1) }
        let low = (logs.min() ?? 0).rounded(.down), high = max((logs.max() ?? 1).rounded(.up), low + 1)
        func px(_ v: Double) -> Double { left + (log10(v) - low) / (high - low) * (width - left - right) }
        func py(_ y: Double) -> Double { height - bottom - y / 100 * (height - top - bottom) }
        let n = Figures.number
        var svg = """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" font-family="sans-serif" font-size="12">
        <rect width="100%" height="100%" fill="white"/>
        <text x="\(n((left + width - right) / 2))" y="22" text-anchor="middle" font-size="14">\(Figures.escape(title))</text>

        """
        for tick in 0...5 {
            let y = 20.0 * Double(tick)
            svg += "<line x1=\"\(n(left))\" y1=\"\(n(py(y)))\" x2=\"\(n(width - right))\" y2=\"\(n(py(y)))\" stroke=\"#ddd\"/>\n"
            svg += "<text x=\"\(n(left - 6))\" y=\"\(n(py(y) + 4))\" text-anchor=\"end\">\(Int(y))</text>\n"
        }
        for decade in Int(low)...Int(high) {
            for m in [1.0, 2, 5] where Double(decade) + log10(m) <= high {
                let v = m * pow(10, Double(decade))
                svg += "<line x1=\"\(n(px(v)))\" y1=\"\(n(top))\" x2=\"\(n(px(v)))\" y2=\"\(n(height - bottom))\" stroke=\"\(m == 1 ? "#ccc" : "#eee")\"/>\n"
                svg += "<text x=\"\(n(px(v)))\" y=\"\(n(height - bottom + 16))\" text-anchor=\"middle\">\(String(format: "%g", v))</text>\n"
            }
        }
        svg += "<line x1=\"\(n(left))\" y1=\"\(n(height - bottom))\" x2=\"\(n(width - right))\" y2=\"\(n(height - bottom))\" stroke=\"black\"/>\n"
        svg += "<line x1=\"\(n(left))\" y1=\"\(n(top))\" x2=\"\(n(left))\" y2=\"\(n(height - bottom))\" stroke=\"black\"/>\n"
        svg += "<text x=\"\(n((left + width - right) / 2))\" y=\"\(n(height - 18))\" text-anchor=\"middle\">\(Figures.escape(xLabel))</text>\n"
        svg += "<text transform=\"translate(18 \(n((top + height - bottom) / 2))) rotate(-90)\" text-anchor=\"middle\">correct top-1 at the calibrated threshold (%)</text>\n"
        let frontPoints = placed.filter { $0.0[keyPath: front] }.sorted { $0.1 < $1.1 }
        var step: [String] = []
        for (i, (p, v)) in frontPoints.enumerated() {
            if i > 0 { step.append("\(n(px(v))),\(n(py(100 * frontPoints[i - 1].0.correct.value)))") }
            step.append("\(n(px(v))),\(n(py(100 * p.correct.value)))")
        }
        svg += "<polyline class=\"front\" fill=\"none\" stroke=\"#222\" stroke-width=\"1\" stroke-dasharray=\"5 4\" points=\"\(step.joined(separator: " "))\"/>\n"
        for (i, name) in names.enumerated() {
            let colour = Figures.palette[i % Figures.palette.count]
            let mine = placed.filter { $0.0.name == name }.sorted { $0.1 < $1.1 }
            let ly = top + 10 + Double(i) * 20
            svg += "<line x1=\"\(n(width - right + 15))\" y1=\"\(n(ly))\" x2=\"\(n(width - right + 40))\" y2=\"\(n(ly))\" stroke=\"\(colour)\" stroke-width=\"2\"/>\n"
            svg += "<text x=\"\(n(width - right + 46))\" y=\"\(n(ly + 4))\">\(Figures.escape(name + (mine.first.map { " (\($0.0.parameter))" } ?? "")))</text>\n"
            guard !mine.isEmpty else { continue }
            svg += "<g class=\"series\" data-name=\"\(Figures.escape(name))\">\n"
            svg += "<polyline fill=\"none\" stroke=\"\(colour)\" stroke-width=\"2\" points=\"\(mine.map { "\(n(px($0.1))),\(n(py(100 * $0.0.correct.value)))" }.joined(separator: " "))\"/>\n"
            for (p, v) in mine {
                svg += "<circle cx=\"\(n(px(v)))\" cy=\"\(n(py(100 * p.correct.value)))\" r=\"3.5\" fill=\"\(colour)\"><title>\(Figures.escape(p.identifier))</title></circle>\n"
                if p[keyPath: front] { svg += "<circle cx=\"\(n(px(v)))\" cy=\"\(n(py(100 * p.correct.value)))\" r=\"7\" fill=\"none\" stroke=\"#222\"/>\n" }
                svg += "<text x=\"\(n(px(v) + 6))\" y=\"\(n(py(100 * p.correct.value) - 6))\" font-size=\"10\" fill=\"\(colour)\">\(Figures.escape(p.value))</text>\n"
            }
            svg += "</g>\n"
        }
        let ly = top + 10 + Double(names.count) * 20
        svg += "<line x1=\"\(n(width - right + 15))\" y1=\"\(n(ly))\" x2=\"\(n(width - right + 40))\" y2=\"\(n(ly))\" stroke=\"#222\" stroke-dasharray=\"5 4\"/>\n"
        svg += "<text x=\"\(n(width - right + 46))\" y=\"\(n(ly + 4))\">Pareto front (ringed)</text>\n"
        return svg + "</svg>\n"
    }
}
