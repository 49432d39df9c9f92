import Fingerprinting
import AudioIO
import Degradation
import DSP
import Evaluation
import Foundation

/// Turns a test and a source into the query's degradation chain: which excerpt, where the crop falls,
/// and every stage with its parameters, all fixed by the run's seed. The test's recipe says what is
/// particular to its kind.
public struct QueryPlanner: Sendable {
    let seed: UInt64
    /// What building a stage needs: the noise recordings and impulse responses, at the working rate, by id,
    /// and whether a stage whose recording is missing is left out.
    let context: StageContext

    struct Plan {
        /// Which of the source's queries in this test (0 for the first).
        var draw: Int
        var excerpt: Excerpt
        var chain: DegradationChain
        var simulated: Bool
    }

    enum Outcome {
        case planned(Plan)
        case skipped(String)
    }

    /// The `draw`th query of a source in a test; draw 0 is the thesis's single query, and each further
    /// draw takes its crop and its drawn parameters from streams of its own.
    func plan(_ test: TestDefinition, source: Source, draw: Int = 0, excerptDuration: (Excerpt) -> Double) throws -> Outcome {
        let recipe = test.recipe
        guard let excerpt = recipe.excerpt(of: source) else { return .skipped(recipe.missingExcerpt) }
        let available = excerptDuration(excerpt)
        guard available >= test.queryDuration else {
            return .skipped(String(format: "excerpt is %.2f s, the query needs %.2f s", available, test.queryDuration))
        }
        let names = draw == 0 ? [source.id] : [source.id, "draw \(draw)"]
        let cropDraw = SeededNoise(seed: derivedSeed(seed, [recipe.cropStream] + names)).unit()
        var offset = cropDraw * (available - test.queryDuration)
        if let grid = test.cropGrid, grid > 0 { offset = (offset / grid).rounded(.down) * grid }
        let chainSeed = derivedSeed(seed, [test.id] + names)
        let stages: [any Degradation] = [Crop(start: offset, duration: test.queryDuration)]
            + (try recipe.stages(self, random: SeededNoise(seed: derivedSeed(chainSeed, "draws"))))
        return .planned(Plan(draw: draw, excerpt: excerpt, chain: DegradationChain(stages, seed: chainSeed), simulated: recipe.simulated))
    }

    /// The degradation units a stage spec stands for (a preset: several).
    public func stages(_ spec: StageSpec) throws -> [any Degradation] { try spec.stages(context) }

    /// Test 4's chain (`PlaybackSpec.stages`), drift and delay drawn from `random`.
    public func playbackStages(_ p: PlaybackSpec, random: SeededNoise) throws -> [any Degradation] { try p.stages(context, random: random) }
}
