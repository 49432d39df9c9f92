import DSP
import Evaluation
import Fingerprinting
import Foundation

/// What a positive query's top answer was, at a given decision rule.
public enum Outcome: String, Sendable, Codable, CaseIterable {
    case correct = "correct"
    /// The right recording at another offset whose audio is the truth's again (`RepeatedPassages`).
    case repeatedPassage = "right recording, repeated passage"
    case wrongOffset = "right recording, wrong offset"
    case wrongRecording = "wrong recording"
    case noMatch = "no match"
}

/// The rates of one algorithm under one condition at one query length.
public struct ConditionMetrics: Sendable, Codable, Equatable {
    public var algorithm: String
    public var length: Double
    public var condition: String
    /// At the algorithm's documented threshold.
    public var outcomes: [String: Rate]
    /// The true recording among the five best answers (threshold not applied).
    public var hitAt5: Rate
    /// Correct at the threshold calibrated on the negatives of this length.
    public var correctCalibrated: Rate
    /// The same with repeated passages counted as correct.
    public var correctOrRepeatCalibrated: Rate
    /// The top answer, threshold not applied, names the recording at an offset within ±50 ms
    /// (`BenchmarkMetrics.exactTolerance`): the segment-level top-1 "exact" hit rate the learned-fingerprint
    /// papers report (NAFP, Chang et al. 2021, §4; FlowHash), which has no "no match".
    public var exactTop1: Rate
}

/// False positives of one algorithm at one query length, and its calibrated threshold.
public struct NegativeMetrics: Sendable, Codable, Equatable {
    public var algorithm: String
    public var length: Double
    /// At the documented threshold, over every negative.
    public var falsePositives: Rate
    /// The score a top answer must exceed to be a match at the target false-positive rate, calibrated on
    /// one half of the negatives (`BenchmarkMetrics.calibrates`).
    public var calibratedThreshold: Double
    /// At the calibrated threshold, over the other, held-out half: the out-of-sample false-positive rate.
    public var falsePositivesHeldOut: Rate
    /// The same, with its interval over the held-out recordings (windows of one recording are not independent).
    public var heldOutByRecording: ClusteredRate
    /// At the calibrated threshold, over the cross-check collection (another kind of audio; nil: none).
    public var crossCheck: ClusteredRate?
}

/// Metrics computed from results alone (so `fpbench report` recomputes them).
public struct BenchmarkMetrics: Sendable, Equatable {
    public var conditions: [ConditionMetrics]
    public var negatives: [NegativeMetrics]

    public init(_ r: BenchmarkResults) {
        let queries = Dictionary(uniqueKeysWithValues: r.queries.map { ($0.id, $0) })
        var grouped: [Group: [BenchmarkAnswer]] = [:]
        for answer in r.answers where answer.failure == nil {
            guard let q = queries[answer.query] else { continue }
            let group = q.negative ? Group.negatives(algorithm: answer.algorithm, length: q.length, crossCheck: !q.calibrationNegative)
                : .cell(BenchmarkCell(algorithm: answer.algorithm, length: q.length, condition: answer.condition))
            grouped[group, default: []].append(answer)
        }
        var conditions: [ConditionMetrics] = [], negatives: [NegativeMetrics] = []
        let calibrating = Self.calibrationHalf(r)
        for info in r.algorithms {
            let algorithm = info.identifier
            for length in r.spec.queryLengths {
                let mine = grouped[.negatives(algorithm: algorithm, length: length, crossCheck: false)] ?? []
                let calibration = mine.filter { calibrating.contains($0.query) }
                let heldOut = mine.filter { !calibrating.contains($0.query) }
                // A system without scores: its own answers only (every match scores 1, above 0).
                let threshold = info.isScored ? Calibration.threshold(calibration.map { $0.top.first?.score ?? 0 }, target: r.spec.falsePositiveTarget,
                                                                      confidence: r.spec.confidence) : 0
                let passes = { (a: BenchmarkAnswer) in (a.top.first?.score ?? 0) > threshold }
                let byRecording = { (answers: [BenchmarkAnswer]) in Dictionary(grouping: answers) { queries[$0.query]!.file }.sorted { $0.key < $1.key }
                    .map { $0.value.map { $0.top.first?.score ?? 0 } } }
                let crossCheck = grouped[.negatives(algorithm: algorithm, length: length, crossCheck: true)] ?? []
                negatives.append(NegativeMetrics(
                    algorithm: algorithm, length: length,
                    falsePositives: Rate(mine.filter { $0.top.contains(where: \.matched) }.count, of: mine.count),
                    calibratedThreshold: threshold,
                    falsePositivesHeldOut: Rate(heldOut.filter(passes).count, of: heldOut.count),
                    heldOutByRecording: ClusteredRate(scoresByRecording: byRecording(heldOut), above: threshold, seed: derivedSeed(r.seed, "held-out", algorithm, "\(length)")),
                    crossCheck: crossCheck.isEmpty ? nil
                        : ClusteredRate(scoresByRecording: byRecording(crossCheck), above: threshold, seed: derivedSeed(r.seed, "cross-check", algorithm, "\(length)"))))
                for condition in r.spec.conditions {
                    let cell = BenchmarkCell(algorithm: algorithm, length: length, condition: condition.id)
                    conditions.append(Self.metrics(cell, answers: grouped[.cell(cell)] ?? [], threshold: threshold, queries: queries, results: r))
                }
            }
        }
        self.conditions = conditions
        self.negatives = negatives
    }

