import AudioIO
import Degradation
import DSP
import Evaluation
import Fingerprinting
import Foundation
import OutsidePrograms

/// The identification benchmark: index whole catalog tracks once, then find seeded, degraded queries
/// among them through each algorithm's own index, in named phases:
/// read the catalog → draw the queries → index (decode each track once for every algorithm) →
/// query (cut, degrade, fingerprint, search) → scaling (optional) → results and costs.
public struct Benchmark {
    /// Answers kept per query: every candidate a search verifies (hit@5 needs five), so the first the
    /// documented threshold calls a match is what a search at limit 1 returns (the scaling curve's whole catalog).
    static let answersKept = Catalog.defaultVerified

    let configuration: BenchmarkConfiguration
    public init(_ configuration: BenchmarkConfiguration) { self.configuration = configuration }

    /// What fingerprints the catalog: the dataset, the threads and the cache of this benchmark.
    public var indexer: CatalogIndexer { CatalogIndexer(dataset: configuration.dataset, threads: configuration.threads, cacheFolder: configuration.cacheFolder) }

    public func run() throws -> (results: BenchmarkResults, costs: BenchmarkCosts) {
        let started = Date(), c = configuration
        let names = c.algorithms.map(\.identifier) + c.systems.map(\.identifier)
        if let twice = Dictionary(grouping: names, by: { $0 }).first(where: { $0.value.count > 1 })?.key {
            throw ChoiceError("the run's algorithms and systems", reason: "'\(twice)' names two of them, whose answers would share one row; "
                               + "give the system file another identifier")
        }
        let progress = ProgressReporter(c.progress)
        var failures = ChecksumCheck(dataset: c.dataset, cacheFolder: c.cacheFolder).problems(), skipped: [Problem] = []
        let catalog = try readCatalog(&failures)
        let drawn = try drawQueries(catalog)
        let (conditions, recordings) = try usableConditions(&skipped)
        let stageContext = StageContext(recordings: recordings.audio)  // a condition runs whole or not at all
        guard !conditions.isEmpty else {
            throw DatasetError(path: c.dataset.manifestPath, reason: "no condition can be run: "
                               + skipped.map { "\($0.item) \($0.reason)" }.joined(separator: "; "))
        }
        let algorithms = runnable(hours: catalog.durations.reduce(0, +) / 3600, skipped: &skipped)
        try checkCatalogShard()
        let before = failures.count
        let index = try c.catalogShard.map { try buildSliceIndex(catalog, shard: $0, algorithms: algorithms, progress: progress, failures: &failures) }
            ?? buildIndex(catalog.tracks, algorithms: algorithms, progress: progress, failures: &failures)
        let queries = Self.fromIndexedTracks(drawn, unindexed: Set(failures[before...].compactMap(\.file)), skipped: &skipped)
        let systems = indexSystems(catalog.tracks, durations: catalog.durations, skipped: &skipped, progress: progress)
        let files = SystemQueryFiles(folder: try ScratchFolder.make("queries"),
                                     rates: Set(systems.map(\.system.description.audio.sampleRate)).sorted())
        defer { try? FileManager.default.removeItem(at: files.folder) }
        let answered = queries.indices.filter { c.shard?.includes($0) ?? true }.map { queries[$0] }
        let scalingLength = c.part == nil ? c.scalingLength : nil
        let outcomes = answerAll(answered, conditions: conditions, stageContext: stageContext, algorithms: algorithms, index: index,
                                 systemFiles: files, scalingLength: scalingLength, progress: progress)
        for catalog in index.catalogs { try catalog.throwIfDamaged() }  // an index file found damaged while answering
        let asked = answerSystems(systems, files: files, asked: outcomes.flatMap(\.systemQuestions),
                                  lengths: Dictionary(queries.map { ($0.id, $0.length) }) { first, _ in first }, progress: progress)
        var spec = c.spec
        spec.conditions = conditions
        var results = assemble(spec: spec, catalog: catalog, algorithms: algorithms.indices.map { Self.info(algorithms[$0], index.catalogs[$0]) }
                                   + systems.map(Self.info),
                               queries: queries, answers: outcomes.flatMap(\.answers) + asked.answers, skipped: skipped, failures: failures,
                               borrowed: recordings.borrowed)
        results.repeats = RepeatedPassages.judge(results, path: c.dataset.path, threads: c.threads)  // a slice: its candidates' (the merge keeps what it uses)
        let scaling = try scalingLength.map { try scalingCurve(length: $0, queries: answered, outcomes: outcomes, tracks: catalog.tracks,
                                                          durations: catalog.durations, algorithms: algorithms, index: index,
                                                          results: results, progress: progress) } ?? []
        var costs = measuredCosts(started: started, algorithms: algorithms, index: index, answered: answered, outcomes: outcomes,
                                  scalingLength: scalingLength, scaling: scaling)
        costs.systems = asked.costs.isEmpty ? nil : asked.costs
        if c.catalogShard == nil { keepAudio(results, stageContext: stageContext, progress: progress) }  // a slice's answers are only candidates
        return (results, costs)
    }

