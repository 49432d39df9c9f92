import Evaluation
import Foundation
import SuiteEvaluation

/// Small self-contained SVG figures: readable without the CSV (title, axis labels with units, legend).
public enum Figures {
    static let palette = ["#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d", "#666666"]

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    static func number(_ value: Double) -> String { formatted("%.1f", value) }

    /// A logarithmic x axis from `low` to `high`: an x below `low` (0 included) is drawn at `low`.
    public struct LogarithmicAxis: Sendable {
        public var low: Double, high: Double
    }

    /// A line chart, one series per algorithm; y from 0 to `yMaximum`; x labelled at `xTicks`, or at
    /// every x a series has, linear unless `logarithmic`; `chance`, when given, drawn as a dashed line at
    /// that y; `marked`, one point per series at most, drawn as a ring on it.
    public static func lineChart(title: String, xLabel: String, yLabel: String, yMaximum: Double = 100, xTicks: [Double]? = nil,
                                 logarithmic: LogarithmicAxis? = nil, chance: Double? = nil,
                                 series: [(name: String, points: [(x: Double, y: Double)])], marked: [String: (x: Double, y: Double)] = [:]) -> String {
        let width = 720.0, height = 440.0, left = 70.0, right = 190.0, top = 40.0, bottom = 60.0
        let xs = series.flatMap { $0.points.map(\.x) }
        let xMin = xs.min() ?? 0, xMax = max(xs.max() ?? 1, xMin + 1e-9)
        func px(_ x: Double) -> Double {
            guard let logarithmic else { return left + (x - xMin) / (xMax - xMin) * (width - left - right) }
            let at = log10(min(max(x, logarithmic.low), logarithmic.high) / logarithmic.low) / log10(logarithmic.high / logarithmic.low)
            return left + at * (width - left - right)
        }
        func py(_ y: Double) -> Double { height - bottom - y / yMaximum * (height - top - bottom) }
        var svg = """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" font-family="sans-serif" font-size="12">
        <rect width="100%" height="100%" fill="white"/>
        <text x="\(number(width / 2 - right / 2 + left / 2))" y="22" text-anchor="middle" font-size="15">\(escape(title))</text>

        """
        for tick in 0...5 {
            let y = yMaximum * Double(tick) / 5
            svg += "<line x1=\"\(number(left))\" y1=\"\(number(py(y)))\" x2=\"\(number(width - right))\" y2=\"\(number(py(y)))\" stroke=\"#ddd\"/>\n"
            svg += "<text x=\"\(number(left - 6))\" y=\"\(number(py(y) + 4))\" text-anchor=\"end\">\(String(format: "%g", y))</text>\n"
        }
        for x in xTicks ?? Array(Set(xs)).sorted() {
            svg += "<text x=\"\(number(px(x)))\" y=\"\(number(height - bottom + 16))\" text-anchor=\"middle\">\(String(format: "%g", x))</text>\n"
        }
        svg += "<line x1=\"\(number(left))\" y1=\"\(number(height - bottom))\" x2=\"\(number(width - right))\" y2=\"\(number(height - bottom))\" stroke=\"black\"/>\n"
        svg += "<line x1=\"\(number(left))\" y1=\"\(number(top))\" x2=\"\(number(left))\" y2=\"\(number(height - bottom))\" stroke=\"black\"/>\n"
        svg += "<text x=\"\(number((left + width - right) / 2))\" y=\"\(number(height - 18))\" text-anchor=\"middle\">\(escape(xLabel))</text>\n"
        svg += "<text transform=\"translate(18 \(number((top + height - bottom) / 2))) rotate(-90)\" text-anchor=\"middle\">\(escape(yLabel))</text>\n"
        if let chance { svg += chanceLine(y: py(chance), from: left, to: width - right) }
        for (i, s) in series.enumerated() {
            let colour = palette[i % palette.count]
            let path = s.points.sorted { $0.x < $1.x }.map { "\(number(px($0.x))),\(number(py($0.y)))" }.joined(separator: " ")
            svg += "<g class=\"series\" data-name=\"\(escape(s.name))\">\n"
            svg += "<polyline fill=\"none\" stroke=\"\(colour)\" stroke-width=\"2\" points=\"\(path)\"/>\n"
            for p in s.points { svg += "<circle cx=\"\(number(px(p.x)))\" cy=\"\(number(py(p.y)))\" r=\"3\" fill=\"\(colour)\"/>\n" }
            if let p = marked[s.name] {
                svg += "<circle class=\"marked\" cx=\"\(number(px(p.x)))\" cy=\"\(number(py(p.y)))\" r=\"7\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"2\"/>\n"
            }
            svg += "</g>\n"
            let ly = top + 10 + Double(i) * 20
            svg += "<line x1=\"\(number(width - right + 15))\" y1=\"\(number(ly))\" x2=\"\(number(width - right + 40))\" y2=\"\(number(ly))\" stroke=\"\(colour)\" stroke-width=\"2\"/>\n"
            svg += "<text x=\"\(number(width - right + 46))\" y=\"\(number(ly + 4))\">\(escape(s.name))</text>\n"
        }
        return svg + "</svg>\n"
    }