    /// A cell's rates from its answers, at the documented threshold and at `threshold` (the calibrated one).
    static func metrics(_ cell: BenchmarkCell, answers: [BenchmarkAnswer], threshold: Double, queries: [String: BenchmarkQuery],
                        results r: BenchmarkResults) -> ConditionMetrics {
        var counts: [Outcome: Int] = [:]
        var hits = 0, calibrated = 0, repeated = 0, exact = 0
        for answer in answers {
            let q = queries[answer.query]!
            counts[Self.outcome(answer.top.first(where: \.matched), truth: q, expectedOffset: answer.expectedOffset, results: r), default: 0] += 1
            if answer.top.prefix(5).contains(where: { r.catalog.tracks[$0.track] == q.file }) { hits += 1 }
            if let top = answer.top.first, r.catalog.tracks[top.track] == q.file,
               abs(top.offset - (answer.expectedOffset ?? q.start)) <= Self.exactTolerance { exact += 1 }
            if let top = answer.top.first, top.score > threshold {
                switch Self.outcome(top, truth: q, expectedOffset: answer.expectedOffset, results: r) {
                case .correct: calibrated += 1
                case .repeatedPassage: repeated += 1
                default: break
                }
            }
        }
        return ConditionMetrics(
            algorithm: cell.algorithm, length: cell.length, condition: cell.condition,
            outcomes: Dictionary(uniqueKeysWithValues: Outcome.allCases.map { ($0.rawValue, Rate(counts[$0] ?? 0, of: answers.count)) }),
            hitAt5: Rate(hits, of: answers.count), correctCalibrated: Rate(calibrated, of: answers.count),
            correctOrRepeatCalibrated: Rate(calibrated + repeated, of: answers.count),
            exactTop1: Rate(exact, of: answers.count))
    }

    /// Where an answer counts: a cell (a positive query's), or an algorithm's negatives of one length, those
    /// of the catalog's negative recordings or of the cross-check collection.
    private enum Group: Hashable {
        case cell(BenchmarkCell)
        case negatives(algorithm: String, length: Double, crossCheck: Bool)
    }

    /// The learned-fingerprint papers' offset tolerance for an "exact" top-1 hit: ±50 ms (NAFP §4, FlowHash).
    public static let exactTolerance = 0.05

    /// `expectedOffset`: where the query's first moment came from, when the condition moved time.
    public static func outcome(_ match: BenchmarkMatch?, truth: BenchmarkQuery, expectedOffset: Double? = nil, results r: BenchmarkResults) -> Outcome {
        guard let match else { return .noMatch }
        guard r.catalog.tracks[match.track] == truth.file else { return .wrongRecording }
        let start = expectedOffset ?? truth.start
        if abs(match.offset - start) <= r.spec.offsetTolerance { return .correct }
        return r.isRepeat(match, start: start, length: truth.length) ? .repeatedPassage : .wrongOffset
    }

    /// An answer's outcome at the threshold calibrated for its algorithm and length (what the summary's bold
    /// rates count): an `Outcome`, "false positive" or `rejectedNegative` for a negative query, or the failure.
    public static func calibratedOutcome(_ answer: BenchmarkAnswer, query: BenchmarkQuery, threshold: Double, results r: BenchmarkResults) -> String {
        if let failure = answer.failure { return "failed: \(failure)" }
        let top = answer.top.first.flatMap { $0.score > threshold ? $0 : nil }
        if query.negative { return top == nil ? rejectedNegative : falsePositive }
        return outcome(top, truth: query, expectedOffset: answer.expectedOffset, results: r).rawValue
    }

