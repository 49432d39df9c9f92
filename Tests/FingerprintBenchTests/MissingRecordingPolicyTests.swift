import AudioIO
import Degradation
import Evaluation
import Fingerprinting
import Foundation
import SuiteEvaluation
import Testing

/// One missing-recording policy for every run: a suite whose added-noise test names a noise the dataset lacks and
/// whose degraded test names an impulse response it lacks is refused, runs without those stages (marked), or
/// borrows what the project's set has, each on real queries of the CI dataset.
@Suite(.serialized) struct MissingRecordingPolicyTests {
    private let suiteText = """
        {"name": "gaps", "tests": [
          {"id": "noisy", "title": "crowd noise", "kind": "added-noise", "noise": {"kind": "crowd", "level": {"snr": {"dB": 0}}}},
          {"id": "hall", "title": "a hall, then quieter", "kind": "degraded", "stages": [{"impulse": {"id": "hall-7"}}, {"gain": {"dB": -6}}]}]}
        """

    private func configuration(_ policy: MissingRecordingPolicy, projectSet: Dataset? = nil) throws -> RunConfiguration {
        let file = temporaryFolder().appendingPathComponent("suite.json")
        try Data(suiteText.utf8).write(to: file)
        var c = RunConfiguration(testSettings(try ciDataset(), [try AlgorithmRegistry.algorithm("haitsma-kalker")], seed: 2013, missing: .refuse),
                                 suite: try Suite.load(file.path))
        c.missingRecordings = policy
        c.searchCatalogs = false
        c.projectSet = { projectSet }
        return c
    }

    @Test func refusedBeforeTheRunNamingEachTestAndRecording() throws {
        #expect { try configuration(.refuse).checked() } throws: { error in
            let text = "\(error)"
            return text.contains("test 'noisy' names 'crowd': not in dataset 'ci'") && text.contains("test 'hall' names 'hall-7'")
                && text.contains("--missing-recordings leave-out")
        }
        #expect(throws: Never.self) { try configuration(.leaveOut).checked() }
    }

    @Test func leftOutStagesAreMarkedAndNoQueryFails() throws {
        let results = Runner(try configuration(.leaveOut)).run()
        #expect(results.failures.isEmpty, "\(results.failures)")
        #expect(results.tests.map(\.stagesLeftOut) == [["crowd"], ["hall-7"]])
        let noisy = try #require(results.test("noisy")), hall = try #require(results.test("hall"))
        #expect(noisy.queries.count == 2 && noisy.queries.allSatisfy { $0.degradations.map(\.name) == ["crop"] })
        #expect(hall.queries.allSatisfy { $0.degradations.map(\.name) == ["crop", "gain"] })
        #expect(results.skipped.map(\.test) == ["noisy", "hall"] && results.dataset.borrowed == nil)
        // Without the noise, test "noisy" is test 1's crop: identified like it.
        #expect(results.matrix(algorithm: "haitsma-kalker", test: "noisy")?.rows.count == 2)
    }

    @Test func borrowedRecordingsAreUsedCheckedAndNamed() throws {
        let project = try projectSetStandIn(noise: "crowd")
        let results = Runner(try configuration(.borrow, projectSet: project)).run()
        #expect(results.failures.isEmpty, "\(results.failures)")
        #expect(results.dataset.borrowed == [BorrowedRecording(id: "crowd", dataset: project.manifest.name, file: "noises/crowd.wav",
                                                                sha256: try sha256Hex(file: project.path("noises/crowd.wav")))])
        // The noise came from the project; the impulse response it lacks too is left out, marked.
        #expect(results.test("noisy")?.stagesLeftOut == nil && results.test("hall")?.stagesLeftOut == ["hall-7"])
        #expect(results.test("noisy")!.queries.allSatisfy { $0.degradations.map(\.name) == ["crop", "noise"] })
        let leftOut = Runner(try configuration(.leaveOut)).run()
        #expect(leftOut.runID != results.runID, "a borrowed recording is part of what determined the run")

        // A project recording that no longer matches its manifest is not borrowed.
        try Data(repeating: 0, count: 64).write(to: URL(fileURLWithPath: project.path("noises/crowd.wav")))
        let changed = Runner(try configuration(.borrow, projectSet: project)).run()
        #expect(changed.dataset.borrowed == nil && changed.test("noisy")?.stagesLeftOut == ["crowd"])
        #expect(changed.skipped.contains { $0.reason.contains("does not match its manifest's checksum") })
    }
}
