import Evaluation
import Fingerprinting
import Foundation
@testable import Reporting
import Testing

/// The LaTeX tables a run writes: the rule that marks the best, and the committed reference's tables
/// compiled with Debian's TeX (texlive-latex-recommended, which the test command installs) and BibTeX
/// into a PDF whose log has no undefined citation, no table wider than the text and no missing file.
@Suite struct LaTeXTablesTests {
    /// Bold: the best rate of a row and every rate whose 95 % interval reaches it; a count is never bold.
    @Test func theBestAndWhatItsIntervalCannotTellApartAreBold() {
        let best = Rate(90, of: 100), close = Rate(86, of: 100), far = Rate(50, of: 100)
        #expect(close.high >= best.value && far.high < best.value)
        let rows = [(name: "a", rate: best), ("b", close), ("c", far)].map { row in
            [Table.Cell.text(row.name), BenchmarkReport.rateCell(row.rate), Table.Cell(markdown: "3/500", latex: "3/500", below: "0.1--1.2")]
        }
        let table = Table(columns: [Table.Column("algorithm", latex: "condition"), Table.Column("clean"), Table.Column("false positives")], rows: rows)
        let latex = table.latexTransposed(caption: "A caption.", label: "tab:test")
        #expect(latex.contains("clean & \\textbf{90} & \\textbf{86} & 50 \\\\\n & {\\scriptsize 83--94} & {\\scriptsize 78--91} & {\\scriptsize 40--60} \\\\[2pt]\n"), "\(latex)")
        #expect(latex.contains("false positives & 3/500 & 3/500 & 3/500 \\\\\n"), "\(latex)")
        #expect(table.markdown == "| algorithm | clean | false positives |\n|---|---|---|\n| a | **90** [83-94] | 3/500 |\n| b | **86** [78-91] | 3/500 |\n| c | **50** [40-60] | 3/500 |\n")
    }

    /// The detection figure's points, counted in one sorted pass, are the shares above each threshold by definition
    /// (ties at a threshold are not above it; -1, a positive answered wrongly, is above none).
    @Test func theDetectionFiguresSharesAreTheDefinitions() {
        var random = SeededGenerator(seed: 7)
        let values = (0..<500).map { _ in random.next(5) == 0 ? -1 : Double(random.next(41)) / 40 }
        let thresholds = Set(values.filter { $0 >= 0 }).union([0, 1]).sorted(by: >)
        let byDefinition = thresholds.map { t in 100 * Double(values.filter { $0 > t }.count) / Double(values.count) }
        #expect(BenchmarkReport.percentAbove(thresholds, values) == byDefinition)
        #expect(BenchmarkReport.percentAbove([0.5], [0.9, 0.5, 0.3, -1]) == [25])
        #expect(BenchmarkReport.percentAbove([1, 0], [1, 1, 0]) == [0, 200.0 / 3])
    }

    /// A short name heads its column rotated; a long one (a variant naming a file) is broken onto lines
    /// after "@", "=" and "/", so the rotated heading stays shorter than a page.
    @Test func aLongNameIsBrokenOntoLines() {
        #expect(Table.heading(.text("nafp-small")) == "\\rotatebox{90}{nafp-small}")
        #expect(LaTeX.escaped("a_b & 5% <x> {y} ~z^") == "a\\_b \\& 5\\% \\textless{}x\\textgreater{} \\{y\\} \\textasciitilde{}z\\textasciicircum{}")
        #expect(LaTeX.escaped("a · b × c ≤ d †") == "a $\\cdot$ b $\\times$ c $\\le$ d $^\\dagger$")
        let long = Table.heading(.text("nafp-small@weights=/tmp/nafp-small-retrained.fpnn"))
        #expect(long == "\\rotatebox{90}{\\parbox{3.5cm}{\\raggedright nafp-small@\\allowbreak{}weights=\\allowbreak{}/\\allowbreak{}tmp/\\allowbreak{}nafp-small-retrained.fpnn}}")
    }

