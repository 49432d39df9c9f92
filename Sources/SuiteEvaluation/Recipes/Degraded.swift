import Degradation
import DSP
import Evaluation

/// Test 1's crop through any list of stages (`StageSpec`: gain, clipping, compression, filters, speed, tempo, pitch,
/// codec, impulse responses, noise, presets).
public struct Degraded: QueryRecipe {
    public static let kind = "degraded"
    public var stages: [StageSpec]
    public init(stages: [StageSpec]) { self.stages = stages }
    public var recordings: [String] { stages.flatMap(\.recordings) }
    public func stages(_ planner: QueryPlanner, random: SeededNoise) throws -> [any Degradation] { try stages.flatMap(planner.stages) }
}