    public static let rejectedNegative = "no match (negative: right)"
    public static let falsePositive = "false positive"

    /// Whether a calibrated outcome counts against the algorithm.
    public static func isFailure(_ calibratedOutcome: String) -> Bool {
        calibratedOutcome != Outcome.correct.rawValue && calibratedOutcome != rejectedNegative
    }

    /// The negative queries that calibrate the thresholds: those cut from the recordings of the calibration
    /// half (`NegativeSplit`); the others, from other recordings, are held out to measure the threshold, so
    /// the false-positive rate the benchmark reports is measured on music the threshold never heard.
    public static func calibrationHalf(_ r: BenchmarkResults) -> Set<String> {
        Set(r.queries.filter { $0.negative && $0.half == .calibration }.map(\.id))
    }

    /// Where the calibration cannot be trusted: too few held-out recordings, one recording supplying much
    /// of a length's negatives, a built-in algorithm's threshold rising with query length (a longer query
    /// should need no more), a held-out rate that misses the target beyond its recording-level interval.
    public func calibrationWarnings(_ r: BenchmarkResults) -> [String] {
        var warnings: [String] = []
        let negativeQueries = r.queries.filter(\.calibrationNegative)
        for length in r.spec.queryLengths {
            let mine = negativeQueries.filter { $0.length == length }, name = QueryLength(length).spoken
            let heldOut = Set(mine.filter { $0.half == .heldOut }.map(\.file)).count
            if !mine.isEmpty && heldOut < Calibration.fewestHeldOutRecordings {
                warnings.append("\(name): the held-out half has \(heldOut) recordings (fewer than \(Calibration.fewestHeldOutRecordings)), too few to speak for other audio")
            }
            let calibrating = mine.filter { $0.half == .calibration }.count
            if let tooFew = Calibration.tooFewToBeSure(calibrating, length: length, target: r.spec.falsePositiveTarget, confidence: r.spec.confidence) {
                warnings.append(tooFew)
            }
            let seconds = Dictionary(uniqueKeysWithValues: zip(r.catalog.negatives, r.catalog.negativeSeconds))
            warnings += Calibration.recordingWarnings(length: length, windows: Dictionary(grouping: mine, by: \.file).map { ($0.key, seconds[$0.key] ?? .infinity, $0.value.count) })
        }
        for info in r.algorithms where info.isScored {
            let ns = negatives(info.identifier)
            for (shorter, longer) in zip(ns, ns.dropFirst()) where !info.isSystem && Calibration.rises(from: shorter.calibratedThreshold, to: longer.calibratedThreshold) {
                warnings.append(String(format: "%@: the calibrated threshold rises from %.3f at %@ to %.3f at %@ (a longer query should need no more): too few or too alike negatives at %@?",
                                       info.identifier, shorter.calibratedThreshold, QueryLength(shorter.length).spoken, longer.calibratedThreshold,
                                       QueryLength(longer.length).spoken, QueryLength(longer.length).spoken))
            }
            for n in ns where n.heldOutByRecording.low > r.spec.falsePositiveTarget {
                warnings.append(String(format: "%@: at %@ the held-out false positives, %d of %d, miss the %g %% target beyond their interval (%.1f-%.1f %%)",
                                       info.identifier, QueryLength(n.length).spoken, n.heldOutByRecording.successes, n.heldOutByRecording.total,
                                       100 * r.spec.falsePositiveTarget, 100 * n.heldOutByRecording.low, 100 * n.heldOutByRecording.high))
            }
        }
        return warnings
    }

    public func condition(_ cell: BenchmarkCell) -> ConditionMetrics? {
        conditions.first { $0.cell == cell }
    }

    public func negative(_ algorithm: String, _ length: Double) -> NegativeMetrics? {
        negatives.first { $0.algorithm == algorithm && $0.length == length }
    }

    /// An algorithm's negatives, shortest query length first.
    public func negatives(_ algorithm: String) -> [NegativeMetrics] {
        negatives.filter { $0.algorithm == algorithm && $0.falsePositives.total > 0 }.sorted { $0.length < $1.length }
    }
}
