import AudioIO
import Degradation
import DSP
import Evaluation
import Fingerprinting
import Foundation

/// The benchmark's last phases: each query answered under every condition, and the scaling curve.
extension Benchmark {
    // MARK: Querying

    struct QueryOutcome {
        var answers: [BenchmarkAnswer]
        var fingerprintMilliseconds: [[Double]]
        var searchMilliseconds: [[Double]]
        /// Per algorithm, the query's clean search (kept for the scaling curve).
        var cleanSearches: [CleanSearch?]
        /// The query under each condition as written for the outside systems (no algorithm named yet;
        /// a failure when it could not be cut, degraded or written).
        var systemQuestions: [BenchmarkAnswer] = []
    }

    /// Cuts one query's window, and under every condition degrades it, fingerprints it with every
    /// algorithm (through the cache: a warm run decodes and degrades nothing) and searches that
    /// algorithm's catalog.
    func answer(_ query: BenchmarkQuery, conditions: [BenchmarkCondition], stageContext: StageContext, cache: FingerprintCache,
                        algorithms: [AnyAlgorithm], catalogs: [Catalog], trackIndex: [String: Int], systemFiles: SystemQueryFiles,
                        keepCleanSearches: Bool) -> QueryOutcome {
        var outcome = QueryOutcome(answers: [], fingerprintMilliseconds: algorithms.map { _ in [] },
                                   searchMilliseconds: algorithms.map { _ in [] }, cleanSearches: algorithms.map { _ in nil })
        let keys = ContentKeys(dataset: configuration.dataset, seed: configuration.seed)
        let window = Once { Result { try self.window(query) } }
        for condition in conditions {
            let chain = Result { try self.chain(query, condition, stageContext: stageContext) }
            let degraded = Once { window.get.flatMap { audio in chain.flatMap { chain in Result { try chain.apply(audio) } } } }
            let moved = (try? chain.get()).flatMap { Self.movedStart(query, $0) }
            let question = BenchmarkQuestion(query: query.id, condition: condition.id)
            let key = keys.benchmarkQuery(query, condition: condition, seed: question.chainSeed(configuration.seed))
            // The degraded window at one rate (once, for every algorithm working at it), with the CPU time resampling took.
            func input(at rate: Double) throws -> (audio: Audio, seconds: Double) {
                let audio = try degraded.get.get(), start = threadCPUSeconds()
                return (try audio.resampled(to: rate), threadCPUSeconds() - start)
            }
            if !systemFiles.rates.isEmpty {
                var question = BenchmarkAnswer(algorithm: "", query: query.id, condition: condition.id, top: [], expectedOffset: moved)
                do { try systemFiles.write(degraded.get.get(), query: query.id, condition: condition.id) } catch { question.failure = "\(error)" }
                outcome.systemQuestions.append(question)
            }
            let asked = algorithms.indices.filter { query.length >= algorithms[$0].minimumDuration }
            let prints = self.prints(asked, algorithms: algorithms, cache: cache, key: key, input: input, milliseconds: &outcome.fingerprintMilliseconds)
            for a in asked {
                var answer = BenchmarkAnswer(algorithm: algorithms[a].identifier, query: query.id, condition: condition.id, top: [], expectedOffset: moved)
                do {
                    let print = try prints[a]!.get()
                    let fingerprinted = threadCPUSeconds()
                    answer.top = try matches(print, in: catalogs[a], algorithm: algorithms[a], trackIndex: trackIndex)
                    let searched = 1000 * (threadCPUSeconds() - fingerprinted)
                    outcome.searchMilliseconds[a].append(searched)
                    if keepCleanSearches && condition.id == BenchmarkCondition.cleanID {
                        outcome.cleanSearches[a] = CleanSearch(print: print, matched: answer.top.first(where: \.matched), milliseconds: searched)
                    }
                } catch let error as FingerprintError {
                    // Silence (a track's quiet start) or too little audio: nothing to look up, so no match.
                    answer.note = "\(error)"
                } catch {
                    answer.failure = "\(error)"
                }
                outcome.answers.append(answer)
            }
        }
        return outcome
    }

