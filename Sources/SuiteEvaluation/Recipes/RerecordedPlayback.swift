import Degradation
import DSP
import Evaluation

/// Test 4: the reference played through a loudspeaker and recorded by a microphone, simulated.
public struct RerecordedPlayback: QueryRecipe {
    public static let kind = "rerecorded-playback"
    public var playback: PlaybackSpec
    public init(playback: PlaybackSpec) { self.playback = playback }
    public var recordings: [String] { playback.recordings }
    public var simulated: Bool { true }
    public func stages(_ planner: QueryPlanner, random: SeededNoise) throws -> [any Degradation] {
        try planner.playbackStages(playback, random: random)
    }
}
