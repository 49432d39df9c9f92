import AudioIO
import Degradation
import Fingerprinting
import Foundation

/// What to run.
public struct RunConfiguration: Sendable {
    public var dataset: Dataset
    public var algorithms: [AnyAlgorithm]
    public var suite: Suite
    public var seed: UInt64
    public var threads: Int
    /// Where fingerprints are cached (nil: no cache).
    public var cacheFolder: URL?
    /// Where degraded queries are written as WAV for listening (nil: not written).
    public var keepAudioFolder: URL?
    public var showProgress: Bool
    public var toolVersion: String
    /// Whether to search each algorithm's catalog (references + distractors); sweeps do not report it.
    public var searchCatalogs = true
    /// Queries per source and test, each with its own seeded crop and draws (the thesis: 1).
    public var queriesPerSource = 1
    /// Run only this part of the suite's tests (test i belongs to part i mod N); `fpbench merge` gathers them.
    public var shard: Shard?

    public init(dataset: Dataset, algorithms: [AnyAlgorithm], suite: Suite, seed: UInt64, threads: Int,
                cacheFolder: URL?, keepAudioFolder: URL?, showProgress: Bool, toolVersion: String) {
        self.dataset = dataset
        self.algorithms = algorithms
        self.suite = suite
        self.seed = seed
        self.threads = threads
        self.cacheFolder = cacheFolder
        self.keepAudioFolder = keepAudioFolder
        self.showProgress = showProgress
        self.toolVersion = toolVersion
    }
}

/// Runs every algorithm on every test of a suite, in named phases: measure each excerpt from its
/// header → load the recordings the tests name → plan the queries → fingerprint through the cache
/// (decoding an excerpt, or cutting and degrading a query, once and only when a fingerprint is
/// missing) → compare into similarity matrices → search each algorithm's catalog → assemble the results. A failing item is recorded with its reason and left out; it never stops the run.
public struct Runner {
    /// Excerpts are decoded once at this rate and degraded there; each algorithm resamples from it.
    public static let workingRate = 44_100.0

    let configuration: RunConfiguration
    /// Decoded excerpts shared across runs (a sweep's levels); nil decodes afresh.
    let excerptAudio: ExcerptAudio?

    public init(_ configuration: RunConfiguration, excerptAudio: ExcerptAudio? = nil) {
        self.configuration = configuration
        self.excerptAudio = excerptAudio
    }

    /// What went wrong or was left out, as the phases go.
    struct Problems {
        var failures: [RunResults.Problem] = []
        var skipped: [RunResults.Problem] = []
        mutating func fail(_ item: String, _ reason: String, algorithm: String? = nil, test: String? = nil, source: String? = nil, file: String? = nil) {
            failures.append(.init(item: item, reason: reason, algorithm: algorithm, test: test, source: source, file: file))
        }
        mutating func skip(_ item: String, _ reason: String, test: String? = nil, source: String? = nil) {
            skipped.append(.init(item: item, reason: reason, test: test, source: source))
        }
    }

    /// One test's queries: their records and their plans (row by row).
    struct PlannedTest {
        var record: RunResults.TestRecord
        var plans: [QueryPlanner.Plan]
    }

    public func run() -> RunResults {
        var c = configuration
        let suite = c.suite
        if let shard = c.shard { c.suite.tests = suite.tests.indices.filter(shard.includes).map { suite.tests[$0] } }
        var results = Runner(c, excerptAudio: excerptAudio).runAll()
        // Problems follow the suite's order of tests (those of no test first), so parts merge into the same list.
        let position = Dictionary(uniqueKeysWithValues: suite.tests.enumerated().map { ($0.element.id, $0.offset) })
        func ordered(_ problems: [RunResults.Problem]) -> [RunResults.Problem] {
            problems.enumerated().sorted { (position[$0.element.test ?? ""] ?? -1, $0.offset) < (position[$1.element.test ?? ""] ?? -1, $1.offset) }.map(\.element)
        }
        results.skipped = ordered(results.skipped)
        results.failures = ordered(results.failures)
        if var shard = c.shard {
            shard.configuration = configurationKey(suite)
            results.shard = shard
        }
        return results
    }