    /// The `asked` algorithms' fingerprints of one question: from the cache, or made together at each rate from
    /// `input` (`AnyAlgorithm.fingerprints`: a front end that several compute alike is computed once) and stored.
    /// An algorithm's query cost, appended to `milliseconds`: resampling to its rate and fingerprinting, as if it ran
    /// alone; not decoding and degrading the window, which no algorithm does.
    private func prints(_ asked: [Int], algorithms: [AnyAlgorithm], cache: FingerprintCache, key: String,
                        input: (Double) throws -> (audio: Audio, seconds: Double), milliseconds: inout [[Double]]) -> [Int: Result<AnyFingerprint, Error>] {
        var prints: [Int: Result<AnyFingerprint, Error>] = [:]
        for a in asked { if let cached = cache.load(algorithms[a], role: .query, contentKey: key) { prints[a] = .success(cached) } }
        let missing = asked.filter { prints[$0] == nil }
        for rate in Set(missing.map { algorithms[$0].sampleRate }).sorted() {
            let those = missing.filter { algorithms[$0].sampleRate == rate }
            switch Result(catching: { try input(rate) }) {
            case .failure(let error):
                for a in those { prints[a] = .failure(error) }
            case .success(let (audio, resampling)):
                for (a, made) in zip(those, AnyAlgorithm.fingerprints([audio], role: .query, algorithms: those.map { algorithms[$0] }, clock: threadCPUSeconds).results) {
                    prints[a] = made.print
                    guard case .success(let print) = made.print else { continue }
                    milliseconds[a].append(1000 * (made.seconds + resampling))
                    cache.store(print, algorithms[a], role: .query, contentKey: key)
                }
            }
        }
        return prints
    }

    /// `catalog`'s best answers to `print`, threshold not applied. A slice of the catalog passes on its
    /// candidates with their hits, for the merge to rank.
    func matches(_ print: AnyFingerprint, in catalog: Catalog, algorithm: AnyAlgorithm, trackIndex: [String: Int]) throws -> [BenchmarkMatch] {
        let found: [(reference: String, comparison: Comparison, hits: Int?)] = configuration.catalogShard == nil
            ? try catalog.search(print, limit: Self.answersKept, applyingThreshold: false).map { ($0.reference, $0.comparison, nil) }
            : try catalog.sliceCandidates(print, limit: Self.answersKept).map { (catalog.names[$0.reference], $0.comparison, $0.hits) }
        // Every catalog reference is a track (catalogs are built from the track list, index files checked against it).
        return found.compactMap { match in
            trackIndex[match.reference].map { BenchmarkMatch(track: $0, offset: match.comparison.offset, score: match.comparison.score,
                                                             rawFigure: match.comparison.rawFigure, matched: algorithm.isMatch(match.comparison),
                                                             timeFactor: match.comparison.timeFactor, candidateHits: match.hits) }
        }
    }

    /// One query's window of its track, at the working rate (before any condition).
    func window(_ query: BenchmarkQuery) throws -> Audio {
        try AudioReader.read(configuration.dataset.path(query.file), sampleRate: workingRate, window: TimeWindow(start: query.start, duration: query.length))
    }

    /// The track moment at the query's first sample after `chain` moved time (delay, speed, tempo); nil when it did not.
    static func movedStart(_ query: BenchmarkQuery, _ chain: DegradationChain) -> Double? {
        let moved = chain.timeMap.inverse(0)
        return abs(moved) > 1e-9 ? query.start + moved : nil
    }

    /// What a condition does to one query: its stages, seeded by the query and the condition.
    func chain(_ query: BenchmarkQuery, _ condition: BenchmarkCondition, stageContext: StageContext) throws -> DegradationChain {
        let seed = BenchmarkQuestion(query: query.id, condition: condition.id).chainSeed(configuration.seed)
        return DegradationChain(try condition.stages(stageContext, seed: seed), seed: seed)
    }

    // MARK: Scaling

    /// A clean query's search of the whole catalog, kept for the scaling curve.
    struct CleanSearch {
        /// Searched again in each smaller catalog.
        var print: AnyFingerprint
        /// The best answer the documented threshold calls a match: what `Catalog.search` at limit 1 returns
        /// (the answers are every candidate it verifies: `Benchmark.answersKept`).
        var matched: BenchmarkMatch?
        var milliseconds: Double
    }

