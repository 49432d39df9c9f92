import Degradation
import Evaluation
import Fingerprinting

extension ContentKeys {
    func excerpt(_ e: Excerpt) -> String { "excerpt|\(file(e.file))|\(e.start)|\(e.duration)|\(workingRate)" }

    /// A query is fixed by the run's seed, its test (every field), its source and draw, its excerpt and the
    /// recordings its stages use.
    func query(_ test: TestDefinition, source: String, draw: Int, excerpt cut: Excerpt) -> String {
        let definition = Self.definition(test, fallback: test.id)
        return "query|seed \(seed)|\(definition)|\(source)\(draw == 0 ? "" : "|draw \(draw)")|\(excerpt(cut))|\(recordings(test.recipe.recordings))|degradations \(degradationRevision)"
    }
}
