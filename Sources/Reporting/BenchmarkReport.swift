import BenchmarkEvaluation
import Evaluation
import Fingerprinting
import Foundation
import Sweeps

/// Writes a benchmark's folder: results.json, costs.json, answers.csv (one row per algorithm × query ×
/// condition), metrics.csv, summary.md and SVG figures. Every file is written atomically.
public enum BenchmarkReport {
    public static func write(_ r: BenchmarkResults, costs: BenchmarkCosts?, to folder: URL, includeResults: Bool = true) throws {
        try OutputFolder.write(folder) { try write(r, costs: costs, into: $0, includeResults: includeResults) }
    }

    public static func write(_ r: BenchmarkResults, costs: BenchmarkCosts?, into folder: OutputFolder.Held, includeResults: Bool = true) throws {
        if let slice = r.shard?.catalogShard {
            // A slice's answers are candidates, not the catalog's answers: no tables until the merge.
            try folder.put(r.sealed().encoded(), "results.json")
            if let costs { try folder.put(costs.encoded(), "costs.json") }
            try folder.put("# A part: slice \(slice.index) of \(slice.count) of the catalog\n\nIts answers are this slice's candidates; `fpbench merge` over every slice's results.json writes the tables.\n", "summary.md")
            return
        }
        // results.json, whose encoding is about a third of a report's time, on a second core beside the other files.
        let parts = parallelMap(includeResults ? 2 : 1, threads: ProcessInfo.processInfo.activeProcessorCount) { part in
            Result {
                if part == 0 { try writeTables(r, costs: costs, into: folder) } else {
                    try folder.put(r.sealed().encoded(), "results.json")
                    if let costs { try folder.put(costs.encoded(), "costs.json") }
                }
            }
        }
        for part in parts { try part.get() }
    }

    /// Every file of a report but results.json and costs.json.
    private static func writeTables(_ r: BenchmarkResults, costs: BenchmarkCosts?, into folder: OutputFolder.Held) throws {
        let metrics = BenchmarkMetrics(r)
        try folder.put(answersCSV(r), "answers.csv")
        try folder.put(metricsCSV(metrics), "metrics.csv")
        for length in r.spec.queryLengths {
            try folder.put(detectionFigure(r, metrics: metrics, length: length), "detection-\(QueryLength(length).tag).svg")
            try folder.put(scoreFigure(r, metrics: metrics, length: length), "scores-\(QueryLength(length).tag).svg")
        }
        if let costs, !costs.scaling.isEmpty { try folder.put(scalingFigure(costs), "scaling.svg") }
        var text = summary(r, metrics: metrics, costs: costs)
        if let costs, let operating = OperatingPoints(r, metrics: metrics, costs: costs) {
            for file in OperatingReport.files(operating) { try folder.put(file.text, file.name) }
            text += "\n" + OperatingReport.summary(operating)
        }
        try folder.put(text, "summary.md")
        var tables = LaTeXTables()
        lengthTables(r, metrics: metrics, into: &tables)
        if let costs, let operating = OperatingPoints(r, metrics: metrics, costs: costs) {
            let profiles = Dictionary(r.algorithms.map { ($0.identifier, $0.profile) }) { first, _ in first }
            OperatingReport.latex(operating, cites: { profiles[$0].map(Citation.cited(in:)) ?? [] }, into: &tables)
        }
        if let costs, !costs.scaling.isEmpty {
            tables.add(figure: "scaling", caption: "Median search CPU time per query against the catalog's size, in nested catalogs of the same tracks.")
        }
        try tables.write(into: folder)
        try BenchmarkPage.write(r, metrics: metrics, summary: text, linking: linkedTables(r, metrics: metrics), to: folder.url)
    }

    static func percent(_ rate: Rate) -> String { String(format: "%.0f", 100 * rate.value) }
    static func interval(_ rate: Rate) -> String { String(format: "%.0f-%.0f", 100 * rate.low, 100 * rate.high) }
    static func g(_ x: Double) -> String { String(format: "%g", x) }
    /// "2/250 [0-1.6] (13 rec.)": held-out false positives, the recording-level interval in % (one decimal: the target is 1 %).
    static func heldOutCell(_ c: ClusteredRate) -> Table.Cell {
        Table.Cell(markdown: String(format: "%d/%d [%.1f-%.1f] (%d rec.)", c.successes, c.total, 100 * c.low, 100 * c.high, c.recordings),
                   latex: "\(c.successes)/\(c.total)", below: String(format: "%.1f--%.1f", 100 * c.low, 100 * c.high))
    }