    /// What every part of a sharded run shares: tool, seed, draws, dataset, algorithms, the whole suite.
    private func configurationKey(_ suite: Suite) -> String {
        let c = configuration, encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        var text = "\(c.toolVersion)|seed \(c.seed)|draws \(c.queriesPerSource)|\(c.dataset.manifestSHA256)|catalogs \(c.searchCatalogs)"
        text += c.algorithms.map { "|\($0.identifier):r\($0.revision):\($0.profile.key)" }.joined()
        text += "|" + ((try? encoder.encode(suite)).map { String(decoding: $0, as: UTF8.self) } ?? suite.name)
        return sha256Hex(Data(text.utf8))
    }

    private func runAll() -> RunResults {
        let c = configuration
        let progress = Progress(enabled: c.showProgress)
        var problems = Problems()
        problems.failures = ChecksumCheck(dataset: c.dataset, cacheFolder: c.cacheFolder).problems()
        let durations = measureExcerpts(&problems)
        let sources = c.dataset.manifest.sources.filter { source in
            if durations[source.reference] != nil { return true }
            problems.fail("source \(source.id)", "its reference could not be read; left out of every test", source: source.id, file: source.reference.file)
            return false
        }
        let recordings = loadRecordings(&problems)
        let tests = planQueries(sources: sources, durations: durations, planner: QueryPlanner(seed: c.seed, recordings: recordings),
                                problems: &problems)
        let distractors = c.dataset.manifest.distractors.filter { durations[$0] != nil }
        let audio = QueryAudio(excerpts: excerptAudio ?? ExcerptAudio(dataset: c.dataset), tests: tests)
        keepQueries(tests, audio: audio, problems: &problems)
        let prints = fingerprint(sources: sources, tests: tests, distractors: distractors, audio: audio, progress: progress)
        prints.reportFailures(algorithms: c.algorithms, sources: sources, tests: tests, distractors: distractors, problems: &problems)
        let matrices = compare(prints, sources: sources, tests: tests, progress: progress)
        let catalogs = c.searchCatalogs && !distractors.isEmpty
            ? searchCatalogs(prints, sources: sources, tests: tests, distractors: distractors, progress: progress) : []
        let pairs = measurePairs(sources: sources, durations: durations, audio: audio.excerpts, problems: &problems)
        progress.finish()
        var results = assemble(prints, sources: sources, tests: tests.map(\.record), matrices: matrices, catalogs: catalogs, problems: problems)
        results.pairs = pairs
        return results
    }

    // MARK: Measure

    /// The length, at the working rate, of every excerpt the suite needs (references, the recordings
    /// tests cut from, distractors), from the files' headers: nothing is decoded before it is needed.
    private func measureExcerpts(_ problems: inout Problems) -> [Excerpt: Double] {
        let c = configuration
        let needed = Set(c.dataset.manifest.sources.flatMap { source in [source.reference] + c.suite.tests.compactMap { $0.recipe.excerpt(of: source) } }
                         + c.dataset.manifest.distractors).sorted { ($0.file, $0.start) < ($1.file, $1.start) }
        var durations: [Excerpt: Double] = [:]
        for excerpt in needed {
            do {
                durations[excerpt] = Double(try AudioReader.sampleCount(c.dataset.path(excerpt.file), sampleRate: Self.workingRate,
                                                                        window: excerpt.window)) / Self.workingRate
            } catch { problems.fail(excerpt.file, "\(error)", file: excerpt.file) }
        }
        return durations
    }

    // MARK: Recordings

    /// Noise recordings and impulse responses the tests name: the dataset's, or audio files by path.
    /// A named recording that is not there (refused before a run unless allowed: `MissingRecordings`) leaves
    /// its stage out, said next to each test that names it and marked in its record.
    private func loadRecordings(_ problems: inout Problems) -> [String: Audio] {
        let c = configuration
        var recordings: [String: Audio] = [:]
        for id in Set(c.suite.tests.flatMap(\.recipe.recordings)).sorted() {
            guard let path = c.dataset.recordingPath(id) else { continue }
            do { recordings[id] = try AudioReader.read(path, sampleRate: Self.workingRate) } catch {
                problems.fail(id, "\(error); stages that use it are left out", file: path)
            }
        }
        for test in c.suite.tests {
            for id in test.recipe.optionalRecordings where recordings[id] == nil {
                problems.skip(test.id, "'\(id)' is not in the dataset (nor a readable file): the stage that uses it is left out", test: test.id)
            }
        }
        return recordings
    }

    // MARK: Plan and degrade

