@testable import AudioIO
@testable import BenchmarkEvaluation
@testable import Degradation
@testable import Evaluation
@testable import Fingerprinting
import Foundation
@testable import OutsidePrograms
@testable import SuiteEvaluation
import Testing

/// docs/operating-settings.md is the one table of the tool's operating numbers: every row's value is the
/// code's, and every number listed here has its row.
@Suite struct OperatingSettingsTests {
    static let code: [String: Double] = [
        "workingRate": workingRate,
        "Catalog.defaultVerified": Double(Catalog.defaultVerified),
        "Benchmark.answersKept": Double(Benchmark.answersKept),
        "Constellation.Parameters.commonHashLimit": Double(Constellation.Parameters().commonHashLimit),
        "Panako.Parameters.commonHashLimit": Double(Panako.Parameters().commonHashLimit),
        "QuadFingerprinting.commonHashLimit": Double(QuadFingerprinting.commonHashLimit),
        "LSHIndex.commonKeyLimit": Double(LSHIndex.commonKeyLimit),
        "WordLookup.commonWordLimit": Double(WordLookup<HKFingerprint>.commonWordLimit),
        "KeyCounts.floor": Double(KeyCounts.floor),
        "CatalogSlices.ghostBefore": CatalogSlices.ghostBefore,
        "IndexFile.blockSize": Double(IndexFile.blockSize),
        "Calibration.standardConfidence": Calibration.standardConfidence,
        "Calibration.fewestHeldOutRecordings": Double(Calibration.fewestHeldOutRecordings),
        "Calibration.largestRecordingShare": Calibration.largestRecordingShare,
        "Calibration.barelyLonger": Calibration.barelyLonger,
        "AudioReader.headerSlack": AudioReader.headerSlack,
        "MediaFile.seekPreroll": MediaFile.seekPreroll,
        "KeepAudio.defaultLimitMegabytes": Double(KeepAudio.defaultLimitMegabytes),
        "FingerprintCache.staleTemporaryAge": FingerprintCache.staleTemporaryAge,
        "ProgressReporter.plainInterval": ProgressReporter.plainInterval,
        "ProgressReporter.redrawInterval": ProgressReporter.redrawInterval,
        "ChildRun.outputLimit": Double(ChildRun.outputLimit),
        "ExternalCommand.defaultTimeoutSeconds": ExternalCommand.defaultTimeoutSeconds,
        "ExternalAlgorithm.contextSeconds": ExternalAlgorithm.contextSeconds,
        "VectorSearch.exactLimit": Double(VectorSearch.exactLimit),
        "VectorMatching.defaultNeighbours": Double(VectorMatching.defaultNeighbours),
        "BenchmarkMetrics.exactTolerance": BenchmarkMetrics.exactTolerance,
        "PairYardstick.seconds": PairYardstick.seconds,
        "SimulatedRoom.solvingRate": SimulatedRoom.solvingRate,
        "SimulatedRoom.flatSolvingRate": SimulatedRoom.flatSolvingRate,
    ]

    @Test func theTableIsTheCodes() throws {
        let page = try String(contentsOf: repositoryRoot.appendingPathComponent("docs/operating-settings.md"), encoding: .utf8)
        var table: [String: Double] = [:]
        for line in page.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            let name = cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            table[name] = try #require(Double(cells[1]), "\(name): \(cells[1]) is not a number")
        }
        for (name, value) in Self.code.sorted(by: { $0.key < $1.key }) {
            #expect(table[name] == value, "\(name): the table says \(table[name].map { "\($0)" } ?? "nothing"), the code \(value)")
        }
        #expect(Set(table.keys) == Set(Self.code.keys), "rows without a check: \(Set(table.keys).subtracting(Self.code.keys).sorted())")
    }
}
