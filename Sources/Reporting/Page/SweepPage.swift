import Evaluation
import Foundation
import Sweeps

/// A sweep folder's report.html: sweep.md with its figures inline (the diagonal chart too). A sweep
/// keeps its rates per level, not its answers: the queries behind a point are those of a run or a
/// benchmark at that level (the page says which command lists them).
enum SweepPage {
    static func write(_ record: SweepRecord, markdown: String, to folder: URL) throws {
        var page = HTMLPage(title: "Sweep: \(record.axis), \(record.dataset)")
        page.add(MarkdownHTML(folder: folder).render(markdown))
        if let svg = try? String(contentsOf: folder.appendingPathComponent("diagonal.svg"), encoding: .utf8) {
            page.add("<figure data-file=\"diagonal.svg\">\(HTMLPage.inlineSVG(svg))</figure>\n")
        }
        page.add("<p>A sweep keeps each level's rates, not its answers. To see and hear the queries behind a point, run that level alone: "
                 + "<code>fpbench run</code> (or <code>fpbench benchmark</code>) with the level's stage in a suite or spec file and "
                 + "<code>--keep-audio failures</code>; its report.html lists every answer.</p>\n")
        try page.write(to: folder)
    }
}
