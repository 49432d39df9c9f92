@testable import BenchmarkEvaluation
@testable import Evaluation
import Foundation
@testable import Reporting
@testable import SuiteEvaluation
@testable import Sweeps
import Testing

/// Operating points: which identifiers form a sweep, the Pareto front, the best point within a budget.
@Suite struct OperatingPointTests {
    @Test func identifiersSplitIntoNameParameterAndValue() {
        #expect(OperatingPoints.split("panako@dense@peakBinRadius=15")! == ("panako@dense", "peakBinRadius", "15"))
        #expect(OperatingPoints.split("audfprint@density=20")! == ("audfprint", "density", "20"))
        #expect(OperatingPoints.split("constellation@birdsong") == nil)  // a named variant, not a point
        #expect(OperatingPoints.split("constellation@fanOut=5,peaksPerFrame=3") == nil)  // two settings
        #expect(OperatingPoints.split("constellation") == nil)
    }

    /// A point is on the front when nothing is as accurate at a lower or equal cost; ties keep both only when equal in both.
    @Test func theFrontKeepsOnlyUnbeatenPoints() {
        let points: [(cost: Double?, accuracy: Double)] = [(1, 0.5), (2, 0.4), (2, 0.9), (4, 0.9), (8, 0.95), (nil, 1.0), (8, 0.95)]
        #expect(OperatingPoints.front(points) == [0, 2, 4, 6])
    }

    /// From a benchmark's own results: three points of one algorithm, two of another; the summary names the
    /// best within each budget, the CSV has a row per point, and a figure rings the front.
    @Test func aBenchmarkWithSweptVariantsGetsItsOperatingReport() throws {
        let sizes = ["a@n=1": 0.5, "a@n=2": 2.0, "a@n=3": 8.0, "b@m=1": 3.0, "b@m=2": 20.0]
        let correct = ["a@n=1": 40, "a@n=2": 70, "a@n=3": 75, "b@m=1": 80, "b@m=2": 99]
        let ids = sizes.keys.sorted()
        let operating = try #require(OperatingPoints(
            identifiers: ids + ["c", "d@birdsong"], lengths: [10], conditions: ["clean"],
            correct: { id, _, _ in correct[id].map { Rate($0, of: 100) } },
            cost: { id, _ in sizes[id].map { .init(outsideSystem: id.hasPrefix("b"), mebibytesPerHour: $0, indexingCPUSecondsPerHour: nil, queryCPUMilliseconds: 10 / $0) } }))
        #expect(operating.points.map(\.identifier) == ids)
        #expect(operating.points.filter(\.onSizeFront).map(\.identifier) == ["a@n=1", "a@n=2", "b@m=1", "b@m=2"])
        #expect(operating.best(within: 1, length: 10, condition: "clean")?.identifier == "a@n=1")
        #expect(operating.best(within: 4, length: 10, condition: "clean")?.identifier == "b@m=1")
        #expect(operating.best(within: 16, length: 10, condition: "clean")?.identifier == "b@m=1")
        #expect(operating.best(within: 0.1, length: 10, condition: "clean") == nil)
        let summary = OperatingReport.summary(operating)
        #expect(summary.contains("| ≤ 1 MiB | a@n=1 40 % |") && summary.contains("| ≤ 16 MiB | b@m=1 80 % |"))
        let files = OperatingReport.files(operating)
        #expect(files.map(\.name) == ["operating.csv", "operating-size-10s-clean.svg", "operating-cpu-10s-clean.svg"])
        #expect(files[0].text.split(separator: "\n").count == 1 + ids.count)
        #expect(files[1].text.components(separatedBy: "r=\"7\"").count - 1 == 4)  // the four front points ringed
    }
}
