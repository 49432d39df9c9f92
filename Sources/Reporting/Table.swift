import Evaluation
import Foundation
import Fingerprinting

/// A report's table in one model and two renderings: Markdown for summary.md, LaTeX (booktabs) for a
/// paper. A cell knows what it holds, a rate with its interval for instance, so each rendering typesets
/// it its own way; LaTeX sets an interval on a line of its own under its value, cites each algorithm
/// by its works (`Citation`), and marks the best of each comparison by the rule its caption states.
struct Table {
    struct Cell {
        var markdown: String
        /// Its LaTeX (already escaped) and, set smaller on the line below, its interval.
        var latex: String
        var below: String?
        /// A proportion where higher is better, compared along the LaTeX table's rows.
        var rate: Rate?
        /// The works a name cites (an algorithm's, from its profile): `\cite`d after it in LaTeX.
        var cites: [Citation] = []
        /// The report page's query filter behind the cell (column → value): the cell opens those answers.
        var filter: [String: String]? = nil

        var citedLaTeX: String { cites.isEmpty ? latex : "\(latex)~\\cite{\(cites.map(\.key).joined(separator: ","))}" }

        static func text(_ text: String) -> Cell { Cell(markdown: text, latex: LaTeX.escaped(text)) }
        static let missing = Cell(markdown: "—", latex: "--")
        /// A system's cell below the shortest query it answers by design: not a measurement of zero.
        static let notSupported = Cell(markdown: "not supported", latex: "n/s")
    }

    /// A column: its heading, and LaTeX's (nil: LaTeX leaves the column out); a numeric one is set right
    /// in Markdown.
    struct Column {
        var heading: String
        var latex: String?
        var numeric = false

        init(_ heading: String, numeric: Bool = false) { (self.heading, latex, self.numeric) = (heading, LaTeX.escaped(heading), numeric) }
        init(_ heading: String, latex: String?) { (self.heading, self.latex) = (heading, latex) }
    }

    var columns: [Column]
    var rows: [[Cell]]

    var markdown: String {
        "| " + columns.map(\.heading).joined(separator: " | ") + " |\n|" + columns.map { $0.numeric ? "---:|" : "---|" }.joined() + "\n"
            + rows.map { "| " + $0.map(\.markdown).joined(separator: " | ") + " |\n" }.joined()
    }

    /// LaTeX with the model's rows as rows, a cell's works cited after it; a column's rates are compared
    /// down the column: bold the best and every rate whose 95 % interval reaches it (`caption` must say so).
    func latex(caption: String, label: String) -> String {
        let shown = columns.indices.filter { columns[$0].latex != nil }
        let marked = Dictionary(uniqueKeysWithValues: shown.map { c in (c, Self.marked(rows.map { $0[c] })) })
        let lines = rows.indices.map { r in
            Line(cells: shown.map { marked[$0]![r] }, below: shown.map { rows[r][$0].below })
        }
        return Self.environment(caption: caption, label: label, head: shown.map { columns[$0].latex! }, lines: lines)
    }

    /// LaTeX with the model's rows as columns: each row's first cell (an algorithm) heads a column,
    /// each other column of the model becomes a row, whose rates are compared across the algorithms.
    func latexTransposed(caption: String, label: String) -> String {
        let lines = columns.indices.dropFirst().filter { columns[$0].latex != nil }.map { c in
            Line(cells: [columns[c].latex!] + Self.marked(rows.map { $0[c] }), below: [nil] + rows.map { $0[c].below })
        }
        return Self.environment(caption: caption, label: label, head: [columns[0].latex ?? ""] + rows.map { Self.heading($0[0]) }, lines: lines)
    }

    /// A line of a LaTeX table and, set small on the line below, its cells' intervals.
    struct Line {
        var cells: [String]
        var below: [String?]
    }

    /// A booktabs table, shrunk to the text's width when wider.
    static func environment(caption: String, label: String, head: [String], lines: [Line]) -> String {
        var s = "\\begin{table}[tbp]\n\\centering\\footnotesize\n\\caption{\(caption)}\\label{\(label)}\n"
        s += "\\resizebox{\\ifdim\\width>\\linewidth\\linewidth\\else\\width\\fi}{!}{%\n"
        s += "\\begin{tabular}{l" + String(repeating: "r", count: head.count - 1) + "}\n\\toprule\n"
        s += head.joined(separator: " & ") + " \\\\\n\\midrule\n"
        for line in lines {
            s += line.cells.joined(separator: " & ") + " \\\\\n"
            if line.below.contains(where: { $0 != nil }) {
                s += line.below.map { $0.map { "{\\scriptsize \($0)}" } ?? "" }.joined(separator: " & ") + " \\\\[2pt]\n"
            }
        }
        return s + "\\bottomrule\n\\end{tabular}}\n\\end{table}\n"
    }