    static func chanceLine(y: Double, from x1: Double, to x2: Double) -> String {
        "<line x1=\"\(number(x1))\" y1=\"\(number(y))\" x2=\"\(number(x2))\" y2=\"\(number(y))\" stroke=\"#444\" stroke-dasharray=\"6 4\"/>\n"
            + "<text x=\"\(number(x2 - 4))\" y=\"\(number(y - 4))\" text-anchor=\"end\" fill=\"#444\">chance</text>\n"
    }

    /// Rates as grouped bars (a group per test, a bar per algorithm) with their 95 % intervals as
    /// whiskers and the chance level as a dashed line.
    public static func rateBars(title: String, yLabel: String, groups: [String], chance: Double,
                                series: [(name: String, rates: [Rate?])]) -> String {
        let groupWidth = max(90.0, 16.0 * Double(series.count) + 20), left = 70.0, right = 190.0, top = 40.0, bottom = 110.0, height = 440.0
        // Wide enough for the title too (about 8 px a character at 15 px).
        let width = max(left + groupWidth * Double(groups.count) + right, left + 8 * Double(title.count))
        func py(_ y: Double) -> Double { height - bottom - y * (height - top - bottom) }
        let bar = (groupWidth - 20) / Double(max(1, series.count))
        var svg = """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" font-family="sans-serif" font-size="12">
        <rect width="100%" height="100%" fill="white"/>
        <text x="\(number(left))" y="22" font-size="15">\(escape(title))</text>

        """
        for tick in 0...5 {
            let y = Double(tick) / 5
            svg += "<line x1=\"\(number(left))\" y1=\"\(number(py(y)))\" x2=\"\(number(width - right))\" y2=\"\(number(py(y)))\" stroke=\"#ddd\"/>\n"
            svg += "<text x=\"\(number(left - 6))\" y=\"\(number(py(y) + 4))\" text-anchor=\"end\">\(Int(100 * y))</text>\n"
        }
        svg += "<text transform=\"translate(18 \(number((top + height - bottom) / 2))) rotate(-90)\" text-anchor=\"middle\">\(escape(yLabel))</text>\n"
        for (g, group) in groups.enumerated() {
            let x0 = left + groupWidth * Double(g) + 10
            svg += "<text transform=\"translate(\(number(x0 + (groupWidth - 20) / 2)) \(number(height - bottom + 14))) rotate(30)\">\(escape(group))</text>\n"
            for (i, s) in series.enumerated() {
                guard let rate = s.rates[g], rate.total > 0 else { continue }
                let colour = palette[i % palette.count], x = x0 + bar * Double(i), centre = x + bar / 2
                svg += "<rect x=\"\(number(x))\" y=\"\(number(py(rate.value)))\" width=\"\(number(bar - 2))\" height=\"\(number(py(0) - py(rate.value)))\" fill=\"\(colour)\"/>\n"
                svg += "<line x1=\"\(number(centre))\" y1=\"\(number(py(rate.low)))\" x2=\"\(number(centre))\" y2=\"\(number(py(rate.high)))\" stroke=\"black\"/>\n"
            }
        }
        svg += chanceLine(y: py(chance), from: left, to: width - right)
        svg += "<line x1=\"\(number(left))\" y1=\"\(number(py(0)))\" x2=\"\(number(width - right))\" y2=\"\(number(py(0)))\" stroke=\"black\"/>\n"
        for (i, s) in series.enumerated() {
            let ly = top + 10 + Double(i) * 20
            svg += "<rect x=\"\(number(width - right + 15))\" y=\"\(number(ly - 6))\" width=\"20\" height=\"12\" fill=\"\(palette[i % palette.count])\"/>\n"
            svg += "<text x=\"\(number(width - right + 40))\" y=\"\(number(ly + 4))\">\(escape(s.name))</text>\n"
        }
        return svg + "<text x=\"\(number(left))\" y=\"\(number(height - 8))\" fill=\"#444\">whiskers: 95 % Wilson intervals</text>\n</svg>\n"
    }