    private func planQueries(sources: [Source], durations: [Excerpt: Double], planner: QueryPlanner, problems: inout Problems) -> [PlannedTest] {
        configuration.suite.tests.map { test in
            let leftOut = test.recipe.optionalRecordings.filter { planner.recordings[$0] == nil }
            var result = PlannedTest(record: RunResults.TestRecord(definition: test, queries: [], stagesLeftOut: leftOut.isEmpty ? nil : leftOut),
                                     plans: [])
            let draws = sources.flatMap { source in (0..<configuration.queriesPerSource).map { (source, $0) } }
            for (source, draw) in draws {
                let item = "\(test.id)/\(source.id)" + (draw == 0 ? "" : " #\(draw + 1)")
                do {
                    switch try planner.plan(test, source: source, draw: draw, excerptDuration: { durations[$0] ?? 0 }) {
                    case .planned(let plan) where durations[plan.excerpt] == nil:
                        problems.fail(item, "\(plan.excerpt.file) could not be read", test: test.id, source: source.id, file: plan.excerpt.file)
                    case .planned(let plan):
                        result.record.queries.append(.init(source: source.id, draw: configuration.queriesPerSource > 1 ? draw : nil,
                                                           excerpt: plan.excerpt, seed: plan.chain.seed,
                                                           degradations: plan.chain.records, simulated: plan.simulated))
                        result.plans.append(plan)
                    case .skipped(let reason) where draw == 0: problems.skip(item, reason, test: test.id, source: source.id)
                    case .skipped: break  // said once, for the first draw
                    }
                } catch {
                    problems.fail(item, "\(error)", test: test.id, source: source.id)
                }
            }
            return result
        }
    }

    /// With --keep-audio, every query is made now and written as WAV.
    private func keepQueries(_ tests: [PlannedTest], audio: QueryAudio, problems: inout Problems) {
        guard configuration.keepAudioFolder != nil else { return }
        for (t, test) in tests.enumerated() {
            for (row, query) in test.record.queries.enumerated() {
                if case .success(let made) = audio.query(test: t, row: row) {
                    keep(made, test: test.record.definition.id, name: query.source + (query.draw.map { "-\($0 + 1)" } ?? ""), problems: &problems)
                }
            }
        }
    }

    // MARK: Fingerprint

    /// Every algorithm × (references + queries + distractors), through the cache, keyed by what
    /// determines each input (file checksums, windows, the test and its seed), so a warm run decodes nothing.
    private func fingerprint(sources: [Source], tests: [PlannedTest], distractors: [Excerpt], audio: QueryAudio, progress: Progress) -> PrintTable {
        let c = configuration
        let keys = ContentKeys(dataset: c.dataset, seed: c.seed)
        var items: [(item: PrintTable.Item, key: String, role: FingerprintRole)] = sources.enumerated().map {
            (.reference($0.offset), keys.excerpt($0.element.reference), .reference)
        }
        for (t, test) in tests.enumerated() {
            items += zip(test.record.queries, test.plans).enumerated().map { row, pair in
                (.query(test: t, row: row), keys.query(test.record.definition, source: pair.0.source, draw: pair.1.draw, excerpt: pair.1.excerpt), .query)
            }
        }
        items += distractors.enumerated().map { (.distractor($0.offset), keys.excerpt($0.element), .reference) }
        let cache = FingerprintCache(folder: c.cacheFolder)
        progress.start("fingerprinting", total: c.algorithms.count * items.count)
        let results = parallelMap(c.algorithms.count * items.count, threads: c.threads) { job -> Result<AnyFingerprint, Error>? in
            defer { progress.advance() }
            let algorithm = c.algorithms[job / items.count], (item, key, role) = items[job % items.count]
            return Result {
                try cache.fingerprint(algorithm, role: role, contentKey: key) {
                    switch item {
                    case .reference(let r): return try audio.excerpts.audio(sources[r].reference).get()
                    case .query(let t, let row): return try audio.query(test: t, row: row).get()
                    case .distractor(let d): return try audio.excerpts.audio(distractors[d]).get()
                    }
                }
            }
        }
        return PrintTable(algorithms: c.algorithms.count, items: items.map(\.item), results: results)
    }

    // MARK: Compare