    /// Cells compared with each other: each one's LaTeX, bold when its rate is the best or its interval reaches the best.
    static func marked(_ cells: [Cell]) -> [String] {
        let best = best(cells.compactMap(\.rate))
        return cells.map { cell in
            guard let rate = cell.rate, let best, rate.high >= best else { return cell.citedLaTeX }
            return "\\textbf{\(cell.citedLaTeX)}"
        }
    }

    /// A name set upright over its column; a long one (a variant that names a file) in lines of at most
    /// 3.5 cm, broken after "@", "=" and "/", so the heading stays shorter than a page.
    static func heading(_ name: Cell) -> String {
        guard name.markdown.count > 28 else { return "\\rotatebox{90}{\(name.citedLaTeX)}" }
        var broken = name
        broken.latex = ["@", "=", "/"].reduce(name.latex) { $0.replacingOccurrences(of: $1, with: $1 + "\\allowbreak{}") }
        return "\\rotatebox{90}{\\parbox{3.5cm}{\\raggedright \(broken.citedLaTeX)}}"
    }

    /// The best point estimate among rates that count, nil when none does.
    static func best(_ rates: [Rate]) -> Double? { rates.filter { $0.total > 0 }.map(\.value).max() }
}

/// LaTeX's text: its special characters escaped.
enum LaTeX {
    static func escaped(_ text: String) -> String {
        var s = ""
        for c in text {
            switch c {
            case "\\": s += "\\textbackslash{}"
            case "&", "%", "$", "#", "_", "{", "}": s += "\\\(c)"
            case "~": s += "\\textasciitilde{}"
            case "^": s += "\\textasciicircum{}"
            case "<": s += "\\textless{}"
            case ">": s += "\\textgreater{}"
            case "±": s += "$\\pm$"
            case "×": s += "$\\times$"
            case "·": s += "$\\cdot$"
            case "†": s += "$^\\dagger$"
            case "≤": s += "$\\le$"
            case "—": s += "---"
            case "–": s += "--"
            default: s.append(c)
            }
        }
        return s
    }
}

/// A run's LaTeX: each table a file of `tables/`, `references.bib` with every work they cite (none: no file), and
/// `tables.tex`, a document that inputs them all and includes the run's figures as PDF (`PDFFigures`)
/// with their captions (pdflatex tables; bibtex tables; pdflatex tables twice).
struct LaTeXTables {
    var tables: [(name: String, latex: String)] = []
    var figures: [(name: String, caption: String)] = []
    var cited: [Citation] = []

    mutating func add(_ name: String, _ latex: String, citing works: [Citation]) {
        tables.append((name, latex))
        cited += works
    }

    /// A figure of the run's folder, NAME.svg drawn as NAME.pdf, with its caption (LaTeX).
    mutating func add(figure name: String, caption: String) { figures.append((name, caption)) }

    /// A figure as the document includes it from tables/: its PDF at the text's width ({NAME}.pdf, so the
    /// dots of "detection-0.5s" are not read as an extension), or a box that says why it is missing.
    static func figure(_ name: String, caption: String) -> String {
        "\\begin{figure}[tbp]\n\\centering\n\\IfFileExists{../\(name).pdf}{\\includegraphics[width=\\linewidth]{{../\(name)}.pdf}}"
            + "{\\fbox{\\parbox{0.9\\linewidth}{\\raggedright \(LaTeX.escaped(name)).pdf was not drawn: rsvg-convert (librsvg2-bin) was missing}}}\n"
            + "\\caption{\(caption)}\\label{fig:\(name)}\n\\end{figure}\n"
    }

    func write(into folder: OutputFolder.Held) throws {
        guard !tables.isEmpty else { return }
        // A table or bibliography an earlier run wrote here and this one does not (a query length left out) goes.
        let tablesFolder = folder.url.appendingPathComponent("tables"), written = Set(tables.map { "\($0.name).tex" } + ["tables.tex", "references.bib"])
        for name in (try? FileManager.default.contentsOfDirectory(atPath: tablesFolder.path)) ?? []
        where (name.hasSuffix(".tex") || name == "references.bib") && !written.contains(name) {
            try FileManager.default.removeItem(at: tablesFolder.appendingPathComponent(name))
        }
        for table in tables { try folder.put(table.latex, "tables/\(table.name).tex") }
        if !cited.isEmpty { try folder.put(Citation.bibliography(cited), "tables/references.bib") }
        try folder.put(document, "tables/tables.tex")
    }

    var document: String {
        "% Every table of this run, as fpbench wrote them. In this folder: pdflatex tables; bibtex tables; pdflatex tables; pdflatex tables\n"
            + "\\documentclass{article}\n\\usepackage{booktabs,graphicx,url}\n\\begin{document}\n"
            + (tables.map { "\\input{\($0.name).tex}\n" } + figures.map { Self.figure($0.name, caption: $0.caption) })
                .enumerated().map { $0.offset % 6 == 5 ? $0.element + "\\clearpage\n" : $0.element }.joined()
            + (cited.isEmpty ? "" : "\\bibliographystyle{plain}\n\\bibliography{references}\n") + "\\end{document}\n"
    }
}
