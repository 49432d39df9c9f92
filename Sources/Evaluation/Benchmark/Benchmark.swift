import AudioIO
import Degradation
import DSP
import Fingerprinting
import Foundation

/// What to benchmark.
public struct BenchmarkConfiguration: Sendable {
    public var dataset: Dataset
    public var algorithms: [AnyAlgorithm]
    public var spec: BenchmarkSpec
    public var seed: UInt64
    public var threads: Int
    public var cacheFolder: URL?
    public var showProgress: Bool
    public var toolVersion: String
    /// Also measure the scaling curve (catalogs of 1/16 ... all of the tracks) at this query length.
    public var scalingLength: Double?
    /// Also time Chromaprint's `fpcalc` on this many catalog tracks (the same files, after indexing),
    /// as the peer for indexing speed.
    public var peerTracks = 0
    /// Answer only this part of the queries (`--shard I/N`); the scaling curve is left out.
    public var shard: Shard?
    /// Index files (`fpbench index build`) to load instead of indexing, one per algorithm at most.
    public var indexFiles: [String] = []

    public init(dataset: Dataset, algorithms: [AnyAlgorithm], spec: BenchmarkSpec, seed: UInt64, threads: Int,
                cacheFolder: URL?, showProgress: Bool, toolVersion: String, scalingLength: Double? = nil) {
        self.dataset = dataset
        self.algorithms = algorithms
        self.spec = spec
        self.seed = seed
        self.threads = threads
        self.cacheFolder = cacheFolder
        self.showProgress = showProgress
        self.toolVersion = toolVersion
        self.scalingLength = scalingLength
    }
}

/// The identification benchmark: index whole catalog tracks once, then find seeded, degraded queries
/// among them through each algorithm's own index, in named phases:
/// read the catalog → draw the queries → index (decode each track once for every algorithm) →
/// query (cut, degrade, fingerprint, search) → scaling (optional) → results and costs.
public struct Benchmark {
    /// Query windows are decoded and degraded at this rate; each algorithm resamples from it.
    static let workingRate = Runner.workingRate
    /// Answers kept per query (hit@5 needs five).
    static let answersKept = 5

    let configuration: BenchmarkConfiguration
    public init(_ configuration: BenchmarkConfiguration) { self.configuration = configuration }

    /// The catalog's tracks indexed by every algorithm (phases 1 and 3 alone), for `fpbench index build`:
    /// each catalog names its references by their files; tracks that could not be read are listed.
    public func buildCatalogs() throws -> (catalogs: [Catalog], failures: [RunResults.Problem]) {
        let c = configuration
        var failures: [RunResults.Problem] = []
        guard let section = c.dataset.manifest.catalog, !section.tracks.isEmpty else {
            throw DatasetError(path: c.dataset.manifestPath, reason: "no catalog section: an index needs whole tracks (see Datasets/README.md)")
        }
        let (tracks, _) = readable(section.tracks, failures: &failures)
        let progress = Progress(enabled: c.showProgress)
        progress.start("indexing", total: tracks.count)
        let indexed = indexCatalog(tracks, algorithms: c.algorithms, progress: progress)
        progress.finish()
        for (t, failure) in indexed.failures { failures.append(.init(item: "catalog \(tracks[t])", reason: failure, file: tracks[t])) }
        let catalogs = c.algorithms.indices.map { a in
            let catalog = Catalog(algorithm: c.algorithms[a])
            for t in tracks.indices { if let p = indexed.prints[a][t] { catalog.add(p, name: tracks[t]) } }
            catalog.seal()
            return catalog
        }
        return (catalogs, failures)
    }

