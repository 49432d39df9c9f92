import Degradation
import DSP
import Evaluation

/// How a test makes its queries from a source: the seam every test kind plugs into, as algorithms plug
/// into `FingerprintAlgorithm`. A recipe says which recording the query is cut from, which dataset
/// recordings it needs, and which degradation stages follow the crop. Its fields are read from the
/// suite file beside `kind` (and validated there); adding a kind is one file and one line in
/// `QueryRecipes.all`.
public protocol QueryRecipe: Sendable, Codable, Equatable {
    /// The `kind` a suite file names it by: "cropping".
    static var kind: String { get }
    /// The recording the query is cut from; nil skips the source, with `missingExcerpt` as the reason.
    func excerpt(of source: Source) -> Excerpt?
    var missingExcerpt: String { get }
    /// The name of the seeded stream the crop offset is drawn from; tests that share it crop alike
    /// (test 3 is test 1 plus noise).
    var cropStream: String { get }
    /// Dataset recordings (noises, impulse responses) the stages use; a stage whose recording the run cannot have
    /// follows the run's `MissingRecordingPolicy` (left out and the test marked †, when allowed).
    var recordings: [String] { get }
    /// The stages after the crop; `random` is the query's own seeded generator for drawn parameters.
    func stages(_ planner: QueryPlanner, random: SeededNoise) throws -> [any Degradation]
    /// Whether the queries stand in for something the harness cannot do for real (test 4's playback).
    var simulated: Bool { get }
}

extension QueryRecipe {
    public func excerpt(of source: Source) -> Excerpt? { source.reference }
    public var missingExcerpt: String { "no recording to cut from" }
    public var cropStream: String { "crop" }
    public var recordings: [String] { [] }
    public func stages(_ planner: QueryPlanner, random: SeededNoise) throws -> [any Degradation] { [] }
    public var simulated: Bool { false }

    func isEqual(_ other: any QueryRecipe) -> Bool { (other as? Self) == self }
}

/// Every test kind a suite file may name. Adding a kind means adding one line here.
public enum QueryRecipes {
    public static let all: [any QueryRecipe.Type] = [
        Cropping.self,
        DifferentRecording.self,
        AddedNoise.self,
        RerecordedPlayback.self,
        Degraded.self,
    ]
}