    /// The same clean queries of one length against nested catalogs of 1/16 ... all of the tracks (a
    /// seeded order); a query whose track is left out counts as a negative there. The whole catalog's point
    /// is the questions' own searches of it (the same answers and times, not searched twice); the smaller
    /// ones are measured side by side on the benchmark's threads (each search's time is its own thread's CPU time).
    func scalingCurve(length: Double, queries: [BenchmarkQuery], outcomes: [QueryOutcome], tracks: [String], durations: [Double],
                              algorithms: [AnyAlgorithm], index: BuiltIndex, results: BenchmarkResults,
                              progress: ProgressReporter) throws -> [BenchmarkCosts.ScalingPoint] {
        let prints = index.indexed.prints
        let order = tracks.indices.sorted { derivedSeed(configuration.seed, "scaling", tracks[$0]) < derivedSeed(configuration.seed, "scaling", tracks[$1]) }
        let chosen = queries.indices.filter { queries[$0].length == length }
        let fractions = [1.0 / 16, 1.0 / 8, 1.0 / 4, 1.0 / 2, 1]
        let measured = algorithms.indices.filter { algorithms[$0].capabilities.contains(.indexed) && prints[$0].contains(where: { $0 != nil }) }  // not from an index file
        let jobs = measured.flatMap { a in fractions.map { (a, $0) } }
        // The largest catalogs built first (the whole one is not built again), so no large one is left to one thread at the end.
        let built = jobs.map { $0.1 < 1 ? $0.1 : 0 }
        progress.start("scaling curve", total: jobs.count)
        defer { progress.finish() }
        return try parallelMap(jobs.count, threads: configuration.threads, order: jobs.indices.sorted { built[$0] > built[$1] }) { j -> Result<BenchmarkCosts.ScalingPoint, Error> in
            defer { progress.advance() }
            let (a, fraction) = jobs[j]
            let kept = Array(order.prefix(max(1, Int((fraction * Double(tracks.count)).rounded(.up)))))
            return Result { try scalingPoint(algorithms[a], kept: kept, prints: prints[a], whole: index.catalogs[a], fraction: fraction, queries: queries,
                                             chosen: chosen, searches: outcomes.map { $0.cleanSearches[a] }, tracks: tracks, durations: durations,
                                             results: results) }
        }.map { try $0.get() }
    }

    /// One point of the scaling curve: `algorithm`'s catalog of the `kept` tracks, searched with every chosen
    /// clean query; the `whole` catalog's point (every track kept) from the questions' searches of it.
    private func scalingPoint(_ algorithm: AnyAlgorithm, kept: [Int], prints: [AnyFingerprint?], whole: Catalog, fraction: Double,
                              queries: [BenchmarkQuery], chosen: [Int], searches: [CleanSearch?], tracks: [String], durations: [Double],
                              results: BenchmarkResults) throws -> BenchmarkCosts.ScalingPoint {
        let inCatalog = Set(kept.map { tracks[$0] })
        let catalog = kept.count == tracks.count ? nil : Catalog(algorithm: algorithm, sealing: kept.lazy.map { (prints[$0], "\($0)", "") })
        var correct = 0, positives = 0, falsePositives = 0, negatives = 0, times: [Double] = []
        for q in chosen {
            guard let search = searches[q] else { continue }
            var top = search.matched
            if let catalog {
                let start = threadCPUSeconds()
                top = try catalog.search(search.print, limit: 1).first.map {
                    BenchmarkMatch(track: Int($0.reference)!, offset: $0.comparison.offset, score: $0.comparison.score,
                                   rawFigure: $0.comparison.rawFigure, matched: true)
                }
                times.append(1000 * (threadCPUSeconds() - start))
            } else {
                times.append(search.milliseconds)
            }
            let query = queries[q]
            if !query.negative && inCatalog.contains(query.file) {
                positives += 1
                if BenchmarkMetrics.outcome(top, truth: query, results: results) == .correct { correct += 1 }
            } else {
                negatives += 1
                if top != nil { falsePositives += 1 }
            }
        }
        return .init(algorithm: algorithm.identifier, fraction: fraction, tracks: kept.count,
                     hours: kept.reduce(0) { $0 + durations[$1] } / 3600, correct: Rate(correct, of: positives),
                     falsePositives: Rate(falsePositives, of: negatives), searchMilliseconds: .init(times),
                     indexBytes: (catalog ?? whole).indexByteCount)
    }

    /// k in time ∝ hours^k, by least squares on logarithms of the median search times.
    static func exponents(_ points: [BenchmarkCosts.ScalingPoint]) -> [String: Double] {
        var result: [String: Double] = [:]
        for (algorithm, curve) in Dictionary(grouping: points, by: \.algorithm) {
            let xy = curve.filter { $0.hours > 0 && $0.searchMilliseconds.median > 0 }.map { (log($0.hours), log($0.searchMilliseconds.median)) }
            guard xy.count >= 2 else { continue }
            let mx = xy.map(\.0).reduce(0, +) / Double(xy.count), my = xy.map(\.1).reduce(0, +) / Double(xy.count)
            let sxx = xy.reduce(0) { $0 + ($1.0 - mx) * ($1.0 - mx) }, sxy = xy.reduce(0) { $0 + ($1.0 - mx) * ($1.1 - my) }
            if sxx > 0 { result[algorithm] = sxy / sxx }
        }
        return result
    }
}

extension BenchmarkCondition {
    public static let cleanID = "clean"
    /// The undegraded condition negatives are cut under.
    var clean: BenchmarkCondition { BenchmarkCondition(id: Self.cleanID, title: "clean") }
}
