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

/// Runs every algorithm on every test of a suite: decodes each excerpt once (at the working rate),
/// makes the queries, fingerprints (through the cache) and fills the similarity matrices.
/// A failing item is recorded with its reason and left out; it never stops the run.
public struct Runner {
    /// Excerpts are decoded once at this rate and degraded there; each algorithm resamples from it.
    public static let workingRate = 44_100.0

    let configuration: RunConfiguration

    public init(_ configuration: RunConfiguration) { self.configuration = configuration }

    public func run() -> RunResults {
        let c = configuration, dataset = c.dataset
        let progress = Progress(enabled: c.showProgress)
        var failures: [RunResults.Problem] = [], skipped: [RunResults.Problem] = []

        // 1. Decode every excerpt the suite needs, once.
        let excerpts = Array(Set(dataset.manifest.sources.flatMap { source in [source.reference] + c.suite.tests.compactMap { $0.recipe.excerpt(of: source) } }
                                 + dataset.manifest.distractors))
            .sorted { ($0.file, $0.start) < ($1.file, $1.start) }
        progress.start("decoding", total: excerpts.count)
        let decoded = parallelMap(excerpts.count, threads: c.threads) { i -> Result<Audio, Error> in
            defer { progress.advance() }
            return Result { try AudioReader.read(dataset.path(excerpts[i].file), sampleRate: Self.workingRate, window: excerpts[i].window) }
        }
        var audio: [Excerpt: Audio] = [:]
        for (excerpt, result) in zip(excerpts, decoded) {
            switch result {
            case .success(let a): audio[excerpt] = a
            case .failure(let error): failures.append(.init(item: excerpt.file, reason: "\(error)"))
            }
        }
        let sources = dataset.manifest.sources.filter { source in
            if audio[source.reference] != nil { return true }
            failures.append(.init(item: "source \(source.id)", reason: "its reference could not be read; left out of every test"))
            return false
        }

        // 2. Noise recordings and impulse responses the suite names: the dataset's, or audio files by path.
        var recordings: [String: Audio] = [:]
        let named = dataset.manifest.noises + dataset.manifest.impulseResponses
        let used = Set(c.suite.tests.flatMap(\.recipe.recordings))
        for id in used.sorted() {
            let path = named.first { $0.id == id }.map { dataset.path($0.file) } ?? (FileManager.default.fileExists(atPath: id) ? id : nil)
            guard let path else { continue }
            do { recordings[id] = try AudioReader.read(path, sampleRate: Self.workingRate) } catch {
                failures.append(.init(item: id, reason: "\(error); stages that use it are left out"))
            }
        }
        // A named recording that is not there: its stage is left out, said next to each test.
        for test in c.suite.tests {
            for id in test.recipe.recordings where recordings[id] == nil {
                skipped.append(.init(item: test.id, reason: "'\(id)' is not in the dataset (nor a readable file): the stage that uses it is left out"))
            }
        }

        // 3. Queries: plan, degrade, keep for listening.
        let planner = QueryPlanner(seed: c.seed, recordings: recordings)
        var tests: [RunResults.TestRecord] = []
        var queryAudio: [[Audio?]] = []
        for test in c.suite.tests {
            var record = RunResults.TestRecord(definition: test, queries: [])
            var planned: [(Source, QueryPlanner.Plan)] = []
            for source in sources {
                do {
                    switch try planner.plan(test, source: source, excerptDuration: { audio[$0]?.duration ?? 0 }) {
                    case .planned(let plan):
                        if audio[plan.excerpt] == nil {
                            failures.append(.init(item: "\(test.id)/\(source.id)", reason: "\(plan.excerpt.file) could not be read"))
                        } else {
                            planned.append((source, plan))
                        }
                    case .skipped(let reason): skipped.append(.init(item: "\(test.id)/\(source.id)", reason: reason))
                    }
                } catch {
                    failures.append(.init(item: "\(test.id)/\(source.id)", reason: "\(error)"))
                }
            }
            let made = parallelMap(planned.count, threads: c.threads) { i -> Result<Audio, Error> in
                Result { try planned[i].1.chain.apply(audio[planned[i].1.excerpt]!) }
            }
            var rows: [Audio?] = []
            for ((source, plan), result) in zip(planned, made) {
                record.queries.append(.init(source: source.id, excerpt: plan.excerpt, seed: plan.chain.seed,
                                            degradations: plan.chain.records, simulated: plan.simulated))
                switch result {
                case .success(let query):
                    rows.append(query)
                    keep(query, test: test.id, source: source.id, failures: &failures)
                case .failure(let error):
                    rows.append(nil)
                    failures.append(.init(item: "\(test.id)/\(source.id)", reason: "degradation failed: \(error)"))
                }
            }
            tests.append(record)
            queryAudio.append(rows)
        }

        // 4. Fingerprints: every algorithm × (references + queries + distractors), through the cache.
        let references = sources.map { audio[$0.reference]! }
        let allQueries = queryAudio.flatMap { $0 }
        let distractors = dataset.manifest.distractors.filter { audio[$0] != nil }
        let inputs: [(Audio?, FingerprintRole)] = references.map { ($0, .reference) } + allQueries.map { ($0, .query) }
            + distractors.map { (audio[$0], .reference) }
        let digests = parallelMap(inputs.count, threads: c.threads) { inputs[$0].0.map(digest) }
        let cache = FingerprintCache(folder: c.cacheFolder)
        let jobs = c.algorithms.count * inputs.count
        progress.start("fingerprinting", total: jobs)
        let prints = parallelMap(jobs, threads: c.threads) { job -> Result<AnyFingerprint, Error>? in
            defer { progress.advance() }
            let algorithm = c.algorithms[job / inputs.count], i = job % inputs.count
            guard let input = inputs[i].0 else { return nil }
            return Result { try cache.fingerprint(algorithm, role: inputs[i].1, audio: input, audioDigest: digests[i]!) }
        }
        func fingerprint(_ a: Int, _ i: Int) -> AnyFingerprint? {
            if case .success(let p)? = prints[a * inputs.count + i] { return p }
            return nil
        }
        for (a, algorithm) in c.algorithms.enumerated() {
            for i in inputs.indices {
                if case .failure(let error)? = prints[a * inputs.count + i] {
                    let item = i < sources.count ? "reference \(sources[i].id)"
                        : i < sources.count + allQueries.count ? queryName(i - sources.count, tests)
                        : "distractor \(distractors[i - sources.count - allQueries.count].file)"
                    failures.append(.init(item: "\(algorithm.identifier): \(item)", reason: "\(error)"))
                }
            }
        }

        // 5. Similarity matrices.
        var firstQuery: [Int] = [], offset = sources.count
        for rows in queryAudio { firstQuery.append(offset); offset += rows.count }
        let cells = c.algorithms.count * tests.count
        progress.start("comparing", total: cells)
        let matrices = parallelMap(cells, threads: c.threads) { cell -> SimilarityMatrix in
            defer { progress.advance() }
            let a = cell / tests.count, t = cell % tests.count, algorithm = c.algorithms[a]
            var matrix = SimilarityMatrix(algorithm: algorithm.identifier, test: tests[t].definition.id,
                                          rows: tests[t].queries.map(\.source), columns: sources.map(\.id),
                                          scores: [], rawFigures: [], offsets: [])
            for row in tests[t].queries.indices {
                let query = fingerprint(a, firstQuery[t] + row)
                let comparisons = sources.indices.map { r -> Comparison? in
                    guard let query, let reference = fingerprint(a, r) else { return nil }
                    return algorithm.compare(query: query, reference: reference)
                }
                matrix.scores.append(comparisons.map { $0?.score })
                matrix.rawFigures.append(comparisons.map { $0?.rawFigure })
                matrix.offsets.append(comparisons.map { $0?.offset })
            }
            return matrix
        }

        // 6. Catalog search: every query against references + distractors, through the algorithm's own index.
        let firstDistractor = sources.count + allQueries.count
        var catalogs: [RunResults.CatalogResult] = []
        if !distractors.isEmpty {
            let built = c.algorithms.indices.map { a -> Catalog in
                let catalog = Catalog(algorithm: c.algorithms[a])
                for r in sources.indices { if let p = fingerprint(a, r) { catalog.add(p, name: sources[r].id) } }
                for (d, excerpt) in distractors.enumerated() {
                    if let p = fingerprint(a, firstDistractor + d) { catalog.add(p, name: "distractor \(excerpt.file)") }
                }
                catalog.seal()
                return catalog
            }
            progress.start("catalog search", total: cells)
            catalogs = parallelMap(cells, threads: c.threads) { cell -> RunResults.CatalogResult in
                defer { progress.advance() }
                let a = cell / tests.count, t = cell % tests.count, catalog = built[a]
                var result = RunResults.CatalogResult(algorithm: c.algorithms[a].identifier, test: tests[t].definition.id,
                                                      queries: tests[t].queries.count, correct: 0, wrong: 0, noMatch: 0,
                                                      references: catalog.names.count, distractors: catalog.names.count - sources.count,
                                                      referenceSeconds: catalog.duration, bytes: catalog.byteCount)
                for (row, query) in tests[t].queries.enumerated() {
                    guard let print = fingerprint(a, firstQuery[t] + row) else { continue }
                    switch catalog.search(print, limit: 1).first?.reference {
                    case nil: result.noMatch += 1
                    case query.source?: result.correct += 1
                    default: result.wrong += 1
                    }
                }
                return result
            }
        }
        progress.finish()

        return RunResults(
            tool: .init(name: "fpbench", version: c.toolVersion), seed: c.seed,
            dataset: .init(name: dataset.manifest.name, manifestSHA256: dataset.manifestSHA256,
                           sources: sources.map { .init(id: $0.id, name: $0.name, family: $0.family) }),
            algorithms: c.algorithms.enumerated().map { a, algorithm in
                let prints = sources.indices.compactMap { fingerprint(a, $0) }
                let seconds = prints.reduce(0) { $0 + $1.duration }
                return .init(identifier: algorithm.identifier, displayName: algorithm.displayName, sampleRate: algorithm.sampleRate,
                             rawFigureName: algorithm.rawFigureName, profile: algorithm.profile,
                             bytesPerSecond: seconds > 0 ? Double(prints.reduce(0) { $0 + $1.byteCount }) / seconds : nil)
            },
            tests: tests, references: sources.map(\.id), matrices: matrices, catalogs: catalogs, skipped: skipped, failures: failures)
    }

    private func queryName(_ index: Int, _ tests: [RunResults.TestRecord]) -> String {
        var i = index
        for test in tests {
            if i < test.queries.count { return "query \(test.definition.id)/\(test.queries[i].source)" }
            i -= test.queries.count
        }
        return "query \(index)"
    }

    private func keep(_ query: Audio, test: String, source: String, failures: inout [RunResults.Problem]) {
        guard let folder = configuration.keepAudioFolder?.appendingPathComponent(test) else { return }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try AudioWriter.write(query, to: folder.appendingPathComponent("\(source).wav").path)
        } catch {
            failures.append(.init(item: "keep-audio \(test)/\(source)", reason: "\(error)"))
        }
    }
}
