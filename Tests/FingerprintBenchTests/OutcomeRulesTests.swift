@testable import BenchmarkEvaluation
import DSP
import Evaluation
import Fingerprinting
import Foundation
import SuiteEvaluation
import Testing

/// The benchmark's outcome rules on constructed answers: what counts as correct, as the right recording at
/// the wrong offset, as the wrong recording, as no match and as a false positive; offsets a condition moved
/// (`expectedOffset`); and the calibrated threshold, recomputed here without the code under test.
@Suite struct OutcomeRulesTests {
    /// A real small run gives the shapes (catalog, queries, one answer to copy); every answer below is made.
    static let run: BenchmarkResults = try! smallBenchmark(threads: 2, cache: nil).0

    /// One answer to `query`: a top match on `track` at `offset` with `score`, matched at the documented threshold or not.
    func answer(_ query: BenchmarkQuery, track: Int?, offset: Double = 0, score: Double = 0.9, matched: Bool = true,
                moved: Double? = nil, condition: String = "clean") -> BenchmarkAnswer {
        var a = Self.run.answers.first { !$0.top.isEmpty }!
        a.query = query.id
        a.condition = condition
        a.expectedOffset = moved
        a.failure = nil
        if let track {
            var m = a.top[0]
            m.track = track
            m.offset = offset
            m.score = score
            m.matched = matched
            a.top = [m]
        } else {
            a.top = []
        }
        return a
    }

    @Test func eachOutcomeFollowsItsRule() throws {
        let r = Self.run
        let q = try #require(r.queries.first { !$0.negative })
        let own = try #require(r.catalog.tracks.firstIndex(of: q.file)), other = (own + 1) % r.catalog.tracks.count
        #expect(r.spec.offsetTolerance == 0.5)
        func outcome(_ a: BenchmarkAnswer) -> Outcome {
            BenchmarkMetrics.outcome(a.top.first(where: \.matched), truth: q, expectedOffset: a.expectedOffset, results: r)
        }
        // The right recording within ±0.5 s of where the query was cut: correct, on either side.
        #expect(outcome(answer(q, track: own, offset: q.start + 0.49)) == .correct)
        #expect(outcome(answer(q, track: own, offset: q.start - 0.49)) == .correct)
        #expect(outcome(answer(q, track: own, offset: q.start + 0.51)) == .wrongOffset)
        #expect(outcome(answer(q, track: own, offset: q.start - 3)) == .wrongOffset)
        // Another recording, even at the right offset, is wrong; nothing, or nothing above the documented threshold, is no match.
        #expect(outcome(answer(q, track: other, offset: q.start)) == .wrongRecording)
        #expect(outcome(answer(q, track: nil)) == .noMatch)
        #expect(outcome(answer(q, track: own, offset: q.start, matched: false)) == .noMatch)
        // A condition that moved time (a delay, or a speed or tempo change with a time map): the truth is the
        // moved moment, and the cut position is then wrong.
        let moved = q.start + 2.7
        for condition in ["speed-0.95", "tempo-1.1"] {
            #expect(outcome(answer(q, track: own, offset: moved + 0.4, moved: moved, condition: condition)) == .correct)
            #expect(outcome(answer(q, track: own, offset: q.start, moved: moved, condition: condition)) == .wrongOffset)
        }
    }

    @Test func theCalibratedOutcomeAppliesTheThresholdToTheTopAnswer() throws {
        let r = Self.run
        let q = try #require(r.queries.first { !$0.negative })
        let n = try #require(r.queries.first { $0.negative })
        let own = try #require(r.catalog.tracks.firstIndex(of: q.file))
        func calibrated(_ a: BenchmarkAnswer, _ query: BenchmarkQuery, _ threshold: Double) -> String {
            BenchmarkMetrics.calibratedOutcome(a, query: query, threshold: threshold, results: r)
        }
        // Above the threshold, the documented threshold no longer matters; at or below it, the answer is no match.
        #expect(calibrated(answer(q, track: own, offset: q.start, score: 0.31, matched: false), q, 0.3) == "correct")
        #expect(calibrated(answer(q, track: own, offset: q.start, score: 0.30), q, 0.3) == "no match")
        // A negative answered above the threshold is a false positive, whatever recording it names; below, it is right.
        #expect(calibrated(answer(n, track: own, score: 0.31), n, 0.3) == BenchmarkMetrics.falsePositive)
        #expect(calibrated(answer(n, track: own, score: 0.29), n, 0.3) == BenchmarkMetrics.rejectedNegative)
        #expect(BenchmarkMetrics.isFailure(BenchmarkMetrics.falsePositive) && !BenchmarkMetrics.isFailure(BenchmarkMetrics.rejectedNegative))
        var failed = answer(q, track: own, offset: q.start)
        failed.failure = "could not be read"
        #expect(calibrated(failed, q, 0) == "failed: could not be read")
    }