    public func run() throws -> (results: BenchmarkResults, costs: BenchmarkCosts) {
        let started = Date(), c = configuration
        let progress = Progress(enabled: c.showProgress)
        var failures = ChecksumCheck(dataset: c.dataset, cacheFolder: c.cacheFolder).problems(), skipped: [RunResults.Problem] = []

        // Phase 1: the catalog and the negatives, with their lengths from the headers.
        guard let section = c.dataset.manifest.catalog, !section.tracks.isEmpty else {
            throw DatasetError(path: c.dataset.manifestPath, reason: "no catalog section: the benchmark needs whole tracks (see Datasets/README.md)")
        }
        let (tracks, durations) = readable(section.tracks, failures: &failures)
        let (negatives, negativeDurations) = readable(section.negatives, failures: &failures)
        guard !tracks.isEmpty else { throw DatasetError(path: c.dataset.manifestPath, reason: "no catalog track could be read") }
        let hours = durations.reduce(0, +) / 3600

        // Phase 2: queries, and the recordings the conditions need.
        let queries = BenchmarkPlan.draw(spec: c.spec, tracks: tracks, durations: durations,
                                         negatives: negatives, negativeDurations: negativeDurations, seed: c.seed)
        let (conditions, recordings) = usableConditions(&skipped, &failures)
        guard !conditions.isEmpty else {
            throw DatasetError(path: c.dataset.manifestPath, reason: "no condition can be run: "
                               + skipped.map { "\($0.item) \($0.reason)" }.joined(separator: "; "))
        }
        let algorithms = c.algorithms.filter { algorithm in
            if Catalog(algorithm: algorithm).isIndexed || hours <= c.spec.bruteForceHourLimit { return true }
            skipped.append(.init(item: algorithm.identifier, reason: String(format: "no index: brute force over %.1f h is above the %.1f h limit (bruteForceHourLimit)", hours, c.spec.bruteForceHourLimit)))
            return false
        }

        for algorithm in algorithms {
            for length in c.spec.queryLengths where length < algorithm.minimumDuration {
                skipped.append(.init(item: "\(algorithm.identifier): \(String(format: "%g", length)) s queries",
                                     reason: String(format: "shorter than the %.3f s the algorithm needs", algorithm.minimumDuration)))
            }
        }

        // Phase 3: index.
        let loaded = try loadIndexFiles(algorithms: algorithms, tracks: tracks)
        progress.start("indexing", total: tracks.count)
        let indexed = indexCatalog(tracks, algorithms: algorithms, skipping: Set(loaded.keys), progress: progress)
        let peer = c.peerTracks > 0 ? PeerTiming.fpcalc(tracks.prefix(c.peerTracks).map(c.dataset.path)) : nil
        for (t, failure) in indexed.failures { failures.append(.init(item: "catalog \(tracks[t])", reason: failure, file: tracks[t])) }
        var catalogs: [Catalog] = [], buildSeconds: [Double] = []
        for a in algorithms.indices {
            if let file = loaded[a] {
                catalogs.append(file.catalog)
                buildSeconds.append(file.loadSeconds)
                continue
            }
            let clock = ContinuousClock.now
            let catalog = Catalog(algorithm: algorithms[a])
            for t in tracks.indices { if let p = indexed.prints[a][t] { catalog.add(p, name: tracks[t]) } }
            catalog.seal()
            catalogs.append(catalog)
            buildSeconds.append((ContinuousClock.now - clock).seconds)
        }
        let trackIndex = Dictionary(uniqueKeysWithValues: tracks.enumerated().map { ($0.element, $0.offset) })

        // Phase 4: query (a shard answers its part).
        let answered = queries.indices.filter { c.shard?.includes($0) ?? true }.map { queries[$0] }
        progress.start("querying", total: answered.count)
        let planner = QueryPlanner(seed: c.seed, recordings: recordings)
        let cache = FingerprintCache(folder: c.cacheFolder)
        let scalingLength = c.shard == nil ? c.scalingLength : nil
        let outcomes = parallelMap(answered.count, threads: c.threads) { q -> QueryOutcome in
            defer { progress.advance() }
            return answer(answered[q], conditions: answered[q].negative ? [conditions[0].clean] : conditions,
                          planner: planner, cache: cache, algorithms: algorithms, catalogs: catalogs, trackIndex: trackIndex,
                          keepPrints: answered[q].length == scalingLength)
        }
        progress.finish()

        var spec = c.spec
        spec.conditions = conditions
        var results = BenchmarkResults(
            tool: .init(name: "fpbench", version: c.toolVersion), seed: c.seed, spec: spec,
            catalog: .init(dataset: c.dataset.manifest.name, manifestSHA256: c.dataset.manifestSHA256,
                           tracks: tracks, trackSeconds: durations, negatives: negatives),
            algorithms: algorithms.indices.map { .init(identifier: algorithms[$0].identifier, displayName: algorithms[$0].displayName,
                                                       profile: algorithms[$0].profile, search: catalogs[$0].isIndexed ? "index" : "brute force") },
            queries: queries, answers: outcomes.flatMap(\.answers), skipped: skipped, failures: failures)
        for answer in results.answers {
            guard let reason = answer.failure else { continue }
            results.failures.append(.init(item: "\(answer.algorithm): query \(answer.query)/\(answer.condition)", reason: reason,
                                          algorithm: answer.algorithm, test: answer.condition))
        }
        if var shard = c.shard {
            shard.configuration = results.configurationKey
            results.shard = shard
        }

        // Phase 5: scaling, then costs.
        let scaling = scalingLength.map { scalingCurve(length: $0, queries: answered, outcomes: outcomes, tracks: tracks,
                                                          durations: durations, algorithms: algorithms, prints: indexed.prints, results: results) } ?? []
        let costs = BenchmarkCosts(
            threads: c.threads, wallSeconds: Date().timeIntervalSince(started), decodeCPUSeconds: indexed.decode.reduce(0, +),
            peakResidentBytes: peakResidentBytes(),
            algorithms: algorithms.indices.map { a in
                func percentiles(_ pick: (QueryOutcome) -> [Double]) -> [String: BenchmarkCosts.Percentiles] {
                    Dictionary(uniqueKeysWithValues: c.spec.queryLengths.map { length in
                        (String(format: "%gs", length), .init(zip(answered, outcomes).filter { $0.0.length == length }.flatMap { pick($0.1) }))
                    })
                }
                var costs = BenchmarkCosts.AlgorithmCosts(
                    identifier: algorithms[a].identifier, fingerprintCPUSeconds: indexed.cpu[a].reduce(0, +),
                    catalogSeconds: catalogs[a].duration, fingerprintsFromCache: indexed.fromCache[a],
                    indexBuildSeconds: buildSeconds[a], indexBytes: catalogs[a].indexByteCount,
                    fingerprintBytes: catalogs[a].byteCount - catalogs[a].indexByteCount,
                    queryFingerprintMilliseconds: percentiles { $0.fingerprintMilliseconds[a] },
                    searchMilliseconds: percentiles { $0.searchMilliseconds[a] },
                    speedRatioToPeer: peer.flatMap { peer in
                        // Ours: decoding + fingerprinting; a track whose fingerprint came from the cache is left out.
                        PeerTiming.medianRatio(peer: peer.cpuSeconds, ours: zip(indexed.decode, indexed.cpu[a]).map { $1 > 0 ? $0 + $1 : 0 })
                    })
                if let file = loaded[a] {
                    costs.indexFileBytes = file.fileBytes
                    costs.indexLoadSeconds = file.loadSeconds
                }
                return costs
            },
            peer: peer,
            scalingLength: scalingLength, scaling: scaling, scalingExponents: Self.exponents(scaling))
        return (results, costs)
    }

