import Evaluation
import Fingerprinting
import Foundation
import FoundationXML
import Reporting
import SuiteEvaluation
import Sweeps
import Testing

@Suite struct SweepTests {
    /// A synthetic curve: accuracy 100 % up to -21.3 dBFS, 0 % above it.
    func synthetic(_ level: Double) -> SweepPoint {
        SweepPoint(algorithm: "x", level: level, identified: level <= -21.3 ? 10 : 0, count: 10, meanDiagonal: nil, meanMargin: nil)
    }

    @Test func bisectionFindsAKnownThreshold() {
        let grid = stride(from: -48.0, through: 0, by: 4).map(synthetic)
        let found = BreakingPoints.find(grid, threshold: 0.9, largerIsHarder: true, tolerance: 0.1, evaluate: synthetic)
        #expect(found.lastAbove?.level == -24 && found.firstBelow?.level == -20)
        #expect(abs(found.level! - -21.3) <= 0.05)
        #expect(found.evaluations.count == 6)  // 4 dB halved to under 0.1 dB
        // Walking the other way (larger is easier, as query length).
        let lengths = stride(from: 0.5, through: 8, by: 0.5).map { l in
            SweepPoint(algorithm: "x", level: l, identified: l >= 2.37 ? 9 : 3, count: 10, meanDiagonal: nil, meanMargin: nil)
        }
        let shortest = BreakingPoints.find(lengths, threshold: 0.9, largerIsHarder: false, tolerance: 0.01) { l in
            SweepPoint(algorithm: "x", level: l, identified: l >= 2.37 ? 9 : 3, count: 10, meanDiagonal: nil, meanMargin: nil)
        }
        #expect(abs(shortest.level! - 2.37) <= 0.005)
    }

    /// Without an evaluator the crossing is interpolated between the bracketing grid levels; on a
    /// two-sided axis each side is walked away from the neutral level.
    @Test func interpolationAndTwoSidedAxes() {
        func point(_ level: Double, _ identified: Int) -> SweepPoint {
            SweepPoint(algorithm: "x", level: level, identified: identified, count: 10, meanDiagonal: nil, meanMargin: nil)
        }
        let grid = [point(0.96, 2), point(0.98, 8), point(1, 10), point(1.02, 10), point(1.04, 0)]
        let found = BreakingPoints.all(grid, axis: .stage(StageAxis(unit: "speed", parameter: "factor")), algorithms: ["x"],
                                       thresholds: [0.5], tolerance: 0, evaluate: nil)
        #expect(found.map(\.side) == ["below", "above"])
        #expect(abs(found[0].level! - 0.97) < 1e-9 && abs(found[1].level! - 1.03) < 1e-9, "\(found.map(\.level))")
        #expect(found[0].tolerance == 0.020000000000000018 || abs(found[0].tolerance - 0.02) < 1e-9)
        let kbps = BreakingPoints.all([point(32, 0), point(64, 10)], axis: .stage(StageAxis(unit: "codec", parameter: "kbps", fixed: ["format": "mp3"])),
                                      algorithms: ["x"], thresholds: [0.5], tolerance: 0, evaluate: nil)
        #expect(kbps.count == 1 && kbps[0].side == nil && abs(kbps[0].level! - 48) < 1e-9, "a lower bitrate is harder")
    }

    @Test func aCurveThatNeverCrossesHasNoBreakingPoint() {
        let flat = [-30.0, -20, -10].map { SweepPoint(algorithm: "x", level: $0, identified: 5, count: 5, meanDiagonal: 1, meanMargin: 1) }
        let found = BreakingPoints.find(flat, threshold: 0.9, largerIsHarder: true, tolerance: 0.5) { _ in Issue.record("no bisection"); return flat[0] }
        #expect(found.level == nil && found.firstBelow == nil && found.lastAbove?.level == -10)
    }