    /// Negative scores made up so the threshold is known: 500 calibrating negatives (the calibration half's
    /// recordings) at a 1 % target with 90 % confidence let 1 through (P(Binomial(500, 1 %) ≤ 1) = 0.040,
    /// ≤ 2 = 0.123), so the threshold is the second-highest calibrating score, counted here by hand.
    @Test func theThresholdAndHeldOutFalsePositivesAreCountedFromTheNegatives() throws {
        var r = Self.run
        let template = try #require(r.queries.first { $0.negative })
        let positive = try #require(r.queries.first { !$0.negative })
        let negatives = (0..<1000).map { i -> BenchmarkQuery in
            var q = template
            q.id = String(format: "5s-neg-%04d", i)
            q.file = "negative-\(i % 2 == 0 ? "a" : "b")-\(i).wav"
            q.half = i % 2 == 0 ? .calibration : .heldOut
            return q
        }
        // Calibrating (even) negatives score i/2000 for i = 0, 2, ..., 998 (the highest two: 0.499, 0.498);
        // held-out (odd) ones score 0.4985 + i/1,000,000.
        let scores = negatives.indices.map { $0 % 2 == 0 ? Double($0) / 2000 : 0.4985 + Double($0) / 1_000_000 }
        r.queries = [positive] + negatives
        r.algorithms = Array(r.algorithms.prefix(1))
        let algorithm = r.algorithms[0].identifier
        r.answers = zip(negatives, scores).map { var a = answer($0, track: 0, score: $1); a.algorithm = algorithm; return a }
        r.answers.append({ var a = answer(positive, track: r.catalog.tracks.firstIndex(of: positive.file)!, offset: positive.start, score: 0.4982)
                           a.algorithm = algorithm; return a }())
        let expected = 0.498
        let metrics = BenchmarkMetrics(r)
        let negative = try #require(metrics.negative(algorithm, 5))
        #expect(negative.calibratedThreshold == expected)
        // Held out: scores 0.4985 + i/1,000,000 are all above 0.498, in each of 500 recordings (one window each).
        #expect(negative.falsePositivesHeldOut == Rate(500, of: 500))
        #expect(negative.heldOutByRecording.recordings == 500 && negative.heldOutByRecording.low == 1)
        #expect(negative.falsePositives == Rate(1000, of: 1000))
        // The positive scored 0.4982, just above the threshold: correct at the calibrated threshold.
        #expect(metrics.condition(BenchmarkCell(algorithm: algorithm, length: 5, condition: "clean"))?.correctCalibrated == Rate(1, of: 1))
    }

    /// Each cell's rates count the answers of its algorithm, length and condition, and are found by it; a
    /// query length is spelled one way in ids ("0.5s"), prose ("10 s") and columns ("2").
    @Test func aCellCountsItsOwnAnswers() throws {
        let r = Self.run, metrics = BenchmarkMetrics(r), queries = Dictionary(uniqueKeysWithValues: r.queries.map { ($0.id, $0) })
        #expect(!metrics.conditions.isEmpty)
        for cm in metrics.conditions {
            let own = r.answers.filter { a in
                guard let q = queries[a.query] else { return false }
                return a.failure == nil && !q.negative && BenchmarkCell(algorithm: a.algorithm, length: q.length, condition: a.condition) == cm.cell
            }
            #expect(cm.hitAt5.total == own.count && own.count > 0)
            #expect(metrics.condition(cm.cell) == cm)
        }
        #expect([QueryLength(0.5).tag, QueryLength(10).spoken, QueryLength(2).number] == ["0.5s", "10 s", "2"])
        #expect(r.queries.allSatisfy { $0.id.hasPrefix(QueryLength($0.length).tag + "-") })
    }

    /// Ten seconds of "music": notes of a quarter second at seeded random pitches, with a little noise.
    static func melody(seed: UInt64, seconds: Double = 10, rate: Double = 8000) -> [Float] {
        let random = SeededNoise(seed: seed), note = Int(rate / 4)
        return (0..<Int(seconds * 4)).flatMap { _ -> [Float] in
            let frequency = 200 * pow(2, Double(random.integer(below: 36)) / 12)
            return (0..<note).map { Float(0.4 * sin(2 * .pi * frequency * Double($0) / rate)) }
        }.enumerated().map { $1 + Float(0.01 * sin(Double($0) * 1.7)) }
    }