    /// A query length's table: each algorithm's correct rate at the calibrated threshold in each
    /// condition, then its false positives at the documented threshold and, held out, at the calibrated one.
    static func lengthTable(_ r: BenchmarkResults, metrics m: BenchmarkMetrics, length: Double, conditions: [BenchmarkCondition]) -> Table {
        let columns = [Table.Column("algorithm", latex: "condition")] + conditions.map { Table.Column($0.id) }
            + [Table.Column("false positives (documented threshold)", latex: nil),
               Table.Column("false positives (calibrated, held out, by recording)", latex: "false positives, held out")]
        let rows = r.algorithms.map { algorithm -> [Table.Cell] in
            let name = Table.Cell(markdown: algorithm.identifier, latex: LaTeX.escaped(algorithm.identifier), cites: Citation.cited(in: algorithm.profile))
            let rates = conditions.map { c -> Table.Cell in
                let cell = BenchmarkCell(algorithm: algorithm.identifier, length: length, condition: c.id)
                var shown = Table.Cell.notSupported
                if algorithm.supports(length) {
                    shown = m.condition(cell).flatMap { cm in cm.correctCalibrated.total > 0
                        ? rateCell(cm.correctCalibrated, then: " · \(percent(cm.outcomes[Outcome.correct.rawValue]!))") : nil } ?? .missing
                }
                shown.filter = queryFilter(cell)
                return shown
            }
            guard algorithm.supports(length) else { return [name] + rates + [.notSupported, .notSupported] }
            let n = m.negative(algorithm.identifier, length)
            let documented = n.map(\.falsePositives).flatMap { $0.total > 0 ? Table.Cell.text("\($0.successes)/\($0.total) [\(interval($0))]") : nil }
            let heldOut = n.map(\.heldOutByRecording).flatMap { $0.total > 0 ? heldOutCell($0) : nil }
            return [name] + rates + [documented ?? .missing, heldOut ?? .missing]
        }
        return Table(columns: columns, rows: rows)
    }

    /// The longest queries' outcomes at the documented thresholds and hit@5, a row per algorithm and condition.
    static func outcomesTable(_ r: BenchmarkResults, metrics m: BenchmarkMetrics, conditions: [BenchmarkCondition]) -> Table {
        let columns = ["algorithm", "condition"] + Outcome.allCases.map(\.rawValue) + ["hit@5"]
        let rows = r.algorithms.flatMap { algorithm in
            conditions.compactMap { c -> [Table.Cell]? in
                let cell = BenchmarkCell(algorithm: algorithm.identifier, length: r.spec.queryLengths.max() ?? 0, condition: c.id)
                guard let cm = m.condition(cell) else { return nil }
                let rates = Outcome.allCases.map { cm.outcomes[$0.rawValue]! } + [cm.hitAt5]
                return [.text(algorithm.identifier), .text(c.id)] + rates.map { rate in
                    var shown = Table.Cell.text(percent(rate))
                    shown.filter = queryFilter(cell)
                    return shown
                }
            }
        }
        return Table(columns: columns.map { Table.Column($0) }, rows: rows)
    }

    /// The summary's tables whose cells open the answers behind them on the report page.
    static func linkedTables(_ r: BenchmarkResults, metrics m: BenchmarkMetrics) -> [Table] {
        let conditions = shownConditions(r, metrics: m)
        return r.spec.queryLengths.map { lengthTable(r, metrics: m, length: $0, conditions: conditions) } + [outcomesTable(r, metrics: m, conditions: conditions)]
    }

    /// The report page's filter of a cell's answers (its query list's columns).
    static func queryFilter(_ cell: BenchmarkCell) -> [String: String] {
        ["algorithm": cell.algorithm, "length": QueryLength(cell.length).number, "condition": cell.condition]
    }

    /// "**95** [89-98]" and what follows; in LaTeX 95, its interval below.
    static func rateCell(_ rate: Rate, then: String = "") -> Table.Cell {
        Table.Cell(markdown: "**\(percent(rate))** [\(interval(rate))]" + then, latex: percent(rate),
                   below: String(format: "%.0f--%.0f", 100 * rate.low, 100 * rate.high), rate: rate)
    }