    @Test func aSweepOverALevelThatChangesNothingStaysFlat() throws {
        let base = RunConfiguration(testSettings(try ciDataset(), [try AlgorithmRegistry.algorithm("haitsma-kalker")], seed: 1, missing: .refuse),
                                    suite: .thesis)
        // Noise 300 dB below full scale changes no Float32 sample of a real recording.
        let (points, _) = SweepRunner(base: base, axis: .noise(kind: .whiteUniform, unit: .dbfs)).evaluate([-320, -310, -300])
        #expect(points.count == 3)
        #expect(Set(points.map(\.identified)).count == 1 && Set(points.map(\.meanDiagonal)).count == 1)
        #expect(points[0].accuracy == 1)
        // The control: the same sweep does apply its level (noise at full scale lowers the matching scores).
        let (loud, _) = SweepRunner(base: base, axis: .noise(kind: .whiteUniform, unit: .dbfs)).evaluate([-300, 0])
        #expect((loud[1].meanDiagonal ?? 1) < (loud[0].meanDiagonal ?? 0) - 0.05, "\(loud.map(\.meanDiagonal))")
    }

    @Test func theSVGFilesParseAsXMLWithOneSeriesPerAlgorithm() throws {
        let points = ["a", "b", "c"].flatMap { name in
            [-30.0, -20].map { SweepPoint(algorithm: name, level: $0, identified: 1, count: 2, meanDiagonal: 0.5, meanMargin: 0.1) }
        }
        let folder = temporaryFolder()
        try SweepReport.write(.init(tool: "test", decoder: nil, seed: 1, dataset: "ci", axis: "noise (dBFS)", points: points,
                                    breakingPoints: [], failures: 0, references: 13), to: folder)
        for name in ["accuracy.svg", "diagonal.svg"] {
            let counter = SeriesCounter()
            let parser = XMLParser(data: try Data(contentsOf: folder.appendingPathComponent(name)))
            parser.delegate = counter
            #expect(parser.parse(), "\(name) is not well-formed XML")
            #expect(counter.series == ["a", "b", "c"])
            #expect(counter.texts.contains("noise (dBFS)"))
            #expect(counter.texts.contains("chance") == (name == "accuracy.svg"), "the chance line belongs to the accuracy chart")
        }
        // Its LaTeX (the rate per level, the figures as PDF) compiles clean.
        _ = try LaTeXTablesTests.compile(folder.appendingPathComponent("tables"), labels: ["tab:sweep-levels", "fig:accuracy", "fig:diagonal"])
        // A rate chart: one bar per algorithm and test, the chance line, well-formed.
        let bars = Figures.rateBars(title: "t", yLabel: "identified (%)", groups: ["t1", "t2"], chance: 0.25,
                                    series: [("a", [Rate(3, of: 4), nil]), ("b", [Rate(1, of: 4), Rate(0, of: 4)])])
        let counter = SeriesCounter()
        let parser = XMLParser(data: Data(bars.utf8))
        parser.delegate = counter
        #expect(parser.parse() && counter.texts.contains("chance") && bars.components(separatedBy: "<rect").count - 1 == 1 + 3 + 2)
        let heatmap = Figures.heatmap(SimilarityMatrix(algorithm: "a", test: "t", rows: ["x", "y"], columns: ["x", "y"],
                                                       scores: [[1, 0.2], [nil, 0.9]], rawFigures: [[1, 0.2], [nil, 0.9]],
                                                       offsets: [[0, 0], [nil, 0]]), title: "a & b")
        #expect(XMLParser(data: Data(heatmap.utf8)).parse())
    }
}

/// Collects the `data-name` of every series group and every text node of an SVG.
final class SeriesCounter: NSObject, XMLParserDelegate {
    var series: [String] = []
    var texts: [String] = []
    func parser(_ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        if element == "g", attributes["class"] == "series", let name = attributes["data-name"] { series.append(name) }
    }
    func parser(_ parser: XMLParser, foundCharacters string: String) { texts.append(string) }
}
