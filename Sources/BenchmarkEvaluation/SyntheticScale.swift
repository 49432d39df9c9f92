import AudioIO
import Degradation
import Evaluation
import Fingerprinting
import Foundation

/// The synthetic scale test: the benchmark's real catalog grown to hundreds or thousands of hours with
/// SYNTHETIC tracks, and the benchmark's real clean queries (positives and negatives) searched at each
/// size. A synthetic track is a real track's fingerprint with every key redrawn from the real catalog's
/// keys (`AnyFingerprint.redrawingKeys`): the index holds as many postings, spread over the keys as the
/// real ones are, at the same times, so search time, memory, index size and chance matches grow as they
/// would with more music, while only the real tracks can be the right answer. A vector algorithm's
/// synthetic track is a real track's times with vectors drawn to the real segments' statistics
/// (`VectorStatistics`), not held but drawn again when verification asks for one. What it cannot show:
/// real music's near-duplicates (covers, remasters, shared samples) and its keys' correlations in time.
public struct SyntheticScale {
    public struct Point: Sendable, Codable {
        public var algorithm: String
        /// The queries' condition: `clean` (every figure of the row), or a benchmark condition whose
        /// positives were searched too (its row's false-positive figures are the clean negatives').
        public var condition = BenchmarkCondition.cleanID
        /// Hours in the catalog, real and synthetic.
        public var hours: Double
        public var syntheticTracks: Int
        /// Bytes of the index and of the verification prints (the catalog's `byteCount`; with slices, the largest slice's).
        public var indexBytes: Int
        public var printBytes: Int
        /// False for a vector algorithm: its synthetic tracks' prints are drawn again when verification asks
        /// for one, so `printBytes` holds the real tracks' alone.
        public var syntheticPrintsHeld = true
        public var buildSeconds: Double
        /// After building, the process's peak resident memory (sizes are measured in increasing order).
        public var peakResidentBytes: Int
        /// Per query of the row's condition, CPU milliseconds of the search alone (with slices, summed over them): median and 90th percentile.
        public var searchMilliseconds: Double
        public var searchMilliseconds90: Double
        public var positives: Int
        /// Positives whose top answer is the right track within the offset tolerance, at `threshold`.
        public var correct: Int
        /// The threshold calibrated at this size on the calibration half's negatives (target rate), and the
        /// held-out negatives, from other recordings, above it.
        public var threshold: Double
        public var heldOutNegatives: Int
        public var heldOutFalsePositives: Int
        /// The held-out negatives above the threshold calibrated on the real catalog alone (what a
        /// threshold calibrated small does as the catalog grows).
        public var falsePositivesAtRealThreshold: Int
    }

    public var benchmark: BenchmarkConfiguration
    /// Catalog sizes to measure, in hours (real tracks first, then synthetic ones until each is reached).
    public var hours: [Double]
    /// The query length (one of the spec's).
    public var length: Double
    /// Above 1: each size built and searched as that many slices (`CatalogSlices`), one at a time, so a
    /// catalog larger than memory is measured; its answers are the whole catalog's. Memory is then the
    /// largest slice's, and search time the sum over the slices (one query's CPU on every node).
    public var slices = 1
    /// Benchmark conditions (not `clean`) whose degraded positives are searched at every size besides the
    /// clean queries, each degraded as the benchmark degrades it (same seeds), and judged at the threshold
    /// the clean negatives calibrate. Empty: clean queries only.
    public var conditions: [BenchmarkCondition] = []

    public init(benchmark: BenchmarkConfiguration, hours: [Double], length: Double) {
        self.benchmark = benchmark
        self.hours = hours
        self.length = length
    }