    /// The LaTeX of every query length's table, each with a caption that says what a cell is.
    static func lengthTables(_ r: BenchmarkResults, metrics m: BenchmarkMetrics, into tables: inout LaTeXTables) {
        let conditions = shownConditions(r, metrics: m)
        let halves = NegativeSplit.Half.allCases.map { h in Set(r.queries.filter { $0.half == h }.map(\.file)).count }
        for length in r.spec.queryLengths {
            let table = lengthTable(r, metrics: m, length: length, conditions: conditions)
            let perCell = m.conditions.filter { $0.length == length }.map(\.correctCalibrated.total).max() ?? 0
            let caption = String(format: "Identification of %g\\,s queries among %d tracks (%.1f\\,h): correct top-1 answers (\\%%) of %d queries a cell, "
                                 + "at the threshold calibrated to at most %g\\,\\%% false positives with %g\\,\\%% confidence on the negative queries of "
                                 + "half of the negative recordings (%d); 95\\,\\%% Wilson interval below. Bold: the condition's best and every rate whose interval "
                                 + "reaches it. Last row: false positives at that threshold among the held-out negatives, cut from %d other recordings; "
                                 + "their 95\\,\\%% interval (\\%%, a cluster bootstrap over recordings) below.",
                                 length, r.catalog.tracks.count, r.catalog.hours, perCell, 100 * r.spec.falsePositiveTarget, 100 * r.spec.confidence, halves[0], halves[1])
                + (r.algorithms.allSatisfy { $0.supports(length) } ? "" : " n/s: shorter than the system answers by its own design (the run's skipped list says where it is documented).")
            tables.add("benchmark-\(QueryLength(length).tag)", table.latexTransposed(caption: caption, label: "tab:benchmark-\(QueryLength(length).tag)"),
                       citing: table.rows.flatMap { $0[0].cites })
            tables.add(figure: "detection-\(QueryLength(length).tag)", caption: String(format:
                "Correct top-1 answers (\\%% of the positive %g\\,s queries, every condition pooled) against false positives (\\%% of the calibration "
                + "half's negatives, log scale, 0 drawn at 0.1) as each algorithm's threshold falls; ringed: its calibrated threshold.", length))
            tables.add(figure: "scores-\(QueryLength(length).tag)", caption: String(format:
                "Top scores of %g\\,s queries: negatives, correct answers and other answers, with each algorithm's calibrated threshold.", length))
        }
    }

    static func answersCSV(_ r: BenchmarkResults) -> String {
        let queries = Dictionary(uniqueKeysWithValues: r.queries.map { ($0.id, $0) })
        let header = ["algorithm", "query", "length_s", "condition", "negative", "negative_half", "truth_file", "truth_start_s", "expected_offset_s", "answer_file",
                      "answer_offset_s", "score", "raw_figure", "time_factor", "matched", "outcome", "truth_rank", "failure"]
        let rows = r.answers.map { a -> [String] in
            let q = queries[a.query]!, top = a.top.first
            let outcome = q.negative ? (a.top.contains(where: \.matched) ? "false positive" : "no match")
                : BenchmarkMetrics.outcome(a.top.first(where: \.matched), truth: q, expectedOffset: a.expectedOffset, results: r).rawValue
            let rank = a.top.firstIndex { r.catalog.tracks[$0.track] == q.file }.map { String($0 + 1) } ?? ""
            return [a.algorithm, a.query, QueryLength(q.length).number, a.condition, q.negative ? "1" : "0", q.half?.rawValue ?? "", q.file, g(q.start), g(a.expectedOffset ?? q.start),
                    top.map { r.catalog.tracks[$0.track] } ?? "", top.map { g($0.offset) } ?? "",
                    top.map { String($0.score) } ?? "", top.map { String($0.rawFigure) } ?? "", top?.timeFactor.map(g) ?? "",
                    top.map { $0.matched ? "1" : "0" } ?? "", a.failure == nil ? outcome : "", rank, a.failure ?? ""]
        }
        return CSV.file(header, rows)
    }

    /// The learned-fingerprint papers' metric, as metrics.csv and the summary name it.
    static let exactMeasure = "top-1 within ±\(g(1000 * BenchmarkMetrics.exactTolerance)) ms (no threshold)"