    /// One similarity matrix per algorithm and test that has queries: every query against every reference.
    private func compare(_ prints: PrintTable, sources: [Source], tests: [PlannedTest], progress: Progress) -> [SimilarityMatrix] {
        let made = tests.indices.filter { !tests[$0].record.queries.isEmpty }
        let c = configuration, cells = c.algorithms.count * made.count
        progress.start("comparing", total: cells)
        return parallelMap(cells, threads: c.threads) { cell -> SimilarityMatrix in
            defer { progress.advance() }
            let a = cell / made.count, t = made[cell % made.count], algorithm = c.algorithms[a], record = tests[t].record
            var matrix = SimilarityMatrix(algorithm: algorithm.identifier, test: record.definition.id,
                                          rows: record.queries.map(\.source), columns: sources.map(\.id),
                                          scores: [], rawFigures: [], offsets: [], matched: [])
            for row in record.queries.indices {
                let query = prints[a, .query(test: t, row: row)]
                let comparisons = sources.indices.map { r -> Comparison? in
                    guard let query, let reference = prints[a, .reference(r)] else { return nil }
                    return algorithm.compare(query: query, reference: reference)
                }
                matrix.scores.append(comparisons.map { $0?.score })
                matrix.rawFigures.append(comparisons.map { $0?.rawFigure })
                matrix.offsets.append(comparisons.map { $0?.offset })
                let own = sources.firstIndex { $0.id == record.queries[row].source }.flatMap { comparisons[$0] }
                matrix.matched?.append(own.map(algorithm.isMatch))
            }
            return matrix
        }
    }

    // MARK: Search catalogs

    /// Every query against references + distractors, through the algorithm's own index.
    private func searchCatalogs(_ prints: PrintTable, sources: [Source], tests: [PlannedTest], distractors: [Excerpt],
                                progress: Progress) -> [RunResults.CatalogResult] {
        let c = configuration, cells = c.algorithms.count * tests.count
        let built = c.algorithms.indices.map { a -> Catalog in
            let catalog = Catalog(algorithm: c.algorithms[a])
            for r in sources.indices { if let p = prints[a, .reference(r)] { catalog.add(p, name: sources[r].id) } }
            for (d, excerpt) in distractors.enumerated() {
                if let p = prints[a, .distractor(d)] { catalog.add(p, name: "distractor \(excerpt.file)") }
            }
            catalog.seal()
            return catalog
        }
        progress.start("catalog search", total: cells)
        return parallelMap(cells, threads: c.threads) { cell -> RunResults.CatalogResult in
            defer { progress.advance() }
            let a = cell / tests.count, t = cell % tests.count, catalog = built[a], record = tests[t].record
            var result = RunResults.CatalogResult(algorithm: c.algorithms[a].identifier, test: record.definition.id,
                                                  queries: record.queries.count, correct: 0, wrong: 0, noMatch: 0,
                                                  references: catalog.names.count, distractors: catalog.names.count - sources.count,
                                                  referenceSeconds: catalog.duration, bytes: catalog.byteCount, answers: [])
            for (row, query) in record.queries.enumerated() {
                guard let print = prints[a, .query(test: t, row: row)] else {
                    result.answers?.append(.init())
                    continue
                }
                let top = catalog.search(print, limit: 1).first
                result.answers?.append(.init(answer: top?.reference, score: top?.comparison.score, offset: top?.comparison.offset))
                switch top?.reference {
                case nil: result.noMatch += 1
                case query.source?: result.correct += 1
                default: result.wrong += 1
                }
            }
            return result
        }
    }

    // MARK: Pair difficulty

    /// For each test that cuts its queries from another recording, how alike each pair is by the fixed
    /// yardstick, through the cache (a warm run decodes nothing); nil when no test does.
    private func measurePairs(sources: [Source], durations: [Excerpt: Double], audio: ExcerptAudio,
                              problems: inout Problems) -> [RunResults.PairSimilarity]? {
        let c = configuration
        let tests = c.suite.tests.filter { $0.recipe is DifferentRecording }
        guard !tests.isEmpty else { return nil }
        let yardstick = PairYardstick(), keys = ContentKeys(dataset: c.dataset, seed: c.seed), cache = FingerprintCache(folder: c.cacheFolder)
        func print(_ excerpt: Excerpt, role: FingerprintRole) throws -> AnyFingerprint {
            try cache.fingerprint(yardstick.algorithm, role: role, contentKey: keys.excerpt(excerpt)) { try audio.audio(excerpt).get() }
        }
        var pairs: [RunResults.PairSimilarity] = []
        for test in tests {
            for source in sources {
                guard let other = test.recipe.excerpt(of: source), let available = durations[other] else { continue }
                do {
                    let score = try yardstick.score(reference: print(source.reference, role: .reference),
                                                    other: print(yardstick.middle(of: other, available: available), role: .query))
                    pairs.append(.init(test: test.id, source: source.id, score: score))
                } catch {
                    problems.fail("pair difficulty \(test.id)/\(source.id)", "\(error)", test: test.id, source: source.id, file: other.file)
                }
            }
        }
        return pairs
    }

