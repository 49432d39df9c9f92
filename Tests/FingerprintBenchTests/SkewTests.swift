import AudioIO
@testable import BenchmarkEvaluation
import Degradation
@testable import Evaluation
import Foundation
@testable import SuiteEvaluation
import Testing

/// Sub-frame time skew: the skip stage, query starts on a frame grid, and the sweep end to end.
@Suite struct SkewTests {
    /// `{"skip": {"seconds": s}}` drops exactly the first s seconds and says where time went.
    @Test func skipDropsTheFirstMomentsAndMovesTime() throws {
        let ramp = Audio(samples: (0..<8000).map { Float($0) }, sampleRate: 8000)
        let stage = try JSONDecoder().decode(StageSpec.self, from: Data(#"{"skip": {"seconds": 0.01}}"#.utf8))
        let chain = DegradationChain(try stage.stages(StageContext(recordings: [:])), seed: 1)
        let out = try chain.apply(ramp)
        #expect(out.samples.first == 80 && out.samples.count == 7920)
        #expect(abs(chain.timeMap.inverse(0) - 0.01) < 1e-12)  // the query's first moment was 10 ms into the cut
        #expect { try JSONDecoder().decode(StageSpec.self, from: Data(#"{"skip": {"seconds": -1}}"#.utf8)) } throws: { "\($0)".contains("seconds") }
    }

    /// With a start grid every position is a whole number of grid steps, and at most one step earlier than without.
    @Test func queryStartsFallOnTheGrid() {
        var spec = BenchmarkSpec()
        spec.queryLengths = [5]
        spec.negativesPerLength = 2
        let tracks = ["a", "b", "c"], durations = [60.0, 90, 120]
        let free = BenchmarkPlan.draw(spec: spec, tracks: tracks, durations: durations, negatives: ["n"], negativeDurations: [30], seed: 7)
        spec.startGrid = 256.0 / 11025
        let grid = BenchmarkPlan.draw(spec: spec, tracks: tracks, durations: durations, negatives: ["n"], negativeDurations: [30], seed: 7)
        let pairs = zip(free, grid).filter { !$0.0.negative }
        #expect(pairs.count == 100)
        #expect(pairs.allSatisfy { f, g in
            let steps = g.start / spec.startGrid!
            return f.file == g.file && abs(steps - steps.rounded()) < 1e-6 && f.start - g.start >= -1e-9 && f.start - g.start < spec.startGrid!
        })
    }
}