    // MARK: Phase 1

    /// The files whose header can be read, with their durations; the others become failures.
    private func readable(_ files: [String], failures: inout [RunResults.Problem]) -> ([String], [Double]) {
        var kept: [String] = [], durations: [Double] = []
        for file in files {
            do {
                durations.append(try AudioReader.duration(configuration.dataset.path(file)))
                kept.append(file)
            } catch { failures.append(.init(item: file, reason: "\(error); left out of the benchmark", file: file)) }
        }
        return (kept, durations)
    }

    // MARK: Phase 2

    /// The conditions whose recordings the dataset has (others are skipped, by name), and those recordings.
    private func usableConditions(_ skipped: inout [RunResults.Problem], _ failures: inout [RunResults.Problem]) -> ([BenchmarkCondition], [String: Audio]) {
        let dataset = configuration.dataset
        let named = dataset.manifest.noises + dataset.manifest.impulseResponses
        var recordings: [String: Audio] = [:]
        var conditions: [BenchmarkCondition] = []
        for condition in configuration.spec.conditions {
            var missing: [String] = []
            for id in condition.recordings where recordings[id] == nil {
                guard let entry = named.first(where: { $0.id == id }) else { missing.append("\(id) (not in the dataset)"); continue }
                do { recordings[id] = try AudioReader.read(dataset.path(entry.file), sampleRate: Self.workingRate) } catch {
                    missing.append("\(id) (\(error))")
                }
            }
            if missing.isEmpty { conditions.append(condition) } else {
                skipped.append(.init(item: "condition \(condition.id)", reason: "needs \(missing.joined(separator: ", "))"))
            }
        }
        return (conditions, recordings)
    }

