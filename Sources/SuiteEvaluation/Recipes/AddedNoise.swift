import Degradation
import DSP
import Evaluation

/// Test 3: test 1's crop with noise added.
public struct AddedNoise: QueryRecipe {
    public static let kind = "added-noise"
    public var noise: NoiseSpec
    public init(noise: NoiseSpec) { self.noise = noise }
    public var recordings: [String] { noise.recordings }
    public func stages(_ planner: QueryPlanner, random: SeededNoise) throws -> [any Degradation] { try planner.stages(StageSpec(NoiseStage(noise))) }
}
