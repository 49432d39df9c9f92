import Foundation
import XCTest

/// End to end through the built `fpbench` executable, as a user runs it.
final class CommandLineTests: XCTestCase {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func fpbench(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        let process = Process()
        process.executableURL = root.appendingPathComponent(".build/debug/fpbench")
        process.arguments = arguments
        process.currentDirectoryURL = root
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile(), err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }

    func testInfoPrintsGoodFilesAndNamesBadOnes() throws {
        let good = "Datasets/ci/audio/birds/petrel-XC663885.wav"
        let result = try fpbench(["info", good, "no/such/file.flac"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.output.contains("\(good): WAV (Microsoft) / Signed 16 bit PCM, 2 ch, 44100 Hz, 15.381 s"), result.output)
        XCTAssertTrue(result.errors.contains("no/such/file.flac: no such file"), result.errors)
    }

    func testRunWritesTheReportAndReportRegeneratesIt() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("fpbench-cli-\(UUID().uuidString)")
        let run = try fpbench(["run", "--dataset", "ci", "--algorithms", "haitsma-kalker", "--tests", "test1-cropping",
                               "--out", out.path, "--no-cache"])
        XCTAssertEqual(run.status, 0, run.errors)
        let summary = try String(contentsOf: out.appendingPathComponent("summary.md"), encoding: .utf8)
        XCTAssertTrue(summary.contains("| haitsma-kalker | [2/2 · "), summary)
        try FileManager.default.removeItem(at: out.appendingPathComponent("summary.md"))
        XCTAssertEqual(try fpbench(["report", out.appendingPathComponent("results.json").path]).status, 0)
        XCTAssertEqual(try String(contentsOf: out.appendingPathComponent("summary.md"), encoding: .utf8), summary)
    }

    func testUnknownAlgorithmIsAClearUsageError() throws {
        let result = try fpbench(["compare", "-a", "nope", "a.wav", "b.wav"])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.errors.contains("unknown algorithm 'nope'"), result.errors)
    }

    func testSweepTakesNegativeLevelsAndRefusesBadGrids() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("fpbench-cli-\(UUID().uuidString)")
        let sweep = try fpbench(["sweep", "noise", "--dataset", "ci", "--algorithms", "chroma-baseline", "--from", "-40", "--to", "-30",
                                 "--step", "10", "--out", out.path, "--no-cache"])
        XCTAssertEqual(sweep.status, 0, sweep.errors)
        XCTAssertTrue(try String(contentsOf: out.appendingPathComponent("sweep.md"), encoding: .utf8).contains("-40"))
        for (arguments, message) in [(["--step", "1e-300"], "at most 1000"), (["--from", "nan"], "finite"), (["--to", "inf"], "finite"),
                                     (["--tolerance", "0"], "--tolerance must be a positive number"), (["--kind", "nothing"], "--kind nothing"),
                                     (["--unit", "db"], "'dbfs' and 'snr'")] {
            let result = try fpbench(["sweep", "noise", "--dataset", "ci"] + arguments)
            XCTAssertNotEqual(result.status, 0, "\(arguments)")
            XCTAssertTrue(result.errors.contains(message), "\(arguments): \(result.errors)")
            XCTAssertFalse(result.errors.contains("Backtrac"), "\(arguments) crashed")
        }
    }
}