    /// README's references, written by hand, name every work of `Citation.all` by its title, and no other.
    @Test func theReadmesReferencesAreTheCitations() throws {
        let readme = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "## References\n").last)
        let listed = section.components(separatedBy: "\n").filter { $0.hasPrefix("- ") }
        var keys = Set<String>()
        let works = Citation.all.filter { keys.insert($0.key).inserted }
        #expect(listed.count == works.count, "\(listed.count) references listed, \(works.count) works in Citation.all")
        for work in works {
            let title = try #require(work.bibtex.components(separatedBy: "title = {").dropFirst().first?.components(separatedBy: "},").first)
            #expect(listed.contains { $0.contains("*\(title)*") }, "README.md's references do not name \(work.key): *\(title)*")
        }
    }

    /// A benchmark's folder as a paper takes it: every figure also as PDF (the SVG's width, at most 7 in, its
    /// font embedded, its text searchable), and tables.tex, every table and figure of the run, compiled with
    /// pdflatex and bibtex with no undefined citation, no overfull line and no missing file.
    @Test func aRunsTablesAndFiguresCompile() throws {
        let (results, costs) = try smallBenchmark(threads: 2, cache: nil)
        let folder = temporaryFolder()
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("tables"), withIntermediateDirectories: true)
        try Data("% an earlier run's table of a length this run leaves out\n".utf8).write(to: folder.appendingPathComponent("tables/benchmark-10s.tex"))
        try BenchmarkReport.write(results, costs: costs, to: folder)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("tables/benchmark-10s.tex").path), "a stale table stayed")
        let figures = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".svg") }.sorted()
        #expect(figures.count == 3, "\(figures)")  // detection-5s, scores-5s, scaling
        for figure in figures {
            let svg = try Data(contentsOf: folder.appendingPathComponent(figure)), pdf = String(figure.dropLast(4)) + ".pdf"
            let width = try #require(PDFFigures.width(ofSVG: svg))
            let info = try Self.output(["pdfinfo", pdf], in: folder).split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(info.contains(String(format: "Page size: %g x ", min(width, PDFFigures.widestPoints))), "\(pdf): \(info)")
            let fonts = try Self.output(["pdffonts", pdf], in: folder).split(separator: "\n").dropFirst(2)
            #expect(!fonts.isEmpty && fonts.allSatisfy { $0.contains(" yes yes yes ") }, "\(pdf): fonts not embedded: \(fonts)")
            let title = try #require(String(decoding: svg, as: UTF8.self).components(separatedBy: ">").dropFirst(3).first?.components(separatedBy: "<").first)
            #expect(try Self.output(["pdftotext", pdf, "-"], in: folder).contains(title), "\(pdf) has no text \"\(title)\"")
        }
        let document = try Self.compile(folder.appendingPathComponent("tables"), labels: ["tab:benchmark-5s"] + figures.map { "fig:" + $0.dropLast(4) })
        #expect(document.contains("References") && document.contains("Haitsma"), "the bibliography is not in tables.pdf")
    }

    /// The committed small reference's suite tables (its identification table, every matrix) compile as
    /// cleanly; its figures are not committed, so each stands as a box that says so.
    @Test func theSuitesTablesCompile() throws {
        let committed = ReferenceRunTests.committed.appendingPathComponent("suite/tables"), folder = temporaryFolder()
        let names = try FileManager.default.contentsOfDirectory(atPath: committed.path).sorted()
        #expect(names.contains("identified.tex") && names.filter { $0.hasPrefix("matrix-") }.count >= 20)
        for name in names { try FileManager.default.copyItem(at: committed.appendingPathComponent(name), to: folder.appendingPathComponent(name)) }
        let labels = names.filter { $0.hasSuffix(".tex") && $0 != "tables.tex" }.map { "tab:" + $0.dropLast(4) }
        let document = try Self.compile(folder, labels: labels, figuresDrawn: false)
        #expect(document.contains("Identified"))
    }

    /// Compiles tables.tex in `folder` (pdflatex, bibtex, pdflatex twice): no error, no undefined citation
    /// or reference, no overfull line, no missing file or figure, no bitmap (Type 3) font, every label
    /// set. The PDF's text.
    static func compile(_ folder: URL, labels: [String], figuresDrawn: Bool = true) throws -> String {
        let pdflatex = ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "tables.tex"]
        let cites = try String(contentsOf: folder.appendingPathComponent("tables.tex"), encoding: .utf8).contains("\\bibliography{references}")
        for command in [pdflatex] + (cites ? [["bibtex", "tables"]] : []) + [pdflatex, pdflatex] {
            let status = try run(command, in: folder)
            try #require(status == 0, "\(command.joined(separator: " ")) failed (\(status)): see \(folder.path)/tables.log (Debian's TeX: scripts/setup.sh texlive-latex-recommended)")
        }
        let log = try String(contentsOf: folder.appendingPathComponent("tables.log"), encoding: .utf8)
        for trouble in ["Overfull \\hbox", "undefined", "Undefined", "No file", "Warning"] { #expect(!log.contains(trouble), "tables.log says \(trouble)") }
        if cites {
            let bibliography = try String(contentsOf: folder.appendingPathComponent("tables.blg"), encoding: .utf8)
            #expect(!bibliography.contains("Warning--"), "\(bibliography)")
        }
        let aux = try String(contentsOf: folder.appendingPathComponent("tables.aux"), encoding: .utf8)
        for label in labels { #expect(aux.contains("\\newlabel{\(label)}"), "\(label) is not in the document") }
        #expect(!(try output(["pdffonts", "tables.pdf"], in: folder)).contains("Type 3"), "tables.pdf has a bitmap (Type 3) font")
        let text = try output(["pdftotext", "tables.pdf", "-"], in: folder)
        if figuresDrawn { #expect(!text.contains("was not drawn"), "a figure is missing from tables.pdf") }
        return text
    }

    /// A command's standard output; it must succeed.
    static func output(_ command: [String], in folder: URL) throws -> String {
        let process = Process(), pipe = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        process.currentDirectoryURL = folder
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try start(process)
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "\(command.joined(separator: " ")) failed in \(folder.path) (poppler-utils: scripts/setup.sh poppler-utils)")
        return String(decoding: data, as: UTF8.self)
    }

    /// Runs a command (found on PATH) in `folder`, its output discarded; its exit status.
    static func run(_ command: [String], in folder: URL) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        process.currentDirectoryURL = folder
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try start(process)
        process.waitUntilExit()
        return process.terminationStatus
    }
}