    public func run() throws -> [Point] {
        let bench = Benchmark(benchmark)
        var failures: [Problem] = []
        let files = try bench.readCatalog(&failures)
        var spec = benchmark.spec
        spec.queryLengths = [length]
        let queries = BenchmarkPlan.draw(spec: spec, tracks: files.tracks, durations: files.durations, negatives: files.negatives,
                                         negativeDurations: files.negativeDurations, seed: benchmark.seed)
        let (real, _) = try bench.indexer.buildCatalogs(benchmark.algorithms, progress: ProgressReporter(benchmark.progress))
        let progress = ProgressReporter(benchmark.progress)
        let positives = queries.filter { !$0.negative }, degraded = try degradedPositives(positives, progress: progress)
        var points: [Point] = []
        for (a, algorithm) in benchmark.algorithms.enumerated() {
            let prints = real[a].fingerprints.compactMap { $0 }
            guard prints.count == real[a].names.count, let synthesis = Synthesis(prints) else {
                throw DatasetError(path: algorithm.identifier, reason: "its fingerprints have no keys to redraw or vectors to draw again (the synthetic scale test takes " + AlgorithmRegistry.identifiers(with: .scalable).joined(separator: ", ") + " and their variants)")
            }
            if slices > 1, !algorithm.capabilities.contains(.sliceable) {
                throw DatasetError(path: algorithm.identifier, reason: "its index cannot be split into slices (--slices takes " + AlgorithmRegistry.identifiers(with: .sliceable).joined(separator: ", ") + " and their variants)")
            }
            let asked = queryPrints(algorithm, queries, progress: progress)
            // The clean queries, then each condition's positives, searched together.
            let all = asked + degraded.flatMap { $0.prints[a] }
            // The threshold calibrated on the real catalog alone, whatever the sizes asked.
            let realOnly = Tracks(names: real[a].names, prints: prints, synthesis: synthesis, seed: benchmark.seed, hours: 0)
            let realThreshold = calibration(try search(realOnly, algorithm: algorithm, queries: asked, progress: progress), queries: queries).threshold
            for target in hours.sorted() {
                let tracks = Tracks(names: real[a].names, prints: prints, synthesis: synthesis, seed: benchmark.seed, hours: target)
                let searched = slices > 1 ? try searchSlices(tracks, algorithm: algorithm, queries: all, progress: progress)
                    : try search(tracks, algorithm: algorithm, queries: all, progress: progress)
                var point = measure(searched, queries: queries, algorithm: algorithm, realThreshold: realThreshold)
                point.syntheticTracks = tracks.durations.count - prints.count
                point.syntheticPrintsHeld = !synthesis.drawnAgain
                points.append(point)
                var next = queries.count
                for condition in degraded {
                    let answers = Array(searched.answers[next..<(next + positives.count)])
                    next += positives.count
                    points.append(point.under(condition.id, answers: answers, correct: correct(answers, positives, expected: condition.expected,
                                                                                                threshold: point.threshold)))
                }
            }
        }
        return points
    }

    /// Each query's clean fingerprint (nil: silent or too short), in order.
    private func queryPrints(_ algorithm: AnyAlgorithm, _ queries: [BenchmarkQuery], progress: ProgressReporter) -> [AnyFingerprint?] {
        progress.start("fingerprinting \(algorithm.identifier) queries", total: queries.count)
        defer { progress.finish() }
        return parallelMap(queries.count, threads: benchmark.threads) { q in
            defer { progress.advance() }
            return try? algorithm.fingerprint(file: benchmark.dataset.path(queries[q].file),
                                              window: TimeWindow(start: queries[q].start, duration: queries[q].length), role: .query)
        }
    }

    /// One condition's positives as the benchmark degrades them (the same chains and seeds).
    struct Degraded {
        var id: String
        /// Per positive, the track moment its first sample came from (nil: its chain could not be made).
        var expected: [Double?]
        /// Per algorithm, per positive, its fingerprint (nil: none to take).
        var prints: [[AnyFingerprint?]]
    }