    /// The rule's correlations, eight shifts side by side, are each shift's alone bit for bit: its window
    /// centred and normalised by `centredNormalised`, the products summed in order (19 shifts: three passes,
    /// the last one part empty).
    @Test func shiftsSideBySideAreEachShiftAlone() {
        let a = Self.melody(seed: 4, seconds: 3), b = Self.melody(seed: 5, seconds: 4)
        let truth = RepeatedPassages.Truth(a), other = RepeatedPassages.logSpectrogram(b), width = other.columns
        let shifts = Array(5..<24)
        let alone = shifts.map { shift in
            zip(truth.centred, RepeatedPassages.centredNormalised(other.values[(shift * width)..<((shift + truth.rows) * width)],
                                                                 rows: truth.rows, width: width)).reduce(Float(0)) { $0 + $1.0 * $1.1 }
        }
        #expect(truth.correlations(other, shifts: shifts).map(\.bitPattern) == alone.map(\.bitPattern))
        #expect(Set(alone).count > 10, "the shifts correlate differently: the test can tell them apart")
    }

    /// The repeated-passage rule on a track built as A B A C: the answer on A's second copy (0.2 s off it,
    /// within the tolerance) is a repeated passage, the answer on B a wrong offset; one rule for every row.
    @Test func anAnswerOnAnotherCopyOfThePassageIsARepeatedPassage() throws {
        let a = Self.melody(seed: 1), b = Self.melody(seed: 2), c = Self.melody(seed: 3)
        let track = Scratch.path("loop", ".wav")
        try floatWAV(a + b + a + c).write(to: track)
        defer { try? FileManager.default.removeItem(at: track) }
        let copy = try #require(RepeatedPassages.similarity(truth: a, other: Array((b + a + c)[(10 * 8000 - 4000)..<(20 * 8000 + 4000)]), lag: 31))
        let other = try #require(RepeatedPassages.similarity(truth: a, other: Array((a + b + c)[(10 * 8000 - 4000)..<(20 * 8000 + 4000)]), lag: 31))
        #expect(copy > 0.95 && other < RepeatedPassages.threshold - 0.1, "a copy \(copy) (a quarter frame off the grid), another passage \(other)")

        var r = Self.run
        var q = try #require(r.queries.first { !$0.negative })
        q.file = "loop.wav"; q.start = 0; q.length = 10
        r.queries = [q]
        r.catalog.tracks = ["loop.wav"]; r.catalog.trackSeconds = [40]
        r.answers = [answer(q, track: 0, offset: 20.2), answer(q, track: 0, offset: 10), answer(q, track: 0, offset: 0.3)]
        for i in r.answers.indices { r.answers[i].algorithm = ["copy", "other", "right"][i] }
        r.repeats = RepeatedPassages.judge(r, path: { _ in track.path }, threads: 2)
        #expect(r.repeats?.map { [$0.start, $0.other] } == [[0, 20.2]])
        #expect(r.repeats!.allSatisfy { $0.similarity >= RepeatedPassages.threshold })
        let outcomes = r.answers.map { BenchmarkMetrics.outcome($0.top.first, truth: q, results: r) }
        #expect(outcomes == [.repeatedPassage, .wrongOffset, .correct])
        r.repeats = nil
        #expect(BenchmarkMetrics.outcome(r.answers[0].top.first, truth: q, results: r) == .wrongOffset, "not judged: a wrong offset as before")
    }

    /// A benchmark judges its wrong-offset answers; results written before the rule say "not judged", and
    /// `fpbench report --judge-repeats` judges them on the catalog's audio and writes them again, sealed.
    @Test func resultsWrittenBeforeTheRuleAreJudgedOnRequest() throws {
        var r = Self.run
        #expect(r.repeats != nil, "a benchmark judges its wrong-offset answers")
        r.repeats = nil
        let folder = Scratch.path("repeats")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("results.json")
        try r.sealed().encoded().write(to: file)
        let summary = { try String(contentsOf: folder.appendingPathComponent("summary.md"), encoding: .utf8) }
        #expect(try runFPBench(["report", file.path]).status == 0)
        #expect(try summary().contains("Not judged"))
        let judged = try runFPBench(["report", file.path, "--judge-repeats"])
        #expect(judged.status == 0, "\(judged.errors)")
        #expect(try summary().contains("One rule for every algorithm and system") && !(try summary().contains("Not judged")))
        #expect(try BenchmarkResults.decode(try Data(contentsOf: file), path: file.path).repeats == Self.run.repeats)
        let refused = try runFPBench(["report", file.path, "--judge-repeats", "--unsealed"])
        #expect(refused.status == 64 && refused.errors.contains("cannot vouch for an unsealed one"), "\(refused.errors)")
    }
}
