import BenchmarkEvaluation
import DSP
import Evaluation
import Fingerprinting
import Foundation
import Reporting
import SuiteEvaluation
import Testing

/// Calibration out of sample by recording: the halves never share a recording, windows of one recording
/// never overlap, the halves hold about the same audio, and the held-out interval treats recordings as the unit.
@Suite struct NegativeSplitTests {
    /// 60 recordings of 3 s to 5 min, seeded; one of them 10.1 s (the short file that once dominated a 10 s calibration).
    static let durations: [Double] = {
        let random = SeededNoise(seed: 41)
        return (0..<60).map { $0 == 7 ? 10.1 : 3 + 297 * random.unit() }
    }()

    @Test func theHalvesShareNoRecordingAndHoldAboutTheSameAudio() {
        let split = NegativeSplit(durations: Self.durations, seed: 2013)
        let calibration = split.recordings(in: .calibration), heldOut = split.recordings(in: .heldOut)
        #expect(Set(calibration).isDisjoint(with: heldOut) && calibration.count + heldOut.count == Self.durations.count)
        let total = { (rs: [Int]) in rs.reduce(0.0) { $0 + Self.durations[$1] } }
        #expect(abs(total(calibration) - total(heldOut)) <= Self.durations.max()!)
        // The same seed, the same split; another seed, another.
        #expect(NegativeSplit(durations: Self.durations, seed: 2013).halves == split.halves)
        #expect(NegativeSplit(durations: Self.durations, seed: 7).halves != split.halves)
    }

    @Test(arguments: [1.0, 10.0])
    func windowsStayInTheirHalfAndNeverOverlapWithinARecording(length: Double) {
        let split = NegativeSplit(durations: Self.durations, seed: 2013)
        let (windows, shortfall) = split.windows(length: length, count: 500)
        #expect(windows.count == 500 && shortfall == 0)
        #expect(windows.filter { $0.half == .calibration }.count == 250)
        for w in windows {
            #expect(split.halves[w.recording] == w.half)
            #expect(w.start >= 0 && w.start + length <= Self.durations[w.recording] + 1e-9)
        }
        for (_, cut) in Dictionary(grouping: windows, by: \.recording) {
            let starts = cut.map(\.start).sorted()
            #expect(zip(starts, starts.dropFirst()).allSatisfy { $1 - $0 >= length - 1e-9 })
        }
        // The 10.1 s recording gives at most one 10 s window (it gave 33 of 500 when windows were drawn freely).
        #expect(windows.filter { $0.recording == 7 }.count <= (length == 10 ? 1 : 10))
    }

    @Test func aHalfWithTooLittleAudioGivesWhatItHasAndSaysHowManyAreMissing() {
        let split = NegativeSplit(durations: [25, 31], seed: 1)
        let (windows, shortfall) = split.windows(length: 10, count: 20)
        #expect(windows.count == 5 && shortfall == 15)  // 2 slots in one recording, 3 in the other
    }

    /// Known answers: one recording all false positives and one none, equal windows, give resampled rates of
    /// 0, 1/2 and 1 with chances 1/4, 1/2, 1/4, so the 95 % interval is 0-1 however wide the window count;
    /// recordings all alike give no spread at all.
    @Test func theClusterIntervalTreatsRecordingsAsTheUnit() {
        let split = ClusteredRate([(hits: 10, windows: 10), (hits: 0, windows: 10)], seed: 3)
        #expect(split.value == 0.5 && split.low == 0 && split.high == 1 && split.recordings == 2)
        let alike = ClusteredRate(Array(repeating: (hits: 1, windows: 100), count: 30), seed: 3)
        #expect(alike.low == 0.01 && alike.high == 0.01 && alike.successes == 30 && alike.total == 3000)
        // 3 false positives in one of 30 recordings: far wider than the binomial over 3,000 windows (0.03-0.29 %).
        let one = ClusteredRate([(hits: 3, windows: 100)] + Array(repeating: (hits: 0, windows: 100), count: 29), seed: 3)
        #expect(one.low == 0 && one.high >= 0.003)
        #expect(ClusteredRate([], seed: 3).total == 0)
    }

    /// The benchmark's own negatives: from answers, no recording is in both halves at any length, and a
    /// run with few negative recordings says so.
    @Test func theBenchmarksNegativesAreSplitByRecording() throws {
        let (results, _) = try smallBenchmark(threads: 2, cache: nil)
        let negatives = results.queries.filter(\.negative)
        #expect(!negatives.isEmpty && negatives.allSatisfy { $0.half != nil })
        for (_, same) in Dictionary(grouping: negatives, by: { "\($0.length)|\($0.file)" }) {
            #expect(Set(same.map(\.half)).count == 1)
        }
        #expect(BenchmarkMetrics.calibrationHalf(results) == Set(negatives.filter { $0.half == .calibration }.map(\.id)))
        let warnings = BenchmarkMetrics(results).calibrationWarnings(results)
        #expect(warnings.contains { $0.contains("the held-out half has") && $0.contains("fewer than 20") }, "\(warnings)")
        let folder = temporaryFolder()
        try BenchmarkReport.write(results, costs: nil, to: folder)
        let rows = try String(contentsOf: folder.appendingPathComponent("answers.csv"), encoding: .utf8).split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        let column = try #require(rows[0].firstIndex(of: "negative_half"))
        #expect(Set(rows.dropFirst().filter { $0[4] == "1" }.map { String($0[column]) }) == ["calibration", "held-out"])
    }
}