    /// Every asked condition's positives, degraded and fingerprinted by every algorithm: each window decoded
    /// once and each degradation applied once, the audio then dropped. A condition whose recordings the
    /// dataset lacks follows the run's missing-recordings policy (refused, or left out and said so).
    private func degradedPositives(_ positives: [BenchmarkQuery], progress: ProgressReporter) throws -> [Degraded] {
        guard !conditions.isEmpty else { return [] }
        var configuration = benchmark, skipped: [Problem] = []
        configuration.spec.conditions = conditions
        let bench = Benchmark(configuration), (usable, recordings) = try bench.usableConditions(&skipped)
        for problem in skipped { Console.warning("fpbench scale: \(problem.item) left out: \(problem.reason)") }
        let context = StageContext(recordings: recordings.audio), algorithms = benchmark.algorithms
        let chains = usable.map { condition in positives.map { try? bench.chain($0, condition, stageContext: context) } }
        progress.start("degrading and fingerprinting queries", total: positives.count)
        defer { progress.finish() }
        // Per positive, per condition, per algorithm.
        let prints = parallelMap(positives.count, threads: benchmark.threads) { q -> [[AnyFingerprint?]] in
            defer { progress.advance() }
            let window = try? bench.window(positives[q])
            return chains.map { chains in
                let audio = window.flatMap { window in chains[q].flatMap { try? $0.apply(window) } }
                return algorithms.map { algorithm in audio.flatMap { try? algorithm.fingerprint($0.resampled(to: algorithm.sampleRate), role: .query) } }
            }
        }
        return usable.indices.map { c in
            Degraded(id: usable[c].id,
                     expected: positives.indices.map { q in chains[c][q].map { Benchmark.movedStart(positives[q], $0) ?? positives[q].start } },
                     prints: algorithms.indices.map { a in positives.indices.map { prints[$0][c][a] } })
        }
    }

    /// How synthetic tracks are drawn from the real ones' fingerprints.
    enum Synthesis: Sendable {
        /// Every key redrawn from the real catalog's keys.
        case keys([UInt32])
        /// Vectors drawn to the real segments' statistics.
        case vectors(VectorStatistics)

        /// Keys where the fingerprints have them, vectors where they are vectors; nil: neither.
        init?(_ prints: [AnyFingerprint]) {
            let pool = prints.flatMap { $0.keys ?? [] }
            if !pool.isEmpty {
                self = .keys(pool)
            } else if let statistics = VectorStatistics(prints.compactMap { $0.base as? VectorFingerprint }) {
                self = .vectors(statistics)
            } else {
                return nil
            }
        }

        /// Synthetic vectors are drawn again when verification asks, not held (at 10,000 h they would take 37 GB).
        var drawnAgain: Bool {
            if case .vectors = self { true } else { false }
        }

        func synthetic(like model: AnyFingerprint, seed: UInt64) -> AnyFingerprint {
            switch self {
            case .keys(let pool): model.redrawingKeys(from: pool, seed: seed)!
            case .vectors(let statistics): model.drawingVectors(from: statistics, seed: seed)!
            }
        }
    }

    /// The real tracks, then synthetic ones (the real ones' fingerprints drawn anew, seeded by their
    /// number) until `hours` are reached.
    struct Tracks: Sendable {
        var names: [String], prints: [AnyFingerprint], synthesis: Synthesis, seed: UInt64
        var durations: [Double]

        init(names: [String], prints: [AnyFingerprint], synthesis: Synthesis, seed: UInt64, hours: Double) {
            (self.names, self.prints, self.synthesis, self.seed) = (names, prints, synthesis, seed)
            durations = prints.map(\.duration)
            var seconds = durations.reduce(0, +)
            while seconds < hours * 3600 {
                durations.append(prints[(durations.count - prints.count) % prints.count].duration)
                seconds += durations.last!
                self.names.append("synthetic-\(durations.count - 1 - prints.count)")
            }
        }

        /// Track `t`'s fingerprint; a synthetic one is made anew each time (`redrawn: false`: its model, whose
        /// timing it keeps, for a track that is only laid out).
        func print(_ t: Int, redrawn: Bool = true) -> AnyFingerprint {
            guard t >= prints.count else { return prints[t] }
            let synthetic = t - prints.count, model = prints[synthetic % prints.count]
            return redrawn ? synthesis.synthetic(like: model, seed: derivedSeed(seed, "synthetic", "\(synthetic)")) : model
        }

        /// The catalog of every track, each track counted on `progress`; a synthetic track whose prints are
        /// drawn again (`Synthesis.drawnAgain`) is not held, and verification draws a candidate's again.
        func catalog(_ algorithm: AnyAlgorithm, progress: ProgressReporter) -> Catalog {
            progress.start(String(format: "building %.0f h", durations.reduce(0, +) / 3600), total: durations.count)
            defer { progress.finish() }
            let catalog = Catalog(algorithm: algorithm), drawnAgain = synthesis.drawnAgain
            if drawnAgain { catalog.printSource = { [self] t in print(t) } }
            for t in durations.indices {
                catalog.add(print(t), name: names[t], keepingPrint: !drawnAgain || t < prints.count)
                progress.advance()
            }
            catalog.seal()
            return catalog
        }
    }