    /// A similarity matrix as a heatmap: rows = queries, columns = references, darker = higher score,
    /// the own-source cell outlined, each cell labelled with its score in %.
    public static func heatmap(_ m: SimilarityMatrix, title: String) -> String {
        let cell = 34.0, left = 150.0, top = 150.0
        let width = max(480, left + cell * Double(m.columns.count) + 90), height = top + cell * Double(m.rows.count) + 30
        var svg = """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" font-family="sans-serif" font-size="10">
        <rect width="100%" height="100%" fill="white"/>
        <text x="10" y="18" font-size="13">\(escape(title))</text>
        <text x="10" y="34">rows: queries · columns: references · cell: score (%) · outlined: own source · dot: the row's top score</text>

        """
        for (c, name) in m.columns.enumerated() {
            let x = left + cell * (Double(c) + 0.6)
            svg += "<text transform=\"translate(\(number(x)) \(number(top - 6))) rotate(-60)\">\(escape(name))</text>\n"
        }
        // Cells in one group (white borders, centred labels), integer coordinates: a run's page inlines every matrix.
        let size = Int(cell)
        for (r, name) in m.rows.enumerated() {
            let y = Int(top) + size * r
            svg += "<text x=\"\(Int(left) - 6)\" y=\"\(y + size / 2 + 3)\" text-anchor=\"end\">\(escape(name))</text>\n<g stroke=\"white\" text-anchor=\"middle\">\n"
            for c in m.columns.indices {
                let x = Int(left) + size * c
                let score = m.scores[r][c]
                let shade = score.map { Int(255 - 200 * max(0, min(1, $0))) } ?? 240
                let fill = score == nil ? "#eeeeee" : String(format: "#%02x%02xff", shade, shade)
                svg += "<rect x=\"\(x)\" y=\"\(y)\" width=\"\(size)\" height=\"\(size)\" fill=\"\(fill)\"\(m.diagonal(r) == c ? " stroke=\"black\" stroke-width=\"2\"" : "")/>"
                let label = score.map { String(format: "%.0f", 100 * $0) } ?? "—"
                svg += "<text x=\"\(x + size / 2)\" y=\"\(y + size / 2 + 3)\" stroke=\"none\"\(shade < 130 ? " fill=\"white\"" : "")>\(label)</text>"
                if m.topColumn(r) == c { svg += "<circle cx=\"\(x + size - 6)\" cy=\"\(y + 6)\" r=\"3\" fill=\"#d95f02\" stroke=\"none\"/>" }
                svg += "\n"
            }
            svg += "</g>\n"
        }
        return svg + "</svg>\n"
    }
}
