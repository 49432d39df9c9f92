import Foundation
@testable import Evaluation
@testable import Reporting
import Testing

/// report.html: built from real runs on the small real-audio datasets, opened in Debian's Chromium
/// (headless) where it is installed, and the progress lines that long commands print.
@Suite struct ReportPageTests {
    static let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Chromium headless on `page` (with `hash`), killed after a minute: its standard output.
    func headless(_ arguments: [String], page: URL, hash: String = "") throws -> String {
        guard let chromium = Self.chromium else { try unavailable("Chromium is not installed (scripts/setup.sh chromium installs it)") }
        let process = Process(), output = Pipe()
        process.executableURL = URL(fileURLWithPath: chromium)
        process.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=5000"] + arguments + [page.absoluteString + hash]
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try start(process)
        let timer = DispatchWorkItem { process.terminate() }
        DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: timer)
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        timer.cancel()
        return text
    }

    /// The page's list of answers, decoded: each row's values by column name.
    func answers(in page: String) throws -> [[String: String]] {
        let start = try #require(page.range(of: "<script type=\"application/json\" id=\"query-data\">")), end = try #require(page.range(of: "</script>", range: start.upperBound..<page.endIndex))
        let json = page[start.upperBound..<end.lowerBound].replacingOccurrences(of: "<\\/", with: "</")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let columns = try #require(object["columns"] as? [[String: Any]]), widths = try #require(object["widths"] as? [Int])
        let count = try #require(object["rowCount"] as? Int), packed = Array(try #require(object["packed"] as? String).utf8)
        // Each row's indices as base-64 digits, `widths[c]` of them for column c.
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+-".utf8)
        var position = 0
        let rows = (0..<count).map { _ in
            widths.map { width in
                (0..<width).reduce(0) { value, _ in
                    defer { position += 1 }
                    return value * 64 + alphabet.firstIndex(of: packed[position])!
                }
            }
        }
        #expect(position == packed.count)
        return rows.map { row in
            Dictionary(uniqueKeysWithValues: zip(columns, row).map { column, i in (column["name"] as! String, (column["values"] as! [String])[i]) })
        }
    }

    /// Every `src="..."` of an audio element in a DOM.
    func players(_ dom: String) -> [String] {
        dom.components(separatedBy: "<audio").dropFirst().compactMap { $0.components(separatedBy: "src=\"").dropFirst().first?.components(separatedBy: "\"").first }
    }

    func count(_ needle: String, in text: String) -> Int { text.components(separatedBy: needle).count - 1 }

    @Test func benchmarkPageListsEveryAnswerAndPlaysFailuresInChromium() throws {
        let out = temporaryFolder()
        let run = try runFPBench(["benchmark", "--dataset", "catalog-ci", "--queries", "10", "--negatives", "10", "--lengths", "2", "5",
                                  "--algorithms", "constellation", "haitsma-kalker", "--keep-audio", "failures", "--progress", "plain", "--out", out.path])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.errors.contains("querying 40/40 (100 %)") && run.errors.contains("kept audio: "), "\(run.errors)")
        let page = try String(contentsOf: out.appendingPathComponent("report.html"), encoding: .utf8)
        #expect(page.utf8.count < 5_000_000)
        let outside = page.replacingOccurrences(of: "xmlns=\"http://www.w3.org/2000/svg\"", with: "")
        #expect(!(outside.contains("http://") || outside.contains("https://")), "the page loads something from the network")
        let figures = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0.hasSuffix(".svg") }
        #expect(figures.count == 4)  // detection and scores, per length
        for figure in figures { #expect(page.contains("data-file=\"\(figure)\""), "\(figure) is not on the page") }
        // Every answer of answers.csv is listed, failing ones first, and each failing one's query audio exists.
        let listed = try answers(in: page)
        let csvRows = try String(contentsOf: out.appendingPathComponent("answers.csv"), encoding: .utf8).split(separator: "\n").count - 1
        #expect(listed.count == csvRows)
        let failing = listed.filter { !["correct", "no match (negative: right)"].contains($0["outcome"]!) }
        #expect(!failing.isEmpty)
        #expect(Array(listed.prefix(failing.count)).map { $0["outcome"]! } == failing.map { $0["outcome"]! })
        for answer in failing {
            let audio = try #require(answer["query audio"])
            #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent(audio).path), "\(answer)")
        }
        // In the browser: a cell of the 5 s table opens the failing answers of constellation under speed-0.95 with players.
        let summary = try String(contentsOf: out.appendingPathComponent("summary.md"), encoding: .utf8)
        let link = "#q:algorithm=constellation&amp;condition=speed-0.95&amp;length=5"
        #expect(page.contains("href=\"\(link)\""), "no cell opens constellation's speed-0.95 answers")
        let dom = try headless(["--dump-dom"], page: out.appendingPathComponent("report.html"), hash: link.replacingOccurrences(of: "&amp;", with: "&"))
        #expect(count("<table", in: dom) == summary.split(separator: "\n").filter { $0.hasPrefix("|---") }.count + 1)
        #expect(count("<svg", in: dom) >= figures.count)
        #expect(dom.contains("<select><option value=\"\">all</option>") || dom.contains("<option value=\"constellation\">"))
        let sources = players(dom)
        #expect(!sources.isEmpty, "no player for a failing answer")
        for source in sources { #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent(source).path), "\(source)") }
        try screenshot(out)
    }

    @Test func suitePageShowsHeatMapsAndFailingQueriesInChromium() throws {
        let out = temporaryFolder()
        let run = try runFPBench(["run", "--dataset", "ci", "--algorithms", "maa-thesis", "constellation", "--tests", "test1-cropping", "test3-noise-1.58",
                                  "--queries-per-source", "2", "--keep-audio", "failures", "--quiet", "--out", out.path])
        #expect(run.status == 0, "\(run.errors)")
        #expect(!run.errors.contains("fingerprinting "), "--quiet printed progress: \(run.errors)")
        let page = try String(contentsOf: out.appendingPathComponent("report.html"), encoding: .utf8)
        for algorithm in ["maa-thesis", "constellation"] {
            for test in ["test1-cropping", "test3-noise-1.58"] {
                #expect(page.contains("id=\"m-\(algorithm)-\(test)\""), "no heat map of \(algorithm)/\(test)")
                #expect(page.contains("href=\"#q:algorithm=\(algorithm)&amp;test=\(test)\""), "no cell opens \(algorithm)/\(test)")
            }
        }
        #expect(page.contains("data-file=\"identified.svg\""))
        let listed = try answers(in: page)
        #expect(listed.count == 2 * 2 * 2 * 2)  // algorithms × tests × sources × queries per source
        let failing = listed.filter { $0["outcome"] == "not identified" }
        #expect(!failing.isEmpty, "the MAA identifies everything?")
        let failure = failing[0]
        for column in ["query audio", "should have matched", "did match"] {
            #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent(failure[column]!).path), "\(column): \(failure)")
        }
        let dom = try headless(["--dump-dom"], page: out.appendingPathComponent("report.html"),
                               hash: "#q:algorithm=\(failure["algorithm"]!)&test=\(failure["test"]!)&outcome=not%20identified")
        #expect(dom.contains("<td>not identified</td>"))
        #expect(!dom.contains("<td>identified</td>"), "the filter kept identified queries")
        for source in players(dom) { #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent(source).path), "\(source)") }
        #expect(!players(dom).isEmpty)
        try screenshot(out)
    }

    /// report.png beside the page: a tall window, the page from its top.
    func screenshot(_ folder: URL) throws {
        let png = folder.appendingPathComponent("report.png")
        _ = try headless(["--window-size=1400,2600", "--screenshot=\(png.path)"], page: folder.appendingPathComponent("report.html"))
        let data = try Data(contentsOf: png)
        #expect(Array(data.prefix(4)) == [0x89, 0x50, 0x4E, 0x47])
        #expect(data.count > 20_000, "a blank screenshot")
        print("screenshot: \(png.path)")
    }

    @Test func progressLinesChangeNoOutputFile() throws {
        let plain = temporaryFolder(), quiet = temporaryFolder()
        let arguments = ["benchmark", "--dataset", "catalog-ci", "--queries", "4", "--negatives", "4", "--lengths", "5", "--algorithms", "haitsma-kalker",
                         "--conditions", "clean", "white-0dB", "--no-cache"]
        let a = try runFPBench(arguments + ["--progress", "plain", "--out", plain.path]), b = try runFPBench(arguments + ["--quiet", "--out", quiet.path])
        #expect(a.status == 0, "\(a.errors)")
        #expect(b.status == 0, "\(b.errors)")
        #expect(a.errors.contains("indexing 7/7 (100 %)") && a.errors.contains("querying 8/8 (100 %)"), "\(a.errors)")
        #expect(!(b.errors.contains("indexing") || b.errors.contains("querying")), "\(b.errors)")
        // Keeping every answer's audio, capped at 3 MB (two answers' three 5 s files at 44.1 kHz), changes no result either, and keeps to its cap.
        let kept = temporaryFolder()
        let c = try runFPBench(arguments + ["--quiet", "--keep-audio", "all", "--keep-audio-limit", "3", "--out", kept.path])
        #expect(c.status == 0, "\(c.errors)")
        let wavs = (FileManager.default.enumerator(at: kept, includingPropertiesForKeys: [.fileSizeKey])?.compactMap { $0 as? URL } ?? [])
            .filter { $0.pathExtension == "wav" }
        let bytes = try wavs.reduce(0) { $0 + (try $1.resourceValues(forKeys: [.fileSizeKey]).fileSize ?? 0) }
        #expect(!wavs.isEmpty)
        #expect(bytes <= 3_000_000)
        for file in ["results.json", "answers.csv", "metrics.csv"] {
            try #expect(Data(contentsOf: plain.appendingPathComponent(file)) == Data(contentsOf: quiet.appendingPathComponent(file)), "\(file)")
            try #expect(Data(contentsOf: plain.appendingPathComponent(file)) == Data(contentsOf: kept.appendingPathComponent(file)), "\(file)")
        }
    }

    @Test func progressLineSaysRateAndTimeLeft() {
        #expect(ProgressReporter.describe(phase: "indexing", done: 30, total: 120, elapsed: 15) == "indexing 30/120 (25 %), 2.0/s, 0:45 left")
        #expect(ProgressReporter.describe(phase: "querying", done: 0, total: 80, elapsed: 31) == "querying 0/80 (0 %), 0:31 so far")
        #expect(ProgressReporter.describe(phase: "keeping audio", done: 5, total: 5, elapsed: 4000) == "keeping audio 5/5 (100 %), 800.0 s each, took 1:06:40")
    }

    @Test func markdownBecomesHTMLWithLinkedCells() {
        // A cell links by what the table model says it holds, whatever heading the table sits under; a table
        // written by hand, even one alike but for a value, links nothing.
        var rate = Table.Cell(markdown: "**99**", latex: "99")
        rate.filter = ["algorithm": "panako", "condition": "clean"]
        let model = Table(columns: [Table.Column("algorithm"), Table.Column("clean")], rows: [[.text("panako"), rate]])
        let html = MarkdownHTML(folder: temporaryFolder(), linking: [model])
        #expect(html.inline("**9** [a-b] · `x<y` [m](matrices/a/t.md)") == "<strong>9</strong> [a-b] · <code>x&lt;y</code> <a href=\"matrices/a/t.md\">m</a>")
        let page = html.render("## Any heading\n\n" + model.markdown + "\n![missing](none.svg)\n\n| algorithm | clean |\n|---|---|\n| panako | **98** |\n")
        #expect(page.contains("<h3 id=\"any-heading\">Any heading</h3>"), "\(page)")
        #expect(page.contains("<td><a class=\"to-queries\" href=\"#q:algorithm=panako&amp;condition=clean\"><strong>99</strong></a></td>"), "\(page)")
        #expect(page.contains("<td><strong>98</strong></td>"), "\(page)")
        #expect(page.contains("figure none.svg is missing"), "\(page)")
    }
}
