import BenchmarkEvaluation
import Evaluation
import Fingerprinting
import Foundation
import Sweeps

/// `fpbench sweep skew`'s folder: skew.md (a table per condition and length: correct top-1 % at each
/// share of a hop, per algorithm or system, with the largest loss), skew.csv (tidy) and a figure per
/// condition and length. Each target's own benchmark is in a folder of its own beside them.
public enum SkewReport {
    public static func write(_ points: [SkewSweep.Point], to folder: URL) throws {
        try OutputFolder.write(folder) { held in
            try held.put(csv(points), "skew.csv")
            for (length, condition) in cells(points) { try held.put(figure(points, length: length, condition: condition), figureName(length, condition)) }
            try held.put(summary(points), "skew.md")
        }
    }

    static func cells(_ points: [SkewSweep.Point]) -> [(Double, String)] { SweepReport.cells(points, length: \.length, condition: \.condition) }

    static func figureName(_ length: Double, _ condition: String) -> String { "skew-\(QueryLength(length).tag)-\(condition).svg" }

    static func csv(_ points: [SkewSweep.Point]) -> String {
        CSV.file(["target", "hop_s", "length_s", "condition", "skew_share_of_hop", "skew_s", "correct", "total", "rate", "interval_low", "interval_high"],
                 points.map { p in
                     [p.target, String(format: "%.6g", p.hop), String(format: "%g", p.length), p.condition, String(format: "%g", p.share),
                      String(format: "%.6g", p.share * p.hop), String(p.correct.successes), String(p.correct.total),
                      String(format: "%.4f", p.correct.value), String(format: "%.4f", p.correct.low), String(format: "%.4f", p.correct.high)]
                 })
    }

    static func summary(_ points: [SkewSweep.Point]) -> String {
        var s = "# Sub-frame time skew\n\nEach algorithm or system on its own run, its query starts on its own frame grid (multiples of its hop), "
        s += "then every query moved later by a share of the hop (its first moments dropped): 0 and 1 fall on the grid, the rest between frames. "
        s += "Correct top-1 % at its calibrated threshold, [95 % Wilson interval]; **loss**: the best share's rate less the worst's, in points. "
        s += "Each run's own tables: the folder named after it. Data: skew.csv.\n"
        for (length, condition) in cells(points) {
            let cell = points.filter { $0.length == length && $0.condition == condition }
            let shares = SweepReport.orderedUnique(cell.map(\.share))
            s += "\n## \(condition), \(QueryLength(length).spoken) queries\n\n| algorithm or system | hop (ms) | "
            s += shares.map { String(format: "%g hop", $0) }.joined(separator: " | ") + " | loss |\n|---|---|" + shares.map { _ in "---|" }.joined() + "---|\n"
            for target in SweepReport.orderedUnique(cell.map(\.target)) {
                let mine = cell.filter { $0.target == target }, rates = mine.map(\.correct.value)
                s += "| \(target) | \(String(format: "%.1f", 1000 * mine[0].hop)) | "
                s += shares.map { share in mine.first { $0.share == share }.map { "\(BenchmarkReport.percent($0.correct)) [\(BenchmarkReport.interval($0.correct))]" } ?? "—" }
                    .joined(separator: " | ")
                s += String(format: " | %.0f |\n", 100 * ((rates.max() ?? 0) - (rates.min() ?? 0)))
            }
            s += "\n![skew](\(figureName(length, condition)))\n"
        }
        return s
    }

    static func figure(_ points: [SkewSweep.Point], length: Double, condition: String) -> String {
        let cell = points.filter { $0.length == length && $0.condition == condition }
        return Figures.lineChart(title: "Correct top-1 against sub-frame skew: \(condition), \(QueryLength(length).spoken) queries",
                                 xLabel: "query start moved by this share of the algorithm's hop", yLabel: "correct top-1 (%)",
                                 series: SweepReport.orderedUnique(cell.map(\.target)).map { target in
                                     (target, cell.filter { $0.target == target }.map { ($0.share, 100 * $0.correct.value) })
                                 })
    }
}