    /// The run's queries and negatives, drawn by its seed; refused when some length has no query or no negative
    /// to calibrate on (no row and no threshold).
    func drawQueries(_ catalog: CatalogFiles) throws -> [BenchmarkQuery] {
        let c = configuration
        let drawn = BenchmarkPlan.draw(spec: c.spec, tracks: catalog.tracks, durations: catalog.durations,
                                         negatives: catalog.negatives, negativeDurations: catalog.negativeDurations,
                                         crossCheck: catalog.crossCheck, crossCheckDurations: catalog.crossCheckDurations, seed: c.seed)
        let uncut = c.spec.queryLengths.filter { length in
            !drawn.contains { !$0.negative && $0.length == length } || !drawn.contains { $0.negative && $0.half != .crossCheck && $0.length == length }
        }
        guard uncut.isEmpty else {
            throw DatasetError(path: c.dataset.manifestPath, reason: "no query or no negative query of "
                               + uncut.map { "\(exactText($0)) s" }.joined(separator: ", ")
                               + " can be cut: every catalog track or negative recording is shorter (the longest track \(String(format: "%.1f", catalog.durations.max() ?? 0)) s, "
                               + "the longest negative \(String(format: "%.1f", catalog.negativeDurations.max() ?? 0)) s); choose shorter queryLengths")
        }
        return drawn
    }

    /// The queries not cut from a track some index lacks (it failed to decode or fingerprint): such a query
    /// could only be missed, so it is left out for every algorithm and system, and said so per track.
    static func fromIndexedTracks(_ queries: [BenchmarkQuery], unindexed: Set<String>, skipped: inout [Problem]) -> [BenchmarkQuery] {
        guard !unindexed.isEmpty else { return queries }
        let lost = Dictionary(grouping: queries.filter { !$0.negative && unindexed.contains($0.file) }, by: \.file)
        for (track, cut) in lost.sorted(by: { $0.key < $1.key }) {
            skipped.append(.init(item: "\(cut.count) queries cut from \(track)",
                                 reason: "the track is not in every index (see failures): left out for every algorithm and system", file: track))
        }
        return queries.filter { $0.negative || !unindexed.contains($0.file) }
    }

    /// Phase 1: the catalog and the negatives, with their lengths from the headers.
    struct CatalogFiles {
        var tracks: [String], durations: [Double], negatives: [String], negativeDurations: [Double]
        var crossCheck: [String] = [], crossCheckDurations: [Double] = []
    }

    func readCatalog(_ failures: inout [Problem]) throws -> CatalogFiles {
        let c = configuration
        guard let section = c.dataset.manifest.catalog, !section.tracks.isEmpty else {
            throw DatasetError(path: c.dataset.manifestPath, reason: "no catalog section: the benchmark needs whole tracks. " + Dataset.catalogHelp)
        }
        if let twice = Dictionary(grouping: section.tracks, by: { $0 }).first(where: { $0.value.count > 1 })?.key {
            throw DatasetError(path: c.dataset.manifestPath, reason: "catalog track \(twice) is listed twice: its queries would have two right answers")
        }
        let byContent = Dictionary(grouping: section.tracks.filter { c.dataset.recordedSHA256($0) != nil }, by: { c.dataset.recordedSHA256($0)! })
        for same in byContent.values where same.count > 1 {
            Console.warning("catalog tracks \(same.joined(separator: " and ")) are the same audio (one SHA-256): a query cut from one is scored "
                            + "\"wrong recording\" when another is answered; keep one of them")
        }
        let (tracks, durations) = indexer.readable(section.tracks, failures: &failures)
        let (negatives, negativeDurations) = indexer.readable(section.negatives, failures: &failures)
        let (crossCheck, crossCheckDurations) = indexer.readable(section.crossCheck ?? [], failures: &failures)
        guard !tracks.isEmpty else { throw DatasetError(path: c.dataset.manifestPath, reason: "no catalog track could be read") }
        return CatalogFiles(tracks: tracks, durations: durations, negatives: negatives, negativeDurations: negativeDurations,
                            crossCheck: crossCheck, crossCheckDurations: crossCheckDurations)
    }

