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

    /// A short name heads its column rotated; a long one (a variant naming a file) is broken onto lines
    /// after "@", "=" and "/", so the rotated heading stays shorter than a page.
    @Test func aLongNameIsBrokenOntoLines() {
        #expect(Table.heading(.text("nafp-small")) == "\\rotatebox{90}{nafp-small}")
        #expect(LaTeX.escaped("a_b & 5% <x> {y} ~z^") == "a\\_b \\& 5\\% \\textless{}x\\textgreater{} \\{y\\} \\textasciitilde{}z\\textasciicircum{}")
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

    @Test func theReferenceRunsTablesCompile() throws {
        let tables = ReferenceRunTests.committed.appendingPathComponent("benchmark/tables"), folder = temporaryFolder()
        let names = try FileManager.default.contentsOfDirectory(atPath: tables.path).sorted()
        #expect(names.filter { $0.hasPrefix("benchmark-") } == ["benchmark-2s.tex", "benchmark-5s.tex"])
        for name in names { try FileManager.default.copyItem(at: tables.appendingPathComponent(name), to: folder.appendingPathComponent(name)) }
        let pdflatex = ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "tables.tex"]
        for command in [pdflatex, ["bibtex", "tables"], pdflatex, pdflatex] {
            let status = try Self.run(command, in: folder)
            try #require(status == 0, "\(command.joined(separator: " ")) failed (\(status)): see \(folder.path)/tables.log (Debian's TeX: scripts/setup.sh texlive-latex-recommended)")
        }
        let log = try String(contentsOf: folder.appendingPathComponent("tables.log"), encoding: .utf8)
        let bibliography = try String(contentsOf: folder.appendingPathComponent("tables.blg"), encoding: .utf8)
        for trouble in ["Overfull \\hbox", "undefined", "Undefined", "No file", "Warning"] { #expect(!log.contains(trouble), "tables.log says \(trouble)") }
        #expect(!bibliography.contains("Warning--"), "\(bibliography)")
        let labels = try String(contentsOf: folder.appendingPathComponent("tables.aux"), encoding: .utf8)
        for table in names where table.hasPrefix("benchmark-") {
            #expect(labels.contains("\\newlabel{tab:\(table.dropLast(4))}"), "\(table) is not in the document")
        }
        let pdf = try Data(contentsOf: folder.appendingPathComponent("tables.pdf"))
        #expect(pdf.starts(with: Data("%PDF".utf8)) && pdf.count > 10_000)
    }

    /// Runs a command (found on PATH) in `folder`, its output discarded; its exit status.
    static func run(_ command: [String], in folder: URL) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        process.currentDirectoryURL = folder
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
