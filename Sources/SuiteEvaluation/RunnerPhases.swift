import AudioIO
import Degradation
import Evaluation
import Fingerprinting
import Foundation

/// The runner's later phases: fingerprint through the cache, compare, search the catalogs, measure the pairs,
/// assemble the results.
extension Runner {
    // MARK: Fingerprint

    /// Every algorithm × (references + queries + distractors), through the cache, keyed by what
    /// determines each input (file checksums, windows, the test and its seed), so a warm run decodes nothing.
    func fingerprint(sources: [Source], tests: [PlannedTest], distractors: [Excerpt], audio: QueryAudio, progress: ProgressReporter) -> PrintTable {
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
    func compare(_ prints: PrintTable, sources: [Source], tests: [PlannedTest], progress: ProgressReporter) -> [SimilarityMatrix] {
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
    func searchCatalogs(_ prints: PrintTable, sources: [Source], tests: [PlannedTest], distractors: [Excerpt],
                                progress: ProgressReporter) throws -> [RunResults.CatalogResult] {
        let c = configuration, cells = c.algorithms.count * tests.count
        let built = c.algorithms.indices.map { a -> Catalog in
            let references = sources.indices.map { (print: prints[a, .reference($0)], name: sources[$0].id, checksum: "") }
            let others = distractors.indices.map { (print: prints[a, .distractor($0)], name: "distractor \(distractors[$0].file)", checksum: "") }
            return Catalog(algorithm: c.algorithms[a], sealing: references + others)
        }
        progress.start("catalog search", total: cells)
        return try parallelMap(cells, threads: c.threads) { cell -> Result<RunResults.CatalogResult, Error> in
            defer { progress.advance() }
            let a = cell / tests.count, t = cell % tests.count
            return Result { try searchCatalog(built[a], algorithm: a, test: t, record: tests[t].record, prints: prints, sources: sources) }
        }.map { try $0.get() }
    }

    /// One test's queries against one algorithm's catalog.
    private func searchCatalog(_ catalog: Catalog, algorithm a: Int, test t: Int, record: RunResults.TestRecord, prints: PrintTable,
                               sources: [Source]) throws -> RunResults.CatalogResult {
        var result = RunResults.CatalogResult(algorithm: configuration.algorithms[a].identifier, test: record.definition.id,
                                              queries: record.queries.count, correct: 0, wrong: 0, noMatch: 0,
                                              references: catalog.names.count, distractors: catalog.names.count - sources.count,
                                              referenceSeconds: catalog.duration, bytes: catalog.byteCount, answers: [])
        for (row, query) in record.queries.enumerated() {
            guard let print = prints[a, .query(test: t, row: row)] else {
                result.answers?.append(.init())
                continue
            }
            let top = try catalog.search(print, limit: 1).first
            result.answers?.append(.init(answer: top?.reference, score: top?.comparison.score, offset: top?.comparison.offset))
            switch top?.reference {
            case nil: result.noMatch += 1
            case query.source?: result.correct += 1
            default: result.wrong += 1
            }
        }
        return result
    }

    // MARK: Pair difficulty

    /// For each test that cuts its queries from another recording, how alike each pair is by the fixed
    /// yardstick, through the cache (a warm run decodes nothing); nil when no test does.
    func measurePairs(sources: [Source], durations: [Excerpt: Double], audio: ExcerptAudio,
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

    func assemble(_ prints: PrintTable, sources: [Source], tests: [RunResults.TestRecord], matrices: [SimilarityMatrix],
                          catalogs: [RunResults.CatalogResult], problems: Problems) -> RunResults {
        let c = configuration
        return RunResults(
            tool: .fpbench(c.toolVersion), seed: c.seed,
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
}