/// The cross-check collection (recordings of another kind) is measured at the calibrated thresholds and
/// changes nothing else: the same thresholds, the same held-out rates as without it.
@Suite struct CrossCheckTests {
    func run(crossCheck: Bool) throws -> BenchmarkResults {
        var dataset = try catalogCIDataset()
        var section = try #require(dataset.manifest.catalog)
        section.negatives = section.negatives.filter { $0.hasPrefix("drascula/") }
        section.crossCheck = crossCheck ? ["birds/finch-363.wav", "birds/petrel-XC46092.wav"] : nil
        dataset.manifest.catalog = section
        var spec = BenchmarkSpec()
        spec.queryLengths = [5]
        spec.queriesPerLength = 4
        spec.negativesPerLength = 8
        spec.conditions = spec.conditions.filter { $0.id == "clean" }
        let configuration = BenchmarkConfiguration(testSettings(dataset, [try AlgorithmRegistry.algorithm("constellation")], seed: 2013, missing: .borrow),
                                                   spec: spec)
        return try Benchmark(configuration).run().results
    }

    @Test func theCrossCheckIsMeasuredAndNeverCalibrates() throws {
        let with = try run(crossCheck: true), without = try run(crossCheck: false)
        let cross = with.queries.filter { $0.half == .crossCheck }
        #expect(cross.count == 4 && cross.allSatisfy { $0.negative && $0.file.hasPrefix("birds/") })
        #expect(BenchmarkMetrics.calibrationHalf(with) == BenchmarkMetrics.calibrationHalf(without))
        let (m, n) = (BenchmarkMetrics(with), BenchmarkMetrics(without))
        let x = try #require(m.negatives.first?.crossCheck)
        #expect(x.total == 4 && x.recordings == 2 && n.negatives.first?.crossCheck == nil)
        var same = m.negatives
        same[0].crossCheck = nil
        #expect(same == n.negatives)  // thresholds and held-out rates as without the cross-check
        let written = { (r: BenchmarkResults, file: String) -> String in
            let folder = temporaryFolder()
            try BenchmarkReport.write(r, costs: nil, to: folder)
            return try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
        }
        let summary = try written(with, "summary.md")
        #expect(summary.contains("## Against another kind of audio") && summary.contains("\(x.successes)/4 ["), "\(summary)")
        #expect(try written(with, "answers.csv").contains(",1,cross-check,birds/"))
        #expect(try !written(without, "summary.md").contains("another kind"))
    }
}

/// The warnings an index's calibration carries, from its stored scores alone.
@Suite struct CalibrationWarningTests {
    /// 500 scores per length (at 1 % and 90 % confidence one may exceed the threshold, so it is the second highest).
    func length(_ seconds: Double, threshold: Double) -> Calibration.Length {
        Calibration.Length(length: seconds, calibrationScores: [0.9, threshold] + Array(repeating: 0, count: 498), heldOutScores: [], target: 0.01, confidence: 0.9)
    }

    func warnings(_ thresholds: [Double]) -> [String] {
        Calibration(falsePositiveTarget: 0.01, confidence: 0.9, seed: 1, negativeFiles: [],
                    lengths: zip([1.0, 2, 5, 10], thresholds).map { length($0, threshold: $1) }).warnings
    }

    @Test func aThresholdRisingWithLengthIsNamedUnlessFromZeroOrWithinItsNoise() {
        // The #41 case: 0.071 at 5 s, 0.167 at 10 s.
        let rising = warnings([0.2, 0.1, 0.071, 0.167])
        #expect(rising.count == 1 && rising[0].contains("from 0.071 at 5 s to 0.167 at 10 s"), "\(rising)")
        #expect(warnings([0.7, 0.6, 0.556, 0.557]).isEmpty)  // within 10 %: the calibration's own sampling
        #expect(warnings([0, 0.03, 0.02, 0.01]).isEmpty)     // from 0: nothing matched at 1 s
    }

    /// 100 calibration scores cannot hold 1 % with 90 % confidence: said, with how many would, and the
    /// threshold is the highest of them.
    @Test func tooFewNegativesToBeSureAreSaid() {
        let few = Calibration.Length(length: 5, calibrationScores: [0.3, 0.2] + Array(repeating: 0, count: 98), heldOutScores: [], target: 0.01, confidence: 0.9)
        #expect(few.threshold == 0.3)
        let said = Calibration(falsePositiveTarget: 0.01, confidence: 0.9, seed: 1, negativeFiles: [], lengths: [few]).warnings
        #expect(said == ["5 s: 100 calibration negatives are too few to hold 1 % false positives with 90 % confidence (230 needed); the threshold is their highest score"])
        #expect(Calibration(falsePositiveTarget: 0.01, confidence: nil, seed: 1, negativeFiles: [], lengths: [few]).warnings.isEmpty)
    }
}