    /// What the searches of one size found: each query's top answer (threshold not applied) and CPU.
    struct Searched {
        var answers: [(top: Match?, milliseconds: Double)?]
        var indexBytes: Int, printBytes: Int, hours: Double, buildSeconds: Double
    }

    private func search(_ tracks: Tracks, algorithm: AnyAlgorithm, queries prints: [AnyFingerprint?], progress: ProgressReporter) throws -> Searched {
        let started = Date(), catalog = tracks.catalog(algorithm, progress: progress), built = Date().timeIntervalSince(started)
        progress.start(String(format: "searching %.0f h", catalog.duration / 3600), total: prints.count)
        defer { progress.finish() }
        let answers = try timed(prints, progress: progress) { try catalog.search($0, limit: 1, applyingThreshold: false).first }
            .map { $0.map { (top: $0.value, milliseconds: $0.milliseconds) } }
        return Searched(answers: answers, indexBytes: catalog.indexByteCount, printBytes: catalog.byteCount - catalog.indexByteCount,
                        hours: catalog.duration / 3600, buildSeconds: built)
    }

    /// `body` for every query that has a fingerprint, on every thread, with its CPU milliseconds (nil: none).
    private func timed<T>(_ prints: [AnyFingerprint?], progress: ProgressReporter,
                          _ body: (AnyFingerprint) throws -> T) throws -> [(value: T, milliseconds: Double)?] {
        try parallelMap(prints.count, threads: benchmark.threads) { q -> Result<(value: T, milliseconds: Double)?, Error> in
            defer { progress.advance() }
            guard let print = prints[q] else { return .success(nil) }
            return Result {
                let start = threadCPUSeconds()
                let value = try body(print)
                return (value, 1000 * (threadCPUSeconds() - start))
            }
        }.map { try $0.get() }
    }

    /// The same size as `slices` slices, one at a time: every slice's key counts first (its own tracks
    /// made and counted, then dropped), then each slice built with the whole catalog's common keys and
    /// searched, and each query's candidates over the slices ranked as the whole catalog's.
    private func searchSlices(_ tracks: Tracks, algorithm: AnyAlgorithm, queries prints: [AnyFingerprint?], progress: ProgressReporter) throws -> Searched {
        let started = Date(), ranges = CatalogSlices.ranges(durations: tracks.durations, count: slices)
        progress.start("counting keys of \(slices) slices", total: slices)
        let whole = KeyCounts.whole(ranges.compactMap { range in
            defer { progress.advance() }
            let counter = KeyCounter(algorithm: algorithm)
            for t in range { counter.add(tracks.print(t)) }
            return counter.counts
        })
        var candidates = prints.map { _ in [[Catalog.VerifiedCandidate]]() }, milliseconds = prints.map { _ in 0.0 }
        var indexBytes = 0, printBytes = 0, built = Date().timeIntervalSince(started)
        for (j, range) in ranges.enumerated() {
            progress.start(String(format: "building slice %d of %d", j + 1, slices), total: 1)
            let building = Date()
            let roles = CatalogSlices.roles(durations: tracks.durations, owned: range, reach: 2 * length)
            let slice = Catalog(slicing: algorithm, whole: whole)
            for t in tracks.durations.indices { slice.add(tracks.print(t, redrawn: roles[t] != .laidOut), name: tracks.names[t], checksum: "", role: roles[t]) }
            slice.seal()
            built += Date().timeIntervalSince(building)
            indexBytes = max(indexBytes, slice.indexByteCount)
            printBytes = max(printBytes, slice.byteCount - slice.indexByteCount)
            progress.start(String(format: "searching slice %d of %d", j + 1, slices), total: prints.count)
            let found = try timed(prints, progress: progress) { try slice.sliceCandidates($0, limit: 1) }
            for (q, answer) in found.enumerated() {
                candidates[q].append(answer?.value ?? [])
                milliseconds[q] += answer?.milliseconds ?? 0
            }
        }
        progress.finish()
        let kept = algorithm.capabilities.contains(.indexed) ? Catalog.defaultVerified : nil
        let answers = prints.indices.map { q -> (top: Match?, milliseconds: Double)? in
            guard prints[q] != nil else { return nil }
            let top = CatalogSlices.best(candidates[q], kept: kept, limit: 1).first
            return (top.map { Match(reference: tracks.names[$0.reference], comparison: $0.comparison) }, milliseconds[q])
        }
        return Searched(answers: answers, indexBytes: indexBytes, printBytes: printBytes, hours: tracks.durations.reduce(0, +) / 3600, buildSeconds: built)
    }