    // MARK: Phase 3

    struct Indexed {
        var prints: [[AnyFingerprint?]]
        /// CPU seconds per algorithm and track (0 when it came from the cache), and decoding per track.
        var cpu: [[Double]]
        var decode: [Double]
        var fromCache: [Int]
        var failures: [(Int, String)]
    }

    /// Every catalog file loaded, by algorithm: each checked against its algorithm (identifier,
    /// revision, parameters) and this catalog's tracks, in order.
    private func loadIndexFiles(algorithms: [AnyAlgorithm], tracks: [String]) throws -> [Int: (catalog: Catalog, loadSeconds: Double, fileBytes: Int)] {
        var loaded: [Int: (catalog: Catalog, loadSeconds: Double, fileBytes: Int)] = [:]
        for path in configuration.indexFiles {
            let header = try IndexFile.Reader(path: path).header
            guard let a = algorithms.firstIndex(where: { $0.identifier == header.algorithm }) else {
                throw IndexFileError(path: path, reason: "indexes \(header.algorithm), which this benchmark does not run (\(algorithms.map(\.identifier).joined(separator: ", ")))")
            }
            guard loaded[a] == nil else { throw IndexFileError(path: path, reason: "a second index file for \(header.algorithm)") }
            let clock = ContinuousClock.now
            let catalog = try Catalog(algorithm: algorithms[a], indexFile: path)
            guard catalog.names == tracks else {
                throw IndexFileError(path: path, reason: "indexes other tracks than the dataset's catalog (\(catalog.names.count) against \(tracks.count)); rebuild it with `fpbench index build`")
            }
            let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            loaded[a] = (catalog, (ContinuousClock.now - clock).seconds, bytes)
        }
        return loaded
    }

