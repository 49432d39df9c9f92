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

/// Runs every algorithm on every test of a suite, in named phases: decode each excerpt once (at the
/// working rate) → load the recordings the tests name → plan and degrade the queries → fingerprint
/// (through the cache) → compare into similarity matrices → search each algorithm's catalog →
/// assemble the results. A failing item is recorded with its reason and left out; it never stops the run.
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

    /// One test's queries: their records and their degraded audio (nil where making it failed).
    struct PlannedTest {
        var record: RunResults.TestRecord
        var audio: [Audio?]
    }

    public func run() -> RunResults {
        let c = configuration
        let progress = Progress(enabled: c.showProgress)
        var problems = Problems()
        problems.failures = ChecksumCheck(dataset: c.dataset, cacheFolder: c.cacheFolder).problems()
        let audio = decodeExcerpts(progress: progress, problems: &problems)
        let sources = c.dataset.manifest.sources.filter { source in
            if audio[source.reference] != nil { return true }
            problems.fail("source \(source.id)", "its reference could not be read; left out of every test", source: source.id, file: source.reference.file)
            return false
        }
        let recordings = loadRecordings(&problems)
        let tests = planQueries(sources: sources, audio: audio, recordings: recordings, problems: &problems)
        let distractors = c.dataset.manifest.distractors.filter { audio[$0] != nil }
        let prints = fingerprint(references: sources.map { audio[$0.reference]! }, tests: tests,
                                 distractors: distractors.map { audio[$0]! }, progress: progress)
        prints.reportFailures(algorithms: c.algorithms, sources: sources, tests: tests, distractors: distractors, problems: &problems)
        let matrices = compare(prints, sources: sources, tests: tests, progress: progress)
        let catalogs = c.searchCatalogs && !distractors.isEmpty
            ? searchCatalogs(prints, sources: sources, tests: tests, distractors: distractors, progress: progress) : []
        progress.finish()
        return assemble(prints, sources: sources, tests: tests.map(\.record), matrices: matrices, catalogs: catalogs, problems: problems)
    }

    // MARK: Decode

    /// Every excerpt the suite needs (references, the recordings tests cut from, distractors), once.
    private func decodeExcerpts(progress: Progress, problems: inout Problems) -> [Excerpt: Audio] {
        let c = configuration
        let needed = Set(c.dataset.manifest.sources.flatMap { source in [source.reference] + c.suite.tests.compactMap { $0.recipe.excerpt(of: source) } }
                         + c.dataset.manifest.distractors)
        let shared = excerptAudio ?? ExcerptAudio(dataset: c.dataset)
        progress.start("decoding", total: needed.count)
        let decoded = shared.decode(needed.sorted { ($0.file, $0.start) < ($1.file, $1.start) }, threads: c.threads) { progress.advance() }
        var audio: [Excerpt: Audio] = [:]
        for (excerpt, result) in decoded {
            switch result {
            case .success(let a): audio[excerpt] = a
            case .failure(let error): problems.fail(excerpt.file, "\(error)", file: excerpt.file)
            }
        }
        return audio
    }

    // MARK: Recordings

    /// Noise recordings and impulse responses the tests name: the dataset's, or audio files by path.
    /// A named recording that is not there leaves its stage out, said next to each test that names it.
    private func loadRecordings(_ problems: inout Problems) -> [String: Audio] {
        let c = configuration
        var recordings: [String: Audio] = [:]
        let named = c.dataset.manifest.noises + c.dataset.manifest.impulseResponses
        for id in Set(c.suite.tests.flatMap(\.recipe.recordings)).sorted() {
            let path = named.first { $0.id == id }.map { c.dataset.path($0.file) } ?? (FileManager.default.fileExists(atPath: id) ? id : nil)
            guard let path else { continue }
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

    private func planQueries(sources: [Source], audio: [Excerpt: Audio], recordings: [String: Audio], problems: inout Problems) -> [PlannedTest] {
        let c = configuration
        let planner = QueryPlanner(seed: c.seed, recordings: recordings)
        return c.suite.tests.map { test in
            var planned: [(Source, QueryPlanner.Plan)] = []
            for source in sources {
                let item = "\(test.id)/\(source.id)"
                do {
                    switch try planner.plan(test, source: source, excerptDuration: { audio[$0]?.duration ?? 0 }) {
                    case .planned(let plan) where audio[plan.excerpt] == nil:
                        problems.fail(item, "\(plan.excerpt.file) could not be read", test: test.id, source: source.id, file: plan.excerpt.file)
                    case .planned(let plan): planned.append((source, plan))
                    case .skipped(let reason): problems.skip(item, reason, test: test.id, source: source.id)
                    }
                } catch {
                    problems.fail(item, "\(error)", test: test.id, source: source.id)
                }
            }
            let made = parallelMap(planned.count, threads: c.threads) { i -> Result<Audio, Error> in
                Result { try planned[i].1.chain.apply(audio[planned[i].1.excerpt]!) }
            }
            var result = PlannedTest(record: RunResults.TestRecord(definition: test, queries: []), audio: [])
            for ((source, plan), query) in zip(planned, made) {
                result.record.queries.append(.init(source: source.id, excerpt: plan.excerpt, seed: plan.chain.seed,
                                                   degradations: plan.chain.records, simulated: plan.simulated))
                switch query {
                case .success(let query):
                    result.audio.append(query)
                    keep(query, test: test.id, source: source.id, problems: &problems)
                case .failure(let error):
                    result.audio.append(nil)
                    problems.fail("\(test.id)/\(source.id)", "degradation failed: \(error)", test: test.id, source: source.id)
                }
            }
            return result
        }
    }

    // MARK: Fingerprint

    /// Every algorithm × (references + queries + distractors), through the cache.
    private func fingerprint(references: [Audio], tests: [PlannedTest], distractors: [Audio], progress: Progress) -> PrintTable {
        let c = configuration
        var items: [(PrintTable.Item, Audio?, FingerprintRole)] = references.enumerated().map { (.reference($0.offset), $0.element, .reference) }
        for (t, test) in tests.enumerated() { items += test.audio.enumerated().map { (.query(test: t, row: $0.offset), $0.element, .query) } }
        items += distractors.enumerated().map { (.distractor($0.offset), $0.element, .reference) }
        let digests = parallelMap(items.count, threads: c.threads) { items[$0].1.map(digest) }
        let cache = FingerprintCache(folder: c.cacheFolder)
        progress.start("fingerprinting", total: c.algorithms.count * items.count)
        let results = parallelMap(c.algorithms.count * items.count, threads: c.threads) { job -> Result<AnyFingerprint, Error>? in
            defer { progress.advance() }
            let algorithm = c.algorithms[job / items.count], i = job % items.count
            guard let input = items[i].1 else { return nil }
            return Result { try cache.fingerprint(algorithm, role: items[i].2, audio: input, audioDigest: digests[i]!) }
        }
        return PrintTable(algorithms: c.algorithms.count, items: items.map(\.0), results: results)
    }

    // MARK: Compare

    /// One similarity matrix per algorithm and test: every query against every reference.
    private func compare(_ prints: PrintTable, sources: [Source], tests: [PlannedTest], progress: Progress) -> [SimilarityMatrix] {
        let c = configuration, cells = c.algorithms.count * tests.count
        progress.start("comparing", total: cells)
        return parallelMap(cells, threads: c.threads) { cell -> SimilarityMatrix in
            defer { progress.advance() }
            let a = cell / tests.count, t = cell % tests.count, algorithm = c.algorithms[a], record = tests[t].record
            var matrix = SimilarityMatrix(algorithm: algorithm.identifier, test: record.definition.id,
                                          rows: record.queries.map(\.source), columns: sources.map(\.id),
                                          scores: [], rawFigures: [], offsets: [])
            for row in record.queries.indices {
                let query = prints[a, .query(test: t, row: row)]
                let comparisons = sources.indices.map { r -> Comparison? in
                    guard let query, let reference = prints[a, .reference(r)] else { return nil }
                    return algorithm.compare(query: query, reference: reference)
                }
                matrix.scores.append(comparisons.map { $0?.score })
                matrix.rawFigures.append(comparisons.map { $0?.rawFigure })
                matrix.offsets.append(comparisons.map { $0?.offset })
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
                                                  referenceSeconds: catalog.duration, bytes: catalog.byteCount)
            for (row, query) in record.queries.enumerated() {
                guard let print = prints[a, .query(test: t, row: row)] else { continue }
                switch catalog.search(print, limit: 1).first?.reference {
                case nil: result.noMatch += 1
                case query.source?: result.correct += 1
                default: result.wrong += 1
                }
            }
            return result
        }
    }

    // MARK: Assemble

    private func assemble(_ prints: PrintTable, sources: [Source], tests: [RunResults.TestRecord], matrices: [SimilarityMatrix],
                          catalogs: [RunResults.CatalogResult], problems: Problems) -> RunResults {
        let c = configuration
        return RunResults(
            tool: .init(name: "fpbench", version: c.toolVersion), seed: c.seed,
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

    private func keep(_ query: Audio, test: String, source: String, problems: inout Problems) {
        guard let folder = configuration.keepAudioFolder?.appendingPathComponent(test) else { return }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try AudioWriter.write(query, to: folder.appendingPathComponent("\(source).wav").path)
        } catch {
            problems.fail("keep-audio \(test)/\(source)", "\(error)", test: test, source: source)
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
        for (job, result) in results.enumerated() {
            guard case .failure(let error)? = result else { continue }
            let algorithm = job / items.count
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

/// Decoded excerpts of a dataset at the working rate, kept across runs (a sweep decodes once for all
/// its levels). Thread-safe.
public final class ExcerptAudio: @unchecked Sendable {
    let dataset: Dataset
    private let lock = NSLock()
    private var decoded: [Excerpt: Result<Audio, Error>] = [:]

    public init(dataset: Dataset) { self.dataset = dataset }

    /// Each excerpt's audio (or why it could not be read), decoding only what is not held yet.
    func decode(_ excerpts: [Excerpt], threads: Int, advance: @escaping () -> Void) -> [(Excerpt, Result<Audio, Error>)] {
        let missing = lock.withLock { excerpts.filter { decoded[$0] == nil } }
        let fresh = parallelMap(missing.count, threads: threads) { i -> Result<Audio, Error> in
            defer { advance() }
            return Result { try AudioReader.read(self.dataset.path(missing[i].file), sampleRate: Runner.workingRate, window: missing[i].window) }
        }
        return lock.withLock {
            for (excerpt, result) in zip(missing, fresh) { decoded[excerpt] = result }
            return excerpts.map { ($0, decoded[$0]!) }
        }
    }
}