    // MARK: Assemble

    private func assemble(_ prints: PrintTable, sources: [Source], tests: [RunResults.TestRecord], matrices: [SimilarityMatrix],
                          catalogs: [RunResults.CatalogResult], problems: Problems) -> RunResults {
        let c = configuration
        return RunResults(
            tool: .init(name: "fpbench", version: c.toolVersion), seed: c.seed,
            queriesPerSource: c.queriesPerSource > 1 ? c.queriesPerSource : nil,
            dataset: .init(name: c.dataset.manifest.name, manifestSHA256: c.dataset.manifestSHA256,
                           sources: sources.map { .init(id: $0.id, name: $0.name, family: $0.family) }),
            algorithms: c.algorithms.enumerated().map { a, algorithm in
                let references = sources.indices.compactMap { prints[a, .reference($0)] }
                let seconds = references.reduce(0) { $0 + $1.duration }
                return .init(identifier: algorithm.identifier, displayName: algorithm.displayName, sampleRate: algorithm.sampleRate,
                             rawFigureName: algorithm.rawFigureName, profile: algorithm.profile,
                             bytesPerSecond: seconds > 0 ? Double(references.reduce(0) { $0 + $1.byteCount }) / seconds : nil)
            },
            tests: tests, references: sources.map(\.id), matrices: matrices, catalogs: catalogs,
            skipped: problems.skipped, failures: problems.failures)
    }

    private func keep(_ query: Audio, test: String, name: String, problems: inout Problems) {
        guard let folder = configuration.keepAudioFolder?.appendingPathComponent(test) else { return }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try AudioWriter.write(query, to: folder.appendingPathComponent("\(name).wav").path)
        } catch {
            problems.fail("keep-audio \(test)/\(name)", "\(error)", test: test)
        }
    }
}

/// Fingerprints by algorithm and item: a reference, a test's query row, or a distractor.
struct PrintTable {
    enum Item: Hashable {
        case reference(Int)
        case query(test: Int, row: Int)
        case distractor(Int)
    }

    private let items: [Item]
    private let position: [Item: Int]
    private let results: [Result<AnyFingerprint, Error>?]

    init(algorithms: Int, items: [Item], results: [Result<AnyFingerprint, Error>?]) {
        self.items = items
        position = Dictionary(uniqueKeysWithValues: items.enumerated().map { ($0.element, $0.offset) })
        self.results = results
    }

    subscript(algorithm: Int, item: Item) -> AnyFingerprint? {
        guard let i = position[item], case .success(let print)? = results[algorithm * items.count + i] else { return nil }
        return print
    }

    /// Each fingerprint that failed, named by its algorithm and item.
    func reportFailures(algorithms: [AnyAlgorithm], sources: [Source], tests: [Runner.PlannedTest], distractors: [Excerpt],
                        problems: inout Runner.Problems) {
        // Audio that could not be made is reported once per item, not once per algorithm.
        var reported = Set<Int>()
        for (job, result) in results.enumerated() {
            guard case .failure(let error)? = result else { continue }
            let algorithm = job / items.count
            if let failure = error as? QueryAudio.Failure {
                guard reported.insert(job % items.count).inserted else { continue }
                switch items[job % items.count] {
                case .reference(let r): problems.fail(sources[r].reference.file, failure.reason, source: sources[r].id, file: sources[r].reference.file)
                case .query(let t, let row):
                    let test = tests[t].record.definition.id, source = tests[t].record.queries[row].source
                    problems.fail("\(test)/\(source)", failure.reason, test: test, source: source)
                case .distractor(let d): problems.fail(distractors[d].file, failure.reason, file: distractors[d].file)
                }
                continue
            }
            let id = algorithms[algorithm].identifier
            switch items[job % items.count] {
            case .reference(let r):
                problems.fail("\(id): reference \(sources[r].id)", "\(error)", algorithm: id, source: sources[r].id, file: sources[r].reference.file)
            case .query(let t, let row):
                let test = tests[t].record.definition.id, source = tests[t].record.queries[row].source
                problems.fail("\(id): query \(test)/\(source)", "\(error)", algorithm: id, test: test, source: source)
            case .distractor(let d):
                problems.fail("\(id): distractor \(distractors[d].file)", "\(error)", algorithm: id, file: distractors[d].file)
            }
        }
    }
}