    /// The algorithms that can search `hours` of catalog (brute force only below the limit), and the query
    /// lengths each is too short for, said as skipped.
    func runnable(hours: Double, skipped: inout [Problem]) -> [AnyAlgorithm] {
        let c = configuration
        let algorithms = c.algorithms.filter { algorithm in
            if algorithm.capabilities.contains(.indexed) || hours <= c.spec.bruteForceHourLimit { return true }
            skipped.append(.init(item: algorithm.identifier, reason: String(format: "no index: brute force over %.1f h is above the %.1f h limit (bruteForceHourLimit)", hours, c.spec.bruteForceHourLimit)))
            return false
        }
        for algorithm in algorithms {
            for length in c.spec.queryLengths where length < algorithm.minimumDuration {
                skipped.append(.init(item: "\(algorithm.identifier): \(QueryLength(length).spoken) queries",
                                     reason: String(format: "shorter than the %.3f s the algorithm needs", algorithm.minimumDuration)))
            }
        }
        return algorithms
    }

    /// Phase 3: each algorithm's catalog, mapped from its index file or built from the tracks' fingerprints.
    struct BuiltIndex {
        var catalogs: [Catalog], buildSeconds: [Double], indexed: CatalogIndexer.Indexed
        var loaded: [Int: (catalog: Catalog, loadSeconds: Double, fileBytes: Int)]
        var peer: PeerTiming?
        /// A track's position in the catalog, by file.
        var trackIndex: [String: Int]
    }

    func buildIndex(_ tracks: [String], algorithms: [AnyAlgorithm], progress: ProgressReporter, failures: inout [Problem]) throws -> BuiltIndex {
        let c = configuration
        let loaded = try loadIndexFiles(algorithms: algorithms, tracks: tracks)
        progress.start("indexing", total: tracks.count)
        let indexed = indexer.index(tracks, algorithms: algorithms, skipping: Set(loaded.keys), progress: progress)
        var peer: PeerTiming?
        if c.peerTracks > 0 {
            progress.start("timing fpcalc, the peer, on \(min(c.peerTracks, tracks.count)) tracks", total: 1)
            peer = PeerTiming.fpcalc(tracks.prefix(c.peerTracks).map(c.dataset.path))
            progress.advance()
        }
        progress.start("building the indexes", total: algorithms.count)
        for (t, failure) in indexed.failures { failures.append(.init(item: "catalog \(tracks[t])", reason: failure, file: tracks[t])) }
        var catalogs: [Catalog] = [], buildSeconds: [Double] = []
        for a in algorithms.indices {
            defer { progress.advance() }
            if let file = loaded[a] {
                catalogs.append(file.catalog)
                buildSeconds.append(file.loadSeconds)
                continue
            }
            let clock = ContinuousClock.now
            catalogs.append(Catalog(algorithm: algorithms[a], sealing: tracks.indices.lazy.map { (indexed.prints[a][$0], tracks[$0], "") }))
            buildSeconds.append((ContinuousClock.now - clock).seconds)
        }
        return BuiltIndex(catalogs: catalogs, buildSeconds: buildSeconds, indexed: indexed, loaded: loaded, peer: peer,
                     trackIndex: Dictionary(uniqueKeysWithValues: tracks.enumerated().map { ($0.element, $0.offset) }))
    }

    /// Phase 4: every query of this part answered under every condition (negatives: clean only).
    func answerAll(_ answered: [BenchmarkQuery], conditions: [BenchmarkCondition], stageContext: StageContext, algorithms: [AnyAlgorithm],
                   index: BuiltIndex, systemFiles: SystemQueryFiles, scalingLength: Double?, progress: ProgressReporter) -> [QueryOutcome] {
        let c = configuration
        progress.start("querying", total: answered.count)
        let cache = FingerprintCache(folder: c.cacheFolder)
        let outcomes = parallelMap(answered.count, threads: c.threads) { q -> QueryOutcome in
            defer { progress.advance() }
            return answer(answered[q], conditions: answered[q].negative ? [conditions[0].clean] : conditions,
                          stageContext: stageContext, cache: cache, algorithms: algorithms, catalogs: index.catalogs, trackIndex: index.trackIndex,
                          systemFiles: systemFiles, keepCleanSearches: answered[q].length == scalingLength)
        }
        progress.finish()
        return outcomes
    }