    /// Every track through every algorithm: from the cache (keyed by the file's checksum) or from one
    /// decoding of the track, resampled once per distinct rate and streamed into every algorithm that
    /// lacks it (no track is held whole). Decoding's CPU time is the call's less the algorithms' own.
    private func indexCatalog(_ tracks: [String], algorithms all: [AnyAlgorithm], skipping: Set<Int> = [], progress: Progress) -> Indexed {
        let algorithms = all.enumerated().map { skipping.contains($0.offset) ? nil : $0.element }
        let c = configuration, cache = FingerprintCache(folder: c.cacheFolder)
        let perTrack = parallelMap(tracks.count, threads: c.threads) { t -> (prints: [Result<AnyFingerprint, Error>], cpu: [Double], decode: Double, cached: [Bool]) in
            defer { progress.advance() }
            let path = c.dataset.path(tracks[t])
            let contentKey: String
            do { contentKey = "file:" + (try c.dataset.recordedSHA256(tracks[t]) ?? sha256Hex(file: path)) } catch {
                return (algorithms.map { _ in .failure(error) }, algorithms.map { _ in 0 }, 0, algorithms.map { _ in false })
            }
            let cached = algorithms.map { $0.flatMap { cache.load($0, role: .reference, contentKey: contentKey) } }
            // The algorithms without a cached fingerprint, from one decoding of the track.
            let missing = algorithms.indices.filter { algorithms[$0] != nil && cached[$0] == nil }
            var cpu = algorithms.map { _ in 0.0 }, decode = 0.0
            var made: [Int: Result<AnyFingerprint, Error>] = [:]
            if !missing.isEmpty {
                let start = threadCPUSeconds()
                do {
                    let results = try AnyAlgorithm.fingerprints(file: path, algorithms: missing.map { algorithms[$0]! }, clock: threadCPUSeconds)
                    for (a, result) in zip(missing, results) {
                        made[a] = result.print
                        cpu[a] = result.seconds
                        if case .success(let print) = result.print { cache.store(print, algorithms[a]!, role: .reference, contentKey: contentKey) }
                    }
                } catch { for a in missing { made[a] = .failure(error) } }
                decode = max(0, threadCPUSeconds() - start - cpu.reduce(0, +))
            }
            let prints = algorithms.indices.map { a -> Result<AnyFingerprint, Error> in
                guard algorithms[a] != nil else { return .failure(IndexFileError(path: tracks[t], reason: "indexed by a file")) }
                return cached[a].map { .success($0) } ?? made[a]!
            }
            return (prints, cpu, decode, cached.map { $0 != nil })
        }
        var failures: [(Int, String)] = []
        for (t, track) in perTrack.enumerated() {
            if let error = track.prints.indices.lazy.filter({ algorithms[$0] != nil })
                .compactMap({ if case .failure(let e) = track.prints[$0] { return e } else { return nil } }).first {
                failures.append((t, "\(error)"))
            }
        }
        return Indexed(prints: algorithms.indices.map { a in perTrack.map { try? $0.prints[a].get() } },
                       cpu: algorithms.indices.map { a in perTrack.map { $0.cpu[a] } }, decode: perTrack.map(\.decode),
                       fromCache: algorithms.indices.map { a in perTrack.filter { $0.cached[a] }.count },
                       failures: failures)
    }

    // MARK: Phase 4

    struct QueryOutcome {
        var answers: [BenchmarkAnswer]
        var fingerprintMilliseconds: [[Double]]
        var searchMilliseconds: [[Double]]
        /// Per algorithm, the query's clean fingerprint (kept for the scaling curve).
        var cleanPrints: [AnyFingerprint?]
    }

