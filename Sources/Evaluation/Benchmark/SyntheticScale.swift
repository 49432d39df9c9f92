import AudioIO
import Fingerprinting
import Foundation

/// The synthetic scale test: the benchmark's real catalog grown to hundreds or thousands of hours with
/// SYNTHETIC tracks, and the benchmark's real clean queries (positives and negatives) searched at each
/// size. A synthetic track is a real track's fingerprint with every key redrawn from the real catalog's
/// keys (`AnyFingerprint.redrawingKeys`): the index holds as many postings, spread over the keys as the
/// real ones are, at the same times, so search time, memory, index size and chance matches grow as they
/// would with more music, while only the real tracks can be the right answer. What it cannot show: real
/// music's near-duplicates (covers, remasters, shared samples) and its keys' correlations in time.
public struct SyntheticScale {
    public struct Point: Sendable, Codable {
        public var algorithm: String
        /// Hours in the catalog, real and synthetic.
        public var hours: Double
        public var syntheticTracks: Int
        /// Bytes of the index and of the verification prints (the catalog's `byteCount`).
        public var indexBytes: Int
        public var printBytes: Int
        public var buildSeconds: Double
        /// After building, the process's peak resident memory (sizes are measured in increasing order).
        public var peakResidentBytes: Int
        /// Per clean query, CPU milliseconds of the search alone: median and 90th percentile.
        public var searchMilliseconds: Double
        public var searchMilliseconds90: Double
        public var positives: Int
        /// Positives whose top answer is the right track within the offset tolerance, at `threshold`.
        public var correct: Int
        /// The threshold calibrated at this size on the even-numbered negatives (target rate), and the
        /// odd-numbered, held-out negatives above it.
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

    public init(benchmark: BenchmarkConfiguration, hours: [Double], length: Double) {
        self.benchmark = benchmark
        self.hours = hours
        self.length = length
    }

    public func run() throws -> [Point] {
        let bench = Benchmark(benchmark)
        var failures: [RunResults.Problem] = []
        let files = try bench.readCatalog(&failures)
        var spec = benchmark.spec
        spec.queryLengths = [length]
        let queries = BenchmarkPlan.draw(spec: spec, tracks: files.tracks, durations: files.durations, negatives: files.negatives,
                                         negativeDurations: files.negativeDurations, seed: benchmark.seed)
        let (real, _) = try bench.buildCatalogs()
        let progress = ProgressReporter(benchmark.progress)
        var points: [Point] = []
        for (a, algorithm) in benchmark.algorithms.enumerated() {
            let prints = real[a].fingerprints.compactMap { $0 }, pool = prints.flatMap { $0.keys ?? [] }
            guard prints.count == real[a].names.count, !pool.isEmpty else {
                throw DatasetError(path: algorithm.identifier, reason: "its fingerprints have no keys to redraw (the synthetic scale test takes constellation, panako or haitsma-kalker)")
            }
            let asked = queryPrints(algorithm, queries, progress: progress)
            var realThreshold: Double?
            for target in hours.sorted() {
                let started = Date()
                let catalog = Catalog(algorithm: algorithm)
                for (name, print) in zip(real[a].names, prints) { catalog.add(print, name: name) }
                var synthetic = 0, seconds = catalog.duration
                while seconds < target * 3600 {
                    let model = prints[synthetic % prints.count]
                    catalog.add(model.redrawingKeys(from: pool, seed: derivedSeed(benchmark.seed, "synthetic", "\(synthetic)"))!, name: "synthetic-\(synthetic)")
                    seconds += model.duration
                    synthetic += 1
                }
                catalog.seal()
                let built = Date().timeIntervalSince(started)
                var point = try measure(catalog, queries: queries, prints: asked, algorithm: algorithm, realThreshold: &realThreshold, progress: progress)
                point.syntheticTracks = synthetic
                point.buildSeconds = built
                points.append(point)
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

    private func measure(_ catalog: Catalog, queries: [BenchmarkQuery], prints: [AnyFingerprint?], algorithm: AnyAlgorithm,
                         realThreshold: inout Double?, progress: ProgressReporter) throws -> Point {
        progress.start(String(format: "searching %.0f h", catalog.duration / 3600), total: queries.count)
        let answers = try parallelMap(queries.count, threads: benchmark.threads) { q -> Result<(top: Match?, milliseconds: Double)?, Error> in
            defer { progress.advance() }
            guard let print = prints[q] else { return .success(nil) }
            return Result {
                let start = threadCPUSeconds()
                let top = try catalog.search(print, limit: 1, applyingThreshold: false).first
                return (top, 1000 * (threadCPUSeconds() - start))
            }
        }.map { try $0.get() }
        progress.finish()
        let negatives = queries.indices.filter { queries[$0].negative }
        let scores = negatives.map { answers[$0]?.top?.comparison.score ?? 0 }
        let calibration = Calibration.Length(length: length, calibrationScores: stride(from: 0, to: scores.count, by: 2).map { scores[$0] },
                                             heldOutScores: stride(from: 1, to: scores.count, by: 2).map { scores[$0] },
                                             target: benchmark.spec.falsePositiveTarget)
        if realThreshold == nil { realThreshold = calibration.threshold }
        let positives = queries.indices.filter { !queries[$0].negative }
        let correct = positives.count { q in
            guard let top = answers[q]?.top, top.comparison.score > calibration.threshold else { return false }
            return top.reference == queries[q].file && abs(top.comparison.offset - queries[q].start) <= benchmark.spec.offsetTolerance
        }
        let times = answers.compactMap { $0?.milliseconds }.sorted()
        func quantile(_ p: Double) -> Double { times.isEmpty ? 0 : times[min(times.count - 1, Int(p * Double(times.count)))] }
        return Point(algorithm: algorithm.identifier, hours: catalog.duration / 3600, syntheticTracks: 0, indexBytes: catalog.indexByteCount,
                     printBytes: catalog.byteCount - catalog.indexByteCount, buildSeconds: 0, peakResidentBytes: peakResidentBytes(),
                     searchMilliseconds: quantile(0.5), searchMilliseconds90: quantile(0.9), positives: positives.count, correct: correct,
                     threshold: calibration.threshold, heldOutNegatives: calibration.heldOutScores.count,
                     heldOutFalsePositives: calibration.heldOutFalsePositives,
                     falsePositivesAtRealThreshold: calibration.heldOutScores.count { $0 > realThreshold! })
    }
}
