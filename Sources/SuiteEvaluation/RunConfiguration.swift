import Evaluation
import Foundation

/// What to run: the run's settings (read through, `configuration.seed`) and the suite's own choices.
@dynamicMemberLookup
public struct RunConfiguration: Sendable {
    public var settings: RunSettings
    public var suite: Suite
    /// Whether to search each algorithm's catalog (references + distractors); sweeps do not report it.
    public var searchCatalogs = true
    /// Queries per source and test, each with its own seeded crop and draws (the thesis: 1).
    public var queriesPerSource = 1

    public init(_ settings: RunSettings, suite: Suite) {
        self.settings = settings
        self.suite = suite
    }

    public subscript<Value>(dynamicMember path: WritableKeyPath<RunSettings, Value>) -> Value {
        get { settings[keyPath: path] }
        set { settings[keyPath: path] = newValue }
    }
}