    /// The threshold calibrated on the top scores of the calibration half's negatives, the other recordings' held out.
    private func calibration(_ searched: Searched, queries: [BenchmarkQuery]) -> Calibration.Length {
        let scores = { (half: NegativeSplit.Half) in
            queries.indices.filter { queries[$0].half == half }.map { searched.answers[$0]?.top?.comparison.score ?? 0 }
        }
        return Calibration.Length(length: length, calibrationScores: scores(.calibration), heldOutScores: scores(.heldOut),
                                  target: benchmark.spec.falsePositiveTarget, confidence: benchmark.spec.confidence)
    }

    /// The clean row: its answers are the first `queries.count` of `searched` (the degraded ones follow).
    private func measure(_ searched: Searched, queries: [BenchmarkQuery], algorithm: AnyAlgorithm, realThreshold: Double) -> Point {
        let answers = Array(searched.answers[..<queries.count]), calibration = calibration(searched, queries: queries)
        let positives = queries.indices.filter { !queries[$0].negative }
        let correct = correct(positives.map { answers[$0] }, positives.map { queries[$0] }, expected: positives.map { queries[$0].start },
                              threshold: calibration.threshold)
        let (median, p90) = Self.searchTimes(answers)
        return Point(algorithm: algorithm.identifier, hours: searched.hours, syntheticTracks: 0, indexBytes: searched.indexBytes,
                     printBytes: searched.printBytes, buildSeconds: searched.buildSeconds, peakResidentBytes: peakResidentBytes(),
                     searchMilliseconds: median, searchMilliseconds90: p90, positives: positives.count, correct: correct,
                     threshold: calibration.threshold, heldOutNegatives: calibration.heldOutScores.count,
                     heldOutFalsePositives: calibration.heldOutFalsePositives,
                     falsePositivesAtRealThreshold: calibration.heldOutScores.count { $0 > realThreshold })
    }

    /// Positives whose top answer, above `threshold`, is their track at the moment `expected` (nil: no answer) within the tolerance.
    private func correct(_ answers: [(top: Match?, milliseconds: Double)?], _ positives: [BenchmarkQuery], expected: [Double?], threshold: Double) -> Int {
        positives.indices.count { q in
            guard let top = answers[q]?.top, let expected = expected[q], top.comparison.score > threshold else { return false }
            return top.reference == positives[q].file && abs(top.comparison.offset - expected) <= benchmark.spec.offsetTolerance
        }
    }

    /// The median and 90th percentile of the answered queries' search times.
    static func searchTimes(_ answers: [(top: Match?, milliseconds: Double)?]) -> (median: Double, p90: Double) {
        let times = answers.compactMap { $0?.milliseconds }.sorted()
        func quantile(_ p: Double) -> Double { times.isEmpty ? 0 : times[min(times.count - 1, Int(p * Double(times.count)))] }
        return (quantile(0.5), quantile(0.9))
    }
}

extension SyntheticScale.Point {
    /// The same size's row for a condition's positives: their correct answers and search times, the clean row's
    /// catalog, threshold and false positives.
    func under(_ condition: String, answers: [(top: Match?, milliseconds: Double)?], correct: Int) -> Self {
        var point = self
        point.condition = condition
        (point.searchMilliseconds, point.searchMilliseconds90) = SyntheticScale.searchTimes(answers)
        (point.positives, point.correct) = (answers.count, correct)
        return point
    }
}
