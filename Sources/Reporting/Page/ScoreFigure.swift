import Foundation

/// The detection-error view of one query length: for each algorithm, the top scores of negative
/// queries, of positive queries answered correctly and of the others, as histograms over 0...1, with the
/// threshold calibrated on the negatives drawn across them. Everything right of the line is a match.
enum ScoreFigure {
    struct Panel {
        var algorithm: String
        var negatives: [Double]
        var correct: [Double]
        var wrong: [Double]
        var threshold: Double
    }

    static let bins = 25
    static let kinds = [("negative queries", "#d95f02"), ("positives, correct answer", "#1b9e77"), ("positives, wrong or no answer", "#888888")]

    static func svg(title: String, panels: [Panel]) -> String {
        let columns = min(3, max(1, panels.count)), panelWidth = 300.0, panelHeight = 170.0, top = 60.0, gap = 40.0
        let rows = (panels.count + columns - 1) / columns
        let width = max(720, Double(columns) * (panelWidth + gap) + gap), height = top + Double(rows) * (panelHeight + 60) + 10
        func n(_ x: Double) -> String { Figures.number(x) }
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" font-family=\"sans-serif\" font-size=\"11\">\n"
        svg += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n<text x=\"\(n(gap))\" y=\"20\" font-size=\"14\">\(Figures.escape(title))</text>\n"
        for (k, kind) in kinds.enumerated() {
            let x = gap + Double(k) * 210
            svg += "<rect x=\"\(n(x))\" y=\"32\" width=\"12\" height=\"10\" fill=\"\(kind.1)\" fill-opacity=\"0.6\"/><text x=\"\(n(x + 16))\" y=\"41\">\(kind.0)</text>\n"
        }
        for (p, panel) in panels.enumerated() {
            let x0 = gap + Double(p % columns) * (panelWidth + gap), y0 = top + Double(p / columns) * (panelHeight + 60)
            let groups = [panel.negatives, panel.correct, panel.wrong].map(histogram)
            // Each group scaled to its own largest bin: the shapes, not the counts, are compared.
            svg += "<g class=\"panel\" data-algorithm=\"\(Figures.escape(panel.algorithm))\">\n"
            svg += "<text x=\"\(n(x0))\" y=\"\(n(y0 + 12))\" font-size=\"12\">\(Figures.escape(panel.algorithm)) (\(panel.negatives.count) negatives, \(panel.correct.count + panel.wrong.count) positives)</text>\n"
            let base = y0 + 20 + panelHeight - 20, barWidth = panelWidth / Double(bins)
            for (g, counts) in groups.enumerated() {
                let peak = Double(counts.max() ?? 0)
                guard peak > 0 else { continue }
                for (b, count) in counts.enumerated() where count > 0 {
                    let h = Double(count) / peak * (panelHeight - 30)
                    svg += "<rect x=\"\(n(x0 + Double(b) * barWidth))\" y=\"\(n(base - h))\" width=\"\(n(barWidth - 1))\" height=\"\(n(h))\" fill=\"\(kinds[g].1)\" fill-opacity=\"0.45\"/>\n"
                }
            }
            svg += "<line x1=\"\(n(x0))\" y1=\"\(n(base))\" x2=\"\(n(x0 + panelWidth))\" y2=\"\(n(base))\" stroke=\"black\"/>\n"
            for tick in stride(from: 0.0, through: 1.0, by: 0.25) {
                svg += "<text x=\"\(n(x0 + tick * panelWidth))\" y=\"\(n(base + 14))\" text-anchor=\"middle\">\(String(format: "%g", tick))</text>\n"
            }
            let tx = x0 + min(1, max(0, panel.threshold)) * panelWidth
            svg += "<line x1=\"\(n(tx))\" y1=\"\(n(y0 + 18))\" x2=\"\(n(tx))\" y2=\"\(n(base))\" stroke=\"black\" stroke-dasharray=\"4 3\"/>\n"
            svg += "<text x=\"\(n(x0 + panelWidth))\" y=\"\(n(base + 30))\" text-anchor=\"end\">top score · calibrated threshold \(String(format: "%.3f", panel.threshold))</text>\n</g>\n"
        }
        return svg + "</svg>\n"
    }

    static func histogram(_ scores: [Double]) -> [Int] {
        var counts = [Int](repeating: 0, count: bins)
        for s in scores { counts[min(bins - 1, max(0, Int(s * Double(bins))))] += 1 }
        return counts
    }
}