    static func metricsCSV(_ m: BenchmarkMetrics) -> String {
        var rows: [[String]] = []
        func row(_ a: String, _ l: Double, _ c: String, _ measure: String, _ rate: Rate) {
            rows.append([a, QueryLength(l).number, c, measure, String(rate.successes), String(rate.total),
                         String(format: "%.4f", rate.value), String(format: "%.4f", rate.low), String(format: "%.4f", rate.high)])
        }
        for c in m.conditions {
            for outcome in Outcome.allCases { row(c.algorithm, c.length, c.condition, outcome.rawValue, c.outcomes[outcome.rawValue]!) }
            row(c.algorithm, c.length, c.condition, "hit@5", c.hitAt5)
            row(c.algorithm, c.length, c.condition, "correct at calibrated threshold", c.correctCalibrated)
            row(c.algorithm, c.length, c.condition, "correct or repeated passage at calibrated threshold", c.correctOrRepeatCalibrated)
            row(c.algorithm, c.length, c.condition, exactMeasure, c.exactTop1)
        }
        for n in m.negatives {
            row(n.algorithm, n.length, "negatives", "false positive", n.falsePositives)
            row(n.algorithm, n.length, "negatives", "false positive at calibrated threshold (held out)", n.falsePositivesHeldOut)
            let c = n.heldOutByRecording
            rows.append([n.algorithm, g(n.length), "negatives", "false positive at calibrated threshold (held out, \(c.recordings) recordings as the unit)",
                         String(c.successes), String(c.total), String(format: "%.4f", c.value), String(format: "%.4f", c.low), String(format: "%.4f", c.high)])
            if let x = n.crossCheck {
                rows.append([n.algorithm, g(n.length), "cross-check", "false positive at calibrated threshold (\(x.recordings) recordings as the unit)",
                             String(x.successes), String(x.total), String(format: "%.4f", x.value), String(format: "%.4f", x.low), String(format: "%.4f", x.high)])
            }
        }
        return CSV.file(["algorithm", "length_s", "condition", "measure", "successes", "total", "rate", "interval_low", "interval_high"], rows)
    }

    /// Correct top-1 answers against false positives as the threshold on the top score moves, the false
    /// positives on a logarithmic axis from 0.1 to 100 % (the 1 % every table quotes sits mid-figure), each
    /// curve's point at its calibrated threshold ringed.
    static func detectionFigure(_ r: BenchmarkResults, metrics m: BenchmarkMetrics, length: Double) -> String {
        let queries = Dictionary(uniqueKeysWithValues: r.queries.map { ($0.id, $0) })
        var series: [(name: String, points: [(x: Double, y: Double)])] = []
        var marked: [String: (x: Double, y: Double)] = [:]
        for algorithm in r.algorithms.map(\.identifier) {
            let answers = r.answers.filter { $0.algorithm == algorithm && $0.failure == nil && queries[$0.query]!.length == length }
            let negatives = answers.filter { queries[$0.query]!.calibrationNegative }.map { $0.top.first?.score ?? 0 }
            let positives = answers.filter { !queries[$0.query]!.negative }
            guard !negatives.isEmpty, !positives.isEmpty else { continue }
            // A positive's score when its top answer is correct, else -1 (above no threshold).
            let correct = positives.map { a -> Double in
                guard let top = a.top.first else { return -1 }
                return BenchmarkMetrics.outcome(top, truth: queries[a.query]!, expectedOffset: a.expectedOffset, results: r) == .correct ? top.score : -1
            }
            let thresholds = (Set(negatives).union([0, 1]).sorted(by: >))
            series.append((algorithm, zip(percentAbove(thresholds, negatives), percentAbove(thresholds, correct)).map { (x: $0, y: $1) }))
            if let t = m.negative(algorithm, length)?.calibratedThreshold {
                marked[algorithm] = (percentAbove([t], negatives)[0], percentAbove([t], correct)[0])
            }
        }
        return Figures.lineChart(title: "Correct top-1 against false positives, \(QueryLength(length).spoken) queries (all conditions)",
                                 xLabel: "false positives (%, log scale; 0 drawn at 0.1) · ringed: the calibrated threshold",
                                 yLabel: "correct top-1 (%)", xTicks: [0.1, 0.3, 1, 3, 10, 30, 100],
                                 logarithmic: Figures.LogarithmicAxis(low: 0.1, high: 100), series: series, marked: marked)
    }

    /// For each of `thresholds` (from the highest down), the percentage of `values` above it: one pass over them, sorted.
    static func percentAbove(_ thresholds: [Double], _ values: [Double]) -> [Double] {
        let sorted = values.sorted(by: >)
        var above = 0
        return thresholds.map { t in
            while above < sorted.count && sorted[above] > t { above += 1 }
            return 100 * Double(above) / Double(values.count)
        }
    }

