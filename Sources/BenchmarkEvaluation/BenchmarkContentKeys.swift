import Degradation
import Evaluation

extension ContentKeys {
    /// A benchmark query under a condition: its window, the condition (every field), its chain seed and
    /// the recordings its stages use.
    func benchmarkQuery(_ q: BenchmarkQuery, condition: BenchmarkCondition, seed chainSeed: UInt64) -> String {
        let definition = Self.definition(condition, fallback: condition.id)
        return "benchmark|\(file(q.file))|\(q.start)|\(q.length)|\(definition)|seed \(chainSeed)|\(recordings(condition.recordings))|\(workingRate)|degradations \(degradationRevision)"
    }
}
