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

        var citedLaTeX: String { cites.isEmpty ? latex : "\(latex)~\\cite{\(cites.map(\.key).joined(separator: ","))}" }

        static func text(_ text: String) -> Cell { Cell(markdown: text, latex: LaTeX.escaped(text)) }
        static let missing = Cell(markdown: "—", latex: "--")
    }

    /// A column: its heading, and LaTeX's (nil: LaTeX leaves the column out).
    struct Column {
        var heading: String
        var latex: String?

        init(_ heading: String) { (self.heading, latex) = (heading, LaTeX.escaped(heading)) }
        init(_ heading: String, latex: String?) { (self.heading, self.latex) = (heading, latex) }
    }

    var columns: [Column]
    var rows: [[Cell]]

    var markdown: String {
        "| " + columns.map(\.heading).joined(separator: " | ") + " |\n|" + columns.map { _ in "---|" }.joined() + "\n"
            + rows.map { "| " + $0.map(\.markdown).joined(separator: " | ") + " |\n" }.joined()
    }

    /// LaTeX with the model's rows as columns: each row's first cell (an algorithm) heads a column,
    /// each other column of the model becomes a row. A row's rates are compared across the algorithms:
    /// bold the best and every rate whose 95 % interval reaches it (`caption` must say so).
    func latexTransposed(caption: String, label: String) -> String {
        let shown = columns.indices.dropFirst().filter { columns[$0].latex != nil }
        var s = "\\begin{table}[tbp]\n\\centering\\footnotesize\n\\caption{\(caption)}\\label{\(label)}\n"
        s += "\\resizebox{\\ifdim\\width>\\linewidth\\linewidth\\else\\width\\fi}{!}{%\n"
        s += "\\begin{tabular}{l" + String(repeating: "r", count: rows.count) + "}\n\\toprule\n"
        s += (columns[0].latex ?? "") + " & " + rows.map { Self.heading($0[0]) }.joined(separator: " & ") + " \\\\\n\\midrule\n"
        for c in shown {
            let cells = rows.map { $0[c] }, best = Self.best(cells.compactMap(\.rate))
            s += (columns[c].latex ?? "") + " & " + cells.map { cell in
                guard let rate = cell.rate, let best, rate.high >= best else { return cell.latex }
                return "\\textbf{\(cell.latex)}"
            }.joined(separator: " & ") + " \\\\\n"
            if cells.contains(where: { $0.below != nil }) {
                s += " & " + cells.map { $0.below.map { "{\\scriptsize \($0)}" } ?? "" }.joined(separator: " & ") + " \\\\[2pt]\n"
            }
        }
        return s + "\\bottomrule\n\\end{tabular}}\n\\end{table}\n"
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
            case "—": s += "---"
            case "–": s += "--"
            default: s.append(c)
            }
        }
        return s
    }
}

/// A run's LaTeX: each table a file of `tables/`, `references.bib` with every work they cite, and
/// `tables.tex`, a document that inputs them all (pdflatex tables; bibtex tables; pdflatex tables twice).
struct LaTeXTables {
    var tables: [(name: String, latex: String)] = []
    var cited: [Citation] = []

    mutating func add(_ name: String, _ latex: String, citing works: [Citation]) {
        tables.append((name, latex))
        cited += works
    }

    func write(into folder: OutputFolder.Held) throws {
        guard !tables.isEmpty else { return }
        for table in tables { try folder.put(table.latex, "tables/\(table.name).tex") }
        try folder.put(Citation.bibliography(cited), "tables/references.bib")
        try folder.put(document, "tables/tables.tex")
    }

    var document: String {
        "% Every table of this run, as fpbench wrote them. In this folder: pdflatex tables; bibtex tables; pdflatex tables; pdflatex tables\n"
            + "\\documentclass{article}\n\\usepackage{booktabs,graphicx,url}\n\\begin{document}\n"
            + tables.map { "\\input{\($0.name)}\n" }.joined()
            + "\\bibliographystyle{plain}\n\\bibliography{references}\n\\end{document}\n"
    }
}