    /// Each algorithm's top scores on negatives, correct and other positives, with the calibrated threshold.
    static func scoreFigure(_ r: BenchmarkResults, metrics m: BenchmarkMetrics, length: Double) -> String {
        let queries = Dictionary(uniqueKeysWithValues: r.queries.map { ($0.id, $0) })
        let panels = r.algorithms.filter(\.isScored).map { info -> ScoreFigure.Panel in
            let threshold = m.negative(info.identifier, length)?.calibratedThreshold ?? 0
            var panel = ScoreFigure.Panel(algorithm: info.identifier, negatives: [], correct: [], wrong: [], threshold: threshold)
            for a in r.answers where a.algorithm == info.identifier && a.failure == nil {
                guard let q = queries[a.query], q.length == length else { continue }
                let score = a.top.first?.score ?? 0
                if q.half == .crossCheck { continue }
                if q.negative { panel.negatives.append(score) }
                else if let top = a.top.first, BenchmarkMetrics.outcome(top, truth: q, expectedOffset: a.expectedOffset, results: r) == .correct { panel.correct.append(score) }
                else { panel.wrong.append(score) }
            }
            return panel
        }
        return ScoreFigure.svg(title: "Top scores and the calibrated threshold, \(QueryLength(length).spoken) queries (all conditions)", panels: panels)
    }

    /// The thresholds calibrated on the negatives, against recordings of another kind that never calibrated.
    static func crossCheckSection(_ r: BenchmarkResults, metrics m: BenchmarkMetrics) -> String {
        guard let files = r.catalog.crossCheck, m.negatives.contains(where: { $0.crossCheck != nil }) else { return "" }
        let collections = Set(files.map { $0.split(separator: "/").first.map(String.init) ?? $0 }).sorted()
        var s = "## Against another kind of audio\n\n"
        s += "False positives at the calibrated thresholds above on windows of \(files.count) recordings of another kind than the negatives (\(collections.joined(separator: ", "))), "
        s += "which never calibrate: what a threshold set on one kind of audio lets through on another. Each cell: false positives / windows, "
        s += "the 95 % interval in % with the recording as the unit, the recordings long enough for the length.\n\n"
        s += "| algorithm | " + r.spec.queryLengths.map { QueryLength($0).spoken }.joined(separator: " | ") + " |\n|---|" + r.spec.queryLengths.map { _ in "---|" }.joined() + "\n"
        for algorithm in r.algorithms {
            s += "| \(algorithm.identifier) | " + r.spec.queryLengths.map { length in
                m.negative(algorithm.identifier, length)?.crossCheck.map { heldOutCell($0).markdown } ?? "—"
            }.joined(separator: " | ") + " |\n"
        }
        return s + "\n"
    }

    static func scalingFigure(_ costs: BenchmarkCosts) -> String {
        let groups = Dictionary(grouping: costs.scaling, by: \.algorithm).sorted { $0.key < $1.key }
        let top = costs.scaling.map(\.searchMilliseconds.median).max() ?? 1
        return Figures.lineChart(title: "Search time against catalog size (median per query)", xLabel: "catalog hours",
                                 yLabel: "search CPU time (ms)", yMaximum: max(1, (top * 1.2).rounded(.up)),
                                 series: groups.map { ($0.key, $0.value.map { (($0.hours * 10).rounded() / 10, $0.searchMilliseconds.median) }) })
    }

    /// The learned-fingerprint papers' own metric beside ours: their top-1 has no threshold and a tighter offset.
    static func exactSection(_ r: BenchmarkResults, metrics m: BenchmarkMetrics, conditions: [BenchmarkCondition]) -> String {
        var s = "## The learned-fingerprint papers' metric: \(exactMeasure)\n\n"
        s += "The top answer names the query's recording at an offset within ±\(g(1000 * BenchmarkMetrics.exactTolerance)) ms of the truth, whatever its score: "
        s += "the segment-level top-1 \"exact\" hit rate NAFP (Chang et al. 2021) and its successors report, which never answers \"no match\" "
        s += "(the false-positive columns above are what it leaves out). An algorithm whose offsets come in steps coarser than 0.1 s "
        s += "(a segment hop) meets it only where the query starts near a step.\n\n"
        s += "| algorithm | length | " + conditions.map(\.id).joined(separator: " | ") + " |\n|---|---|" + conditions.map { _ in "---|" }.joined() + "\n"
        for algorithm in r.algorithms {
            for length in r.spec.queryLengths {
                s += "| \(algorithm.identifier) | \(QueryLength(length).spoken) | " + conditions.map { c in
                    guard algorithm.supports(length) else { return "not supported" }
                    return m.condition(BenchmarkCell(algorithm: algorithm.identifier, length: length, condition: c.id)).map { $0.exactTop1.total > 0 ? "\(percent($0.exactTop1)) [\(interval($0.exactTop1))]" : "—" } ?? "—"
                }.joined(separator: " | ") + " |\n"
            }
        }
        return s + "\n"
    }

