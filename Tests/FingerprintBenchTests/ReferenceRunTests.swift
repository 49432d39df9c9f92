import Foundation
import SuiteEvaluation
import Testing

/// The small reference run (`scripts/ci-reference.sh`: the thesis suite on `ci`, the benchmark on
/// `catalog-ci`) against its committed outputs in Reports/ci-reference, byte for byte, as the main job
/// checks the full reference: a change that moves any score, rate or answer fails here until the run is
/// regenerated and what moved is committed.
@Suite struct ReferenceRunTests {
    static let committed = repositoryRoot.appendingPathComponent("Reports/ci-reference")
    static let files = ["suite/summary.md", "suite/results.csv", "benchmark/metrics.csv", "benchmark/answers.csv"]

    /// The LaTeX each part wrote (`tables/`), every file compared; a table written or lost fails too.
    static func tables(in folder: URL) -> [String] {
        ["suite", "benchmark"].flatMap { part in
            ((try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("\(part)/tables").path)) ?? []).map { "\(part)/tables/\($0)" }
        }.sorted()
    }

    /// Where two texts first differ: the line number and both lines, or nil when they are the same.
    static func firstDifference(_ committed: String, _ now: String) -> String? {
        guard committed != now else { return nil }
        let a = committed.components(separatedBy: "\n"), b = now.components(separatedBy: "\n")
        let line = zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(a.count, b.count)
        return "line \(line + 1): committed \"\(line < a.count ? a[line] : "(end)")\", now \"\(line < b.count ? b[line] : "(end)")\""
    }

    @Test func theSmallReferenceRunReproducesItsCommittedOutputs() throws {
        let out = temporaryFolder()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [repositoryRoot.appendingPathComponent("scripts/ci-reference.sh").path, out.path]
        process.currentDirectoryURL = repositoryRoot
        process.environment = ProcessInfo.processInfo.environment.merging(["FPBENCH": builtFPBench.path]) { _, new in new }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try start(process)
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "scripts/ci-reference.sh \(out.path) failed (exit status \(process.terminationStatus))")
        let tables = Self.tables(in: Self.committed)
        #expect(tables.count > 10 && tables == Self.tables(in: out), "the tables written are not the committed ones: \(Self.tables(in: out))")
        for file in Self.files + tables {
            let committed = try String(contentsOf: Self.committed.appendingPathComponent(file), encoding: .utf8)
            let now = try String(contentsOf: out.appendingPathComponent(file), encoding: .utf8)
            let moved = Self.firstDifference(committed, now)
            #expect(moved == nil, "Reports/ci-reference/\(file) moved at \(moved ?? ""): if that is meant, run scripts/ci-reference.sh Reports/ci-reference and commit it, saying what moved and why")
        }
    }

    @Test func aDifferenceIsNamedByItsLine() {
        #expect(Self.firstDifference("a\nb\nc", "a\nb\nc") == nil)
        #expect(Self.firstDifference("a\nb\nc", "a\nx\nc") == "line 2: committed \"b\", now \"x\"")
        #expect(Self.firstDifference("a\nb", "a\nb\nc") == "line 3: committed \"(end)\", now \"c\"")
    }
}