/// A value made once, on first use, whichever thread asks first.
final class Once<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value?
    private let make: () -> Value
    init(_ make: @escaping () -> Value) { self.make = make }
    var get: Value { lock.withLock { if value == nil { value = make() }; return value! } }
}

/// Decoded excerpts of a dataset at the working rate, each decoded once, when first needed, and kept
/// across runs (a sweep decodes once for all its levels). Thread-safe.
public final class ExcerptAudio: @unchecked Sendable {
    let dataset: Dataset
    private let lock = NSLock()
    private var decoded: [Excerpt: Once<Result<Audio, Error>>] = [:]

    public init(dataset: Dataset) { self.dataset = dataset }

    func audio(_ excerpt: Excerpt) -> Result<Audio, Error> {
        let once = lock.withLock { () -> Once<Result<Audio, Error>> in
            if let held = decoded[excerpt] { return held }
            let made = Once { Result { try AudioReader.read(self.dataset.path(excerpt.file), sampleRate: Runner.workingRate, window: excerpt.window) } }
            decoded[excerpt] = made
            return made
        }
        return once.get.mapError { QueryAudio.Failure(reason: "\($0)") }
    }
}

/// The run's queries, each cut and degraded once, when first needed.
final class QueryAudio: @unchecked Sendable {
    /// Why an input could not be made (reported once per input, not per algorithm).
    struct Failure: Error { var reason: String }

    let excerpts: ExcerptAudio
    private let queries: [[Once<Result<Audio, Error>>]]

    init(excerpts: ExcerptAudio, tests: [Runner.PlannedTest]) {
        self.excerpts = excerpts
        queries = tests.map { test in
            test.plans.map { plan in
                Once {
                    excerpts.audio(plan.excerpt).flatMap { excerpt in
                        Result { try plan.chain.apply(excerpt) }.mapError { QueryAudio.Failure(reason: "degradation failed: \($0)") }
                    }
                }
            }
        }
    }

    func query(test: Int, row: Int) -> Result<Audio, Error> { queries[test][row].get }
}

/// Cache keys from what determines an input, known before anything is decoded.
struct ContentKeys {
    let dataset: Dataset
    let seed: UInt64

    /// A file by its manifest checksum (or, without one, its size and modification time).
    func file(_ path: String) -> String {
        if let sha = dataset.recordedSHA256(path) { return "sha256:\(sha)" }
        let full = FileManager.default.fileExists(atPath: path) ? path : dataset.path(path)
        let attributes = try? FileManager.default.attributesOfItem(atPath: full)
        return "file:\(path)|\(attributes?[.size] ?? 0)|\((attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)"
    }

    func excerpt(_ e: Excerpt) -> String { "excerpt|\(file(e.file))|\(e.start)|\(e.duration)|\(Runner.workingRate)" }

    /// A benchmark query under a condition: its window, the condition (every field), its chain seed and
    /// the recordings its stages use.
    func benchmarkQuery(_ q: BenchmarkQuery, condition: BenchmarkCondition, seed chainSeed: UInt64) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let definition = (try? encoder.encode(condition)).map { String(decoding: $0, as: UTF8.self) } ?? condition.id
        return "benchmark|\(file(q.file))|\(q.start)|\(q.length)|\(definition)|seed \(chainSeed)|\(recordings(condition.recordings))|\(Runner.workingRate)"
    }

    private func recordings(_ ids: [String]) -> String {
        let named = dataset.manifest.noises + dataset.manifest.impulseResponses
        return ids.sorted().map { id in "\(id)=" + (named.first { $0.id == id }.map { file($0.file) } ?? file(id)) }.joined(separator: ",")
    }

    /// A query is fixed by the run's seed, its test (every field), its source and draw, its excerpt and the
    /// recordings its stages use.
    func query(_ test: TestDefinition, source: String, draw: Int, excerpt cut: Excerpt) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let definition = (try? encoder.encode(test)).map { String(decoding: $0, as: UTF8.self) } ?? test.id
        return "query|seed \(seed)|\(definition)|\(source)\(draw == 0 ? "" : "|draw \(draw)")|\(excerpt(cut))|\(recordings(test.recipe.recordings))"
    }
}