    /// Answers that landed on another copy of the query's passage, judged by one rule for every row, and the
    /// cells they change when counted as correct.
    static func repeatsSection(_ r: BenchmarkResults, metrics m: BenchmarkMetrics) -> String {
        var s = "## Repeated passages\n\n"
        guard let repeats = r.repeats else {
            return s + "Not judged (a catalog slice's results, or results written before the rule): `fpbench report --judge-repeats` judges them.\n\n"
        }
        s += "One rule for every algorithm and system: \(RepeatedPassages.rule). Of the wrong-offset top answers, \(repeats.count) "
        s += "passage pairs are repeats (answers.csv: \"\(Outcome.repeatedPassage.rawValue)\").\n\n"
        let changed = m.conditions.filter { $0.correctOrRepeatCalibrated.successes > $0.correctCalibrated.successes }
        guard !changed.isEmpty else { return s + "None is a top answer above a calibrated threshold: the tables above stand as they are.\n\n" }
        s += "Counted as correct, they change these cells (correct top-1 % at the calibrated threshold):\n\n"
        s += "| algorithm | length | condition | correct | correct or repeated passage |\n|---|---|---|---|---|\n"
        for c in changed {
            s += "| \(c.algorithm) | \(QueryLength(c.length).spoken) | \(c.condition) | \(percent(c.correctCalibrated)) [\(interval(c.correctCalibrated))] | "
            s += "\(percent(c.correctOrRepeatCalibrated)) [\(interval(c.correctOrRepeatCalibrated))] |\n"
        }
        return s + "\n"
    }

    /// The conditions some algorithm has a calibrated rate in.
    static func shownConditions(_ r: BenchmarkResults, metrics m: BenchmarkMetrics) -> [BenchmarkCondition] {
        r.spec.conditions.filter { c in m.conditions.contains { $0.condition == c.id && $0.correctCalibrated.total > 0 } }
    }

    static func summary(_ r: BenchmarkResults, metrics m: BenchmarkMetrics, costs: BenchmarkCosts?) -> String {
        let positives = r.queries.filter { !$0.negative }.count, negatives = r.queries.filter(\.calibrationNegative).count
        var s = "# Identification benchmark: \(r.catalog.dataset)\n\n"
        s += String(format: "Catalog: %d tracks, %.2f h. Queries: %d positions cut from catalog tracks, each under %d conditions, and %d negative queries from %d recordings not in the catalog. ",
                    r.catalog.tracks.count, r.catalog.hours, positives, r.spec.conditions.count, negatives, r.catalog.negatives.count)
        s += "Seed \(r.seed), fpbench \(r.tool.version), manifest SHA-256 \(r.catalog.manifestSHA256.prefix(12)).\n\n"
        s += "A top answer is **correct** when it names the query's recording at an offset within ±\(g(r.spec.offsetTolerance)) s of the truth. "
        let halves = NegativeSplit.Half.allCases.map { h in Set(r.queries.filter { $0.half == h }.map(\.file)).count }
        s += String(format: "Each cell: correct top-1 %% at the threshold calibrated to at most %g %% false positives with %g %% confidence (the fewest negatives above it that a %g %% rate gives with that probability: Vovk 2012) on the negative queries of that length cut from one half of the negative recordings (%d recordings), its 95 %% Wilson interval, then · correct %% at the algorithm's documented threshold. ",
                    100 * r.spec.falsePositiveTarget, 100 * r.spec.confidence, 100 * r.spec.falsePositiveTarget, halves[0])
        s += String(format: "The false positives at the calibrated threshold are counted on the other half, held out: windows of %d other recordings, with a 95 %% interval that treats the recording as the unit (a cluster bootstrap over recordings, 2,000 resamples; a negative's half is in answers.csv).\n\n", halves[1])
        let warnings = m.calibrationWarnings(r)
        if !warnings.isEmpty { s += "**Calibration warnings**:\n" + warnings.map { "- \($0)\n" }.joined() + "\n" }
        let conditions = shownConditions(r, metrics: m)
        for length in r.spec.queryLengths {
            s += "## \(QueryLength(length).spoken) queries\n\n" + lengthTable(r, metrics: m, length: length, conditions: conditions).markdown
            s += "\n![detection](detection-\(QueryLength(length).tag).svg)\n\n![scores](scores-\(QueryLength(length).tag).svg)\n\n"
        }
        s += exactSection(r, metrics: m, conditions: conditions)
        s += repeatsSection(r, metrics: m)
        s += crossCheckSection(r, metrics: m)
        s += "## What the top answers were (documented thresholds, \(QueryLength(r.spec.queryLengths.max() ?? 0).spoken) queries)\n\n"
        s += outcomesTable(r, metrics: m, conditions: conditions).markdown
        s += "\nCalibrated thresholds (top score; per query length): "
        s += m.negatives.map { "\($0.algorithm) \(g($0.length)) s > \(String(format: "%.3f", $0.calibratedThreshold))" }.joined(separator: ", ") + ".\n\n"
        s += "Conditions: " + r.spec.conditions.map { "`\($0.id)` \($0.title)" }.joined(separator: "; ") + ".\n\n"
        s += "Search: " + r.algorithms.map { "\($0.identifier) (\($0.search))" }.joined(separator: ", ") + ".\n\n"
        if let costs { s += costsSection(costs, r) }
        if let borrowed = r.catalog.borrowed { s += borrowedSection(borrowed, users: "conditions") }
        if !r.skipped.isEmpty { s += "## Skipped\n\n" + r.skipped.map { "- \($0.item): \($0.reason)\n" }.joined() + "\n" }
        let systemErrors = r.answers.filter { $0.note?.hasPrefix(Benchmark.systemErrorNote) == true }
        if !systemErrors.isEmpty { s += systemErrorsSection(systemErrors, r) }
        if !r.failures.isEmpty { s += "## Failures (\(r.failures.count))\n\n" + r.failures.prefix(50).map { "- \($0.item): \($0.reason)\n" }.joined() + "\n" }
        s += "Files: `answers.csv` (one row per algorithm × query × condition), `metrics.csv` (every rate with its interval), `results.json`, `costs.json`.\n"
        return s
    }

