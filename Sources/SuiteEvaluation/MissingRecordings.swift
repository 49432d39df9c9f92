import AudioIO
import Evaluation

/// Tests whose stages name a recording (a noise, an impulse response) the run cannot have: not in the dataset
/// nor at that path (nor, when borrowing, in the project's set), or there but unreadable. Under
/// `MissingRecordingPolicy.refuse` the run is refused before it starts (`RunConfiguration.checked`).
public struct MissingRecordings: Error, CustomStringConvertible {
    /// One test, one recording id it names, and why it cannot be had.
    public struct Gap: Sendable, Equatable {
        public var test: String
        public var id: String
        public var reason: String
    }

    public var gaps: [Gap]
    public var noises: [String]
    public var impulseResponses: [String]

    /// What `suite` names that `recordings` lack; nil when every stage can be built.
    init?(suite: Suite, dataset: Dataset, recordings: RunRecordings) {
        gaps = suite.tests.flatMap { test in
            test.recipe.recordings.compactMap { id in recordings.missing[id].map { Gap(test: test.id, id: id, reason: $0) } }
        }
        guard !gaps.isEmpty else { return nil }
        noises = dataset.manifest.noises.map(\.id)
        impulseResponses = dataset.manifest.impulseResponses.map(\.id)
    }

    public var description: String {
        func list(_ ids: [String]) -> String { ids.isEmpty ? "none" : ids.joined(separator: ", ") }
        return gaps.map { "test '\($0.test)' names '\($0.id)': \($0.reason)\n" }.joined()
            + "The dataset's noises: \(list(noises)); its impulse responses: \(list(impulseResponses)).\n"
            + "Correct the id in the suite file, add the recording to the dataset, leave the test out (--tests), or pass "
            + "--missing-recordings leave-out to run it without the stages that use them (marked † in every table) "
            + "or --missing-recordings borrow to take the project's own where it has them."
    }
}

extension RunConfiguration {
    /// This configuration, or, when its policy refuses, the refusal naming each test's missing recordings.
    public func checked() throws -> RunConfiguration {
        guard settings.missingRecordings == .refuse else { return self }
        let recordings = RunRecordings(suite.tests.flatMap(\.recipe.recordings), dataset: settings.dataset, policy: .refuse)
        if let missing = MissingRecordings(suite: suite, dataset: settings.dataset, recordings: recordings) { throw missing }
        return self
    }
}
