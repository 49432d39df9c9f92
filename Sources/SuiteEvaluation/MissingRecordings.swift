import AudioIO
import Evaluation
/// Tests whose stages name a recording (a noise, an impulse response) the dataset does not have, nor an
/// audio file at that path, or one that is there but cannot be read as audio: a declared input that is
/// missing, so the run is refused before it starts. With
/// `--allow-missing-stages` the tests run without those stages instead, marked in every table.
public struct MissingRecordings: Error, CustomStringConvertible {
    /// One test and one recording id it names.
    public struct Gap: Sendable, Equatable {
        public var test: String
        public var id: String
        /// Why the recording cannot be read, when it is there; nil when it is not there at all.
        public var unreadable: String?
    }

    public var gaps: [Gap]
    public var dataset: String
    public var noises: [String]
    public var impulseResponses: [String]

    /// What `suite` names that `dataset` lacks; nil when every stage can be built.
    public init?(suite: Suite, dataset: Dataset) {
        var unreadable: [String: String] = [:]
        for id in Set(suite.tests.flatMap(\.recipe.recordings)) {
            guard let path = dataset.recordingPath(id) else { continue }
            do { _ = try AudioReader.duration(path) } catch { unreadable[id] = "\(error)" }
        }
        gaps = suite.tests.flatMap { test in
            test.recipe.recordings.filter { dataset.recordingPath($0) == nil || unreadable[$0] != nil }
                .map { Gap(test: test.id, id: $0, unreadable: unreadable[$0]) }
        }
        guard !gaps.isEmpty else { return nil }
        self.dataset = dataset.manifest.name
        noises = dataset.manifest.noises.map(\.id)
        impulseResponses = dataset.manifest.impulseResponses.map(\.id)
    }

    public var description: String {
        func list(_ ids: [String]) -> String { ids.isEmpty ? "none" : ids.joined(separator: ", ") }
        return gaps.map { gap in
            gap.unreadable.map { "test '\(gap.test)' names '\(gap.id)', which cannot be read as audio: \($0)\n" }
                ?? "test '\(gap.test)' names '\(gap.id)', which dataset '\(dataset)' does not have (nor is it an audio file's path)\n"
        }.joined()
            + "The dataset's noises: \(list(noises)); its impulse responses: \(list(impulseResponses)).\n"
            + "Correct the id in the suite file, add the recording to the dataset, leave the test out (--tests), or pass "
            + "--allow-missing-stages to run it without the stages that use the missing recordings (marked † in every table)."
    }
}