    /// Each system's errors grouped by message (the query's name taken out), most frequent first, with
    /// counts; a system that erred on more than 5 % of its queries is marked "adapter suspect": its row
    /// measures our adapter or its install before it measures the system.
    static func systemErrorsSection(_ errors: [BenchmarkAnswer], _ r: BenchmarkResults) -> String {
        var s = "## Outside systems' errors (\(errors.count), each counted as no match)\n\n"
        for (system, own) in Dictionary(grouping: errors, by: \.algorithm).sorted(by: { $0.key < $1.key }) {
            let asked = r.answers.filter { $0.algorithm == system }.count
            let share = Double(own.count) / Double(max(1, asked))
            s += String(format: "- **%@**: %d of %d queries (%.1f %%)%@\n", system, own.count, asked, 100 * share,
                        share > 0.05 ? " — **adapter suspect**: more than 5 % erred" : "")
            let messages = own.map { answer in
                String(answer.note!.dropFirst(Benchmark.systemErrorNote.count + 1))
                    .replacingOccurrences(of: #"query files? [^:]*: "#, with: "", options: .regularExpression)
            }
            for (message, count) in Dictionary(grouping: messages, by: { $0 }).mapValues(\.count).sorted(by: { ($1.value, $0.key) < ($0.value, $1.key) }).prefix(5) {
                s += "  - \(count) × \(message.prefix(300))\n"
            }
        }
        return s + "\n"
    }

    static func costsSection(_ c: BenchmarkCosts, _ r: BenchmarkResults) -> String {
        var s = String(format: "## Costs (measured in this run: %d threads, %.0f s wall, peak resident memory %.0f MB, decoding %.1f CPU s)\n\n",
                       c.threads, c.wallSeconds, Double(c.peakResidentBytes) / 1e6, c.decodeCPUSeconds)
        let lengths = r.spec.queryLengths.map { QueryLength($0).tag }
        s += "| algorithm | indexing (audio s per CPU s) | vs fpcalc, same files |  index build (s) | index (MiB/h) | fingerprints (MiB/h) | "
        s += lengths.map { "search \($0) median / p95 (ms)" }.joined(separator: " | ") + " | query fingerprint 10 s median (ms) |\n"
        s += "|---|---|---|---|---|---|" + lengths.map { _ in "---|" }.joined() + "---|\n"
        for a in c.algorithms {
            s += "| \(a.identifier) | " + (a.audioSecondsPerCPUSecond.map { String(format: "%.0f", $0) } ?? "from cache") + " | "
            s += (a.speedRatioToPeer.map { String(format: "%.2f×", $0) } ?? "—") + " | "
            s += String(format: "%.2f | %.2f | %.2f | ", a.indexBuildSeconds, a.mebibytesPerHour(a.indexBytes), a.mebibytesPerHour(a.fingerprintBytes))
            s += lengths.map { l in a.searchMilliseconds[l].flatMap { $0.p95 > 0 ? String(format: "%.2f / %.2f", $0.median, $0.p95) : nil } ?? "—" }.joined(separator: " | ")
            s += " | " + (a.queryFingerprintMilliseconds[QueryLength(10).tag].flatMap { $0.p95 > 0 ? String(format: "%.1f", $0.median) : "from cache" } ?? "—") + " |\n"
        }
        s += "\n"
        s += "\nIndexing speed counts fingerprinting only (decoding, shared by every algorithm, is the run's decoding figure above). "
        if let peer = c.peer {
            if let speed = peer.audioSecondsPerCPUSecond {
                s += String(format: "The peer, `%@`, measured in this run on the first %d catalog tracks (%.0f s of audio, one process each, start-up included): %.0f audio s per CPU s. ", peer.command, peer.files, peer.audioSeconds, speed)
                s += "\"vs fpcalc\" is the median over those files of fpcalc's CPU time over ours (decoding + fingerprinting): above 1, ours is faster."
            }
            if let failure = peer.failure { s += " fpcalc failed: \(failure)." }
        } else { s += "fpcalc was not timed (`--peer-tracks N` with Chromaprint's fpcalc installed)." }
        for a in c.algorithms {
            guard let bytes = a.indexFileBytes, let seconds = a.indexLoadSeconds else { continue }
            s += String(format: " %@ came from an index file (`--index`): %.1f MiB on disk, %.2f MiB per hour of audio, mapped and checked in %.1f ms.",
                        a.identifier, Double(bytes) / 1_048_576, a.mebibytesPerHour(bytes), 1000 * seconds)
        }
        s += "\n\n" + systemsCosts(c.systems ?? [])
        if !c.scaling.isEmpty {
            s += "\n### Scaling (\(g(c.scalingLength ?? 0)) s clean queries against nested catalogs)\n\n"
            s += "| algorithm | tracks | hours | correct | false positives | search median / p95 (ms) | index (MiB) |\n|---|---|---|---|---|---|---|\n"
            for p in c.scaling {
                s += String(format: "| %@ | %d | %.2f | %@ [%@] | %d/%d | %.2f / %.2f | %.1f |\n", p.algorithm, p.tracks, p.hours,
                            percent(p.correct), interval(p.correct), p.falsePositives.successes, p.falsePositives.total,
                            p.searchMilliseconds.median, p.searchMilliseconds.p95, Double(p.indexBytes) / 1_048_576)
            }
            s += "\nFitted growth of search time, time ∝ hours^k: " + c.scalingExponents.sorted { $0.key < $1.key }.map { String(format: "%@ k = %.2f", $0.key, $0.value) }.joined(separator: ", ")
            s += ".\n\n![scaling](scaling.svg)\n\n"
        }
        return s
    }

    /// Outside systems' costs: every figure from their own processes (CPU, peak resident memory).
    static func systemsCosts(_ systems: [BenchmarkCosts.SystemCosts]) -> String {
        guard !systems.isEmpty else { return "" }
        var s = "### Outside systems (each of their processes measured apart)\n\n"
        s += "| system | version | indexing (audio s per CPU s) | indexing peak memory (MB) | index on disk (MiB/h) | "
        s += "query CPU, batched (ms per query) | one query alone, whole process (CPU ms) | query peak memory (MB) | calls |\n"
        s += "|---|---|---|---|---|---|---|---|---|\n"
        for x in systems {
            s += "| \(x.identifier) | \(x.version) | " + (x.index.audioSecondsPerCPUSecond.map { String(format: "%.0f", $0) } ?? "—")
            s += (x.indexReused ? " (index reused)" : "") + String(format: " | %.0f | %.2f | ", Double(x.index.peakResidentBytes) / 1e6, x.index.mebibytesPerHour)
            s += (x.batchedQueryMilliseconds.map { String(format: "%.1f", $0) } ?? "—") + " | "
            s += (x.aloneCPUSeconds.map { String(format: "%.0f", 1000 * $0) } ?? "—")
            s += String(format: " | %.0f | %d", Double(x.queryPeakResidentBytes) / 1e6, x.calls)
            s += (x.remembered.map { " (\($0) answers remembered from an earlier run" + ($0 > (x.rememberedMeasured ?? 0) ? ", \($0 - (x.rememberedMeasured ?? 0)) without a kept cost)" : ")") } ?? "") + " |\n"
        }
        s += "\nA system's indexing includes its own decoding (the algorithms' figures above do not); converted tracks, "
        s += "if any, were decoded by fpbench first. \"One query alone\" is one call with a single query: start-up and loading the index included. "
        s += "A reused index reports the costs measured when it was built; remembered answers (an interrupted or repeated run's, kept beside the index by "
        s += "the query file's SHA-256) were not asked again: they count in the batched query CPU with their share of the call that answered them then, "
        s += "and in no CPU figure when their memory predates kept costs.\n\n"
        return s
    }
}