    /// The results: every answer, its failures named, the shard's key.
    func assemble(spec: BenchmarkSpec, catalog: CatalogFiles, algorithms: [BenchmarkResults.AlgorithmInfo], queries: [BenchmarkQuery],
                  answers: [BenchmarkAnswer], skipped: [Problem], failures: [Problem],
                  borrowed: [BorrowedRecording]) -> BenchmarkResults {
        let c = configuration
        var results = BenchmarkResults(
            tool: .fpbench(c.toolVersion), seed: c.seed, spec: spec,
            catalog: .init(dataset: c.dataset.manifest.name, manifestSHA256: c.dataset.manifestSHA256,
                           tracks: catalog.tracks, trackSeconds: catalog.durations, negatives: catalog.negatives,
                           negativeSeconds: catalog.negativeDurations, crossCheck: catalog.crossCheck.isEmpty ? nil : catalog.crossCheck,
                           borrowed: borrowed.isEmpty ? nil : borrowed),
            algorithms: algorithms, queries: queries, answers: answers, skipped: skipped, failures: failures)
        for answer in results.answers {
            guard let reason = answer.failure else { continue }
            results.failures.append(.init(item: "\(answer.algorithm): query \(answer.query)/\(answer.condition)", reason: reason,
                                          algorithm: answer.algorithm, test: answer.condition))
        }
        return c.part.map { results.keyed($0) } ?? results
    }

    /// A built-in algorithm as the results list it.
    static func info(_ algorithm: AnyAlgorithm, _ catalog: Catalog) -> BenchmarkResults.AlgorithmInfo {
        .init(identifier: algorithm.identifier, displayName: algorithm.displayName, profile: algorithm.profile,
              search: catalog.isIndexed ? "index" : "brute force")
    }

    /// Phase 5's costs: wall and CPU time, memory, index sizes, per-query percentiles, the ratio to the peer.
    func measuredCosts(started: Date, algorithms: [AnyAlgorithm], index: BuiltIndex, answered: [BenchmarkQuery], outcomes: [QueryOutcome],
                       scalingLength: Double?, scaling: [BenchmarkCosts.ScalingPoint]) -> BenchmarkCosts {
        let c = configuration, indexed = index.indexed
        return BenchmarkCosts(
            threads: c.threads, wallSeconds: Date().timeIntervalSince(started), decodeCPUSeconds: indexed.decode.reduce(0, +),
            peakResidentBytes: peakResidentBytes(),
            algorithms: algorithms.indices.map { a in
                func percentiles(_ pick: (QueryOutcome) -> [Double]) -> [String: BenchmarkCosts.Percentiles] {
                    Dictionary(uniqueKeysWithValues: c.spec.queryLengths.map { length in
                        (QueryLength(length).tag, .init(zip(answered, outcomes).filter { $0.0.length == length }.flatMap { pick($0.1) }))
                    })
                }
                let catalog = index.catalogs[a]
                var costs = BenchmarkCosts.AlgorithmCosts(
                    identifier: algorithms[a].identifier, fingerprintCPUSeconds: indexed.cpu[a].reduce(0, +),
                    catalogSeconds: catalog.duration, fingerprintsFromCache: indexed.fromCache[a],
                    indexBuildSeconds: index.buildSeconds[a], indexBytes: catalog.indexByteCount,
                    fingerprintBytes: catalog.byteCount - catalog.indexByteCount,
                    queryFingerprintMilliseconds: percentiles { $0.fingerprintMilliseconds[a] },
                    searchMilliseconds: percentiles { $0.searchMilliseconds[a] },
                    speedRatioToPeer: index.peer.flatMap { peer in
                        // Ours: decoding + fingerprinting; a track whose fingerprint came from the cache is left out.
                        PeerTiming.medianRatio(peer: peer.cpuSeconds, ours: zip(indexed.decode, indexed.cpu[a]).map { $1 > 0 ? $0 + $1 : 0 })
                    })
                if let file = index.loaded[a] {
                    costs.indexFileBytes = file.fileBytes
                    costs.indexLoadSeconds = file.loadSeconds
                }
                return costs
            },
            peer: index.peer,
            scalingLength: scalingLength, scaling: scaling, scalingExponents: Self.exponents(scaling))
    }
}