    /// Cuts one query's window, and under every condition degrades it, fingerprints it with every
    /// algorithm (through the cache: a warm run decodes and degrades nothing) and searches that
    /// algorithm's catalog.
    private func answer(_ query: BenchmarkQuery, conditions: [BenchmarkCondition], planner: QueryPlanner, cache: FingerprintCache,
                        algorithms: [AnyAlgorithm], catalogs: [Catalog], trackIndex: [String: Int], keepPrints: Bool) -> QueryOutcome {
        var outcome = QueryOutcome(answers: [], fingerprintMilliseconds: algorithms.map { _ in [] },
                                   searchMilliseconds: algorithms.map { _ in [] }, cleanPrints: algorithms.map { _ in nil })
        let keys = ContentKeys(dataset: configuration.dataset, seed: configuration.seed)
        let window = Once { Result { try AudioReader.read(self.configuration.dataset.path(query.file), sampleRate: Self.workingRate,
                                                          window: TimeWindow(start: query.start, duration: query.length)) } }
        for condition in conditions {
            let seed = derivedSeed(configuration.seed, "benchmark", query.id, condition.id)
            let chain = Result { DegradationChain(try planner.stages(for: condition, seed: seed), seed: seed) }
            let degraded = Once { window.get.flatMap { audio in chain.flatMap { chain in Result { try chain.apply(audio) } } } }
            // The track moment at the query's first sample, after the condition moved time (delay, speed, tempo).
            let moved = (try? chain.get().timeMap.inverse(0)).flatMap { abs($0) > 1e-9 ? query.start + $0 : nil }
            let key = keys.benchmarkQuery(query, condition: condition, seed: seed)
            for (a, algorithm) in algorithms.enumerated() where query.length >= algorithm.minimumDuration {
                var answer = BenchmarkAnswer(algorithm: algorithm.identifier, query: query.id, condition: condition.id, top: [], expectedOffset: moved)
                do {
                    let start = threadCPUSeconds()
                    let print: AnyFingerprint
                    if let cached = cache.load(algorithm, role: .query, contentKey: key) { print = cached } else {
                        print = try algorithm.fingerprint(degraded.get.get().resampled(to: algorithm.sampleRate), role: .query)
                        cache.store(print, algorithm, role: .query, contentKey: key)
                        outcome.fingerprintMilliseconds[a].append(1000 * (threadCPUSeconds() - start))
                    }
                    let fingerprinted = threadCPUSeconds()
                    let matches = catalogs[a].search(print, limit: Self.answersKept, applyingThreshold: false)
                    outcome.searchMilliseconds[a].append(1000 * (threadCPUSeconds() - fingerprinted))
                    // Every catalog reference is a track (catalogs are built from the track list, index files checked against it).
                    answer.top = matches.compactMap { match in
                        trackIndex[match.reference].map { BenchmarkMatch(track: $0, offset: match.comparison.offset, score: match.comparison.score,
                                                                         rawFigure: match.comparison.rawFigure, matched: algorithm.isMatch(match.comparison)) }
                    }
                    if keepPrints && condition.id == BenchmarkCondition.cleanID { outcome.cleanPrints[a] = print }
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

    // MARK: Phase 5

    /// The same clean queries of one length against nested catalogs of 1/16 ... all of the tracks (a
    /// seeded order); a query whose track is left out counts as a negative there.
    private func scalingCurve(length: Double, queries: [BenchmarkQuery], outcomes: [QueryOutcome], tracks: [String], durations: [Double],
                              algorithms: [AnyAlgorithm], prints: [[AnyFingerprint?]], results: BenchmarkResults) -> [BenchmarkCosts.ScalingPoint] {
        let order = tracks.indices.sorted { derivedSeed(configuration.seed, "scaling", tracks[$0]) < derivedSeed(configuration.seed, "scaling", tracks[$1]) }
        let chosen = queries.indices.filter { queries[$0].length == length }
        var points: [BenchmarkCosts.ScalingPoint] = []
        for (a, algorithm) in algorithms.enumerated() where Catalog(algorithm: algorithm).isIndexed && prints[a].contains(where: { $0 != nil }) {  // not from an index file
            for fraction in [1.0 / 16, 1.0 / 8, 1.0 / 4, 1.0 / 2, 1] {
                let kept = Array(order.prefix(max(1, Int((fraction * Double(tracks.count)).rounded(.up)))))
                let inCatalog = Set(kept.map { tracks[$0] })
                let catalog = Catalog(algorithm: algorithm)
                for t in kept { if let p = prints[a][t] { catalog.add(p, name: "\(t)") } }
                catalog.seal()
                var correct = 0, positives = 0, falsePositives = 0, negatives = 0, times: [Double] = []
                for q in chosen {
                    guard let print = outcomes[q].cleanPrints[a] else { continue }
                    let start = threadCPUSeconds()
                    let top = catalog.search(print, limit: 1).first
                    times.append(1000 * (threadCPUSeconds() - start))
                    let query = queries[q]
                    if !query.negative && inCatalog.contains(query.file) {
                        positives += 1
                        let match = top.map { BenchmarkMatch(track: Int($0.reference)!, offset: $0.comparison.offset, score: $0.comparison.score,
                                                             rawFigure: $0.comparison.rawFigure, matched: true) }
                        if BenchmarkMetrics.outcome(match, truth: query, results: results) == .correct { correct += 1 }
                    } else {
                        negatives += 1
                        if top != nil { falsePositives += 1 }
                    }
                }
                points.append(.init(algorithm: algorithm.identifier, fraction: fraction, tracks: kept.count,
                                    hours: kept.reduce(0) { $0 + durations[$1] } / 3600, correct: Rate(correct, of: positives),
                                    falsePositives: Rate(falsePositives, of: negatives), searchMilliseconds: .init(times),
                                    indexBytes: catalog.indexByteCount))
            }
        }
        return points
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
    static let cleanID = "clean"
    /// The undegraded condition negatives are cut under.
    var clean: BenchmarkCondition { BenchmarkCondition(id: Self.cleanID, title: "clean") }
}

extension QueryPlanner {
    /// A benchmark condition's stages (the query is already cut): noise, or the playback chain.
    func stages(for condition: BenchmarkCondition, seed: UInt64) throws -> [any Degradation] {
        var stages: [any Degradation] = []
        if let noise = condition.noise { stages.append(try addNoise(noise)) }
        if let playback = condition.playback { stages += try playbackStages(playback, random: SeededNoise(seed: derivedSeed(seed, "draws"))) }
        stages += try (condition.stages ?? []).flatMap(self.stages)
        return stages
    }
}

/// CPU seconds used by the calling thread.
func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// The process's peak resident memory in bytes.
func peakResidentBytes() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return usage.ru_maxrss * 1024
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// Chromaprint's `fpcalc` timed on the same files, one process at a time: the peer for indexing speed.
public struct PeerTiming: Sendable, Codable, Equatable {
    public var command: String
    public var files: Int
    public var audioSeconds: Double
    /// CPU seconds of each `fpcalc` process (user + system, start-up included).
    public var cpuSeconds: [Double]
    /// Peak resident memory of each `fpcalc` process, in bytes.
    public var peakResidentBytes: [Int]?
    public var failure: String?

    public var audioSecondsPerCPUSecond: Double? {
        let total = cpuSeconds.reduce(0, +)
        return total > 0 ? audioSeconds / total : nil
    }

    /// Runs `fpcalc -raw -length 0` on each file (nil when it is not installed).
    public static func fpcalc(_ paths: [String]) -> PeerTiming? {
        guard let executable = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":")
            .map({ "\($0)/fpcalc" }).first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else { return nil }
        var timing = PeerTiming(command: "fpcalc -raw -length 0 FILE", files: 0, audioSeconds: 0, cpuSeconds: [], peakResidentBytes: [])
        for path in paths {
            let child: ChildRun
            do { child = try ChildRun.run(executable, ["-raw", "-length", "0", path]) } catch { timing.failure = "\(error)"; return timing }
            // fpcalc exits 3 when its decoder reports an error at the very end of some Ogg files, after
            // printing the whole fingerprint; that still counts as fingerprinted.
            guard child.status == 0 || String(decoding: child.output, as: UTF8.self).contains("FINGERPRINT=") else {
                timing.failure = "fpcalc exited with \(child.status) on \(path)"
                return timing
            }
            timing.cpuSeconds.append(child.cpuSeconds)
            timing.peakResidentBytes?.append(child.peakResidentBytes)
            timing.audioSeconds += (try? AudioReader.duration(path)) ?? 0
            timing.files += 1
        }
        return timing
    }

    /// The median over files of the peer's CPU time over ours (above 1, ours is faster); files where
    /// either time is missing (0 or not finite) are left out; nil when none is left.
    public static func medianRatio(peer: [Double], ours: [Double]) -> Double? {
        let ratios = zip(peer, ours).filter { $0 > 0 && $1 > 0 && $0.isFinite && $1.isFinite }.map { $0 / $1 }.sorted()
        return ratios.isEmpty ? nil : ratios[ratios.count / 2]
    }
}

/// CPU seconds (user + system) used by `who`: this process (RUSAGE_SELF) or its finished children.
public func processCPUSeconds(_ who: __rusage_who) -> Double {
    var usage = rusage()
    getrusage(who.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}
