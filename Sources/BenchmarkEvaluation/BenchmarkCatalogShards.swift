import Evaluation
import Fingerprinting
import Foundation

extension BenchmarkMatch: SliceCandidate {
    public var reference: Int { track }
    public var hits: Int { candidateHits ?? 0 }
}

extension Benchmark {
    /// Stage one (`--count-keys`): how often this slice's own tracks post each key, per indexed
    /// algorithm, written into the key-counts folder. Returns the files written.
    public func countKeys() throws -> [URL] {
        let c = configuration
        guard let shard = c.catalogShard, let folder = c.keyCountsFolder else {
            throw ChoiceError("--count-keys", reason: "give --catalog-shard J/M and --key-counts FOLDER")
        }
        try refuseUnsliceable(c.algorithms)
        var failures: [Problem] = [], skipped: [Problem] = []
        let catalog = try readCatalog(&failures)
        let owned = shard.owned(durations: catalog.durations)
        let algorithms = runnable(hours: catalog.durations.reduce(0, +) / 3600, skipped: &skipped).filter { $0.capabilities.contains(.sliceable) }
        let counters = algorithms.map(KeyCounter.init)
        let progress = ProgressReporter(c.progress)
        progress.start("counting keys of slice \(shard.index) of \(shard.count)", total: owned.count)
        var checksums: [String] = []
        for batch in batches(owned) {
            let indexed = indexer.index(Array(catalog.tracks[batch]), algorithms: algorithms, progress: progress)
            for i in 0..<batch.count { for a in algorithms.indices { if let p = indexed.prints[a][i] { counters[a].add(p) } } }
            checksums += indexed.checksums
        }
        progress.finish()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return try algorithms.indices.compactMap { a in
            guard let counts = counters[a].counts else { return nil }
            let path = KeyCountsFile.path(in: folder, algorithm: algorithms[a], slice: shard.index, of: shard.count)
            try KeyCountsFile.write(counts, algorithm: algorithms[a], slice: shard.index, of: shard.count,
                                    tracks: Array(catalog.tracks[owned]), durations: Array(catalog.durations[owned]), checksums: checksums, to: path)
            return path
        }
    }

    /// A slice holds an inverted file's share of the postings, or brute force's share of the references;
    /// an index of another kind (the vector index: each query segment's nearest neighbours vote over the
    /// whole catalog) would answer differently in slices, so it is refused, named.
    private func refuseUnsliceable(_ algorithms: [AnyAlgorithm]) throws {
        let refused = algorithms.filter { $0.capabilities.contains(.indexed) && !$0.capabilities.contains(.sliceable) }
        guard !refused.isEmpty else { return }
        throw ChoiceError("--catalog-shard", reason: refused.map(\.identifier).joined(separator: ", ")
                           + ": its index cannot be held as slices (sliceable: " + AlgorithmRegistry.identifiers(with: .sliceable).joined(separator: ", ")
                           + ", their variants, and brute-force algorithms); a vector catalog past \(VectorSearch.exactLimit) segments goes to FAISS instead")
    }

    /// Stage two's index: each algorithm's slice, every track fingerprinted (from the cache stage one
    /// filled) and laid out in order, a batch at a time, so that only the slice's own fingerprints and
    /// its own and its ghosts' postings are held.
    func buildSliceIndex(_ catalog: CatalogFiles, shard: CatalogShard, algorithms: [AnyAlgorithm], progress: ProgressReporter,
                         failures: inout [Problem]) throws -> BuiltIndex {
        let c = configuration
        guard let folder = c.keyCountsFolder else { throw ChoiceError("--catalog-shard", reason: "give --key-counts FOLDER, where stage one (--count-keys) wrote every slice's counts") }
        try refuseUnsliceable(algorithms)
        let ranges = CatalogSlices.ranges(durations: catalog.durations, count: shard.count)
        let whole = try algorithms.map { algorithm -> KeyCounts? in
            guard algorithm.capabilities.contains(.sliceable) else { return nil }
            return try KeyCountsFile.whole(in: folder, algorithm: algorithm, tracks: ranges.map { Array(catalog.tracks[$0]) })
        }
        let reach = 2 * (c.spec.queryLengths.max() ?? 0)  // a time-stretched query covers more of the track than its length
        let roles = CatalogSlices.roles(durations: catalog.durations, owned: ranges[shard.index], reach: reach)
        let slices = algorithms.indices.map { Catalog(slicing: algorithms[$0], whole: whole[$0]) }
        var indexed = CatalogIndexer.Indexed(prints: algorithms.map { _ in [] }, cpu: algorithms.map { _ in [] }, decode: [], fromCache: algorithms.map { _ in 0 },
                              failures: [], checksums: [])
        progress.start("indexing slice \(shard.index) of \(shard.count) (laying out every track)", total: catalog.tracks.count)
        for batch in batches(catalog.tracks.indices) {
            let part = indexer.index(Array(catalog.tracks[batch]), algorithms: algorithms, progress: progress)
            for (i, t) in batch.enumerated() {
                for a in algorithms.indices {
                    if let p = part.prints[a][i] { slices[a].add(p, name: catalog.tracks[t], checksum: part.checksums[i], role: roles[t]) }
                }
            }
            for a in algorithms.indices {
                indexed.cpu[a] += part.cpu[a]
                indexed.fromCache[a] += part.fromCache[a]
            }
            indexed.decode += part.decode
            indexed.checksums += part.checksums
            indexed.failures += part.failures.map { (batch.lowerBound + $0.0, $0.1) }
        }
        for (t, failure) in indexed.failures { failures.append(.init(item: "catalog \(catalog.tracks[t])", reason: failure, file: catalog.tracks[t])) }
        progress.start("building the indexes", total: algorithms.count)
        let buildSeconds = slices.map { slice -> Double in
            defer { progress.advance() }
            let clock = ContinuousClock.now
            slice.seal()
            return (ContinuousClock.now - clock).seconds
        }
        return BuiltIndex(catalogs: slices, buildSeconds: buildSeconds, indexed: indexed, loaded: [:], peer: nil,
                          trackIndex: Dictionary(uniqueKeysWithValues: catalog.tracks.enumerated().map { ($0.element, $0.offset) }))
    }

    /// Tracks in runs of a few per thread: fingerprinted in parallel, then added in catalog order.
    private func batches(_ tracks: Range<Int>) -> [Range<Int>] {
        let size = 4 * max(1, configuration.threads)
        return stride(from: tracks.lowerBound, to: tracks.upperBound, by: size).map { $0..<min($0 + size, tracks.upperBound) }
    }

    /// What a catalog-shard part cannot do, said before it starts.
    func checkCatalogShard() throws {
        let c = configuration
        guard c.catalogShard != nil else { return }
        if !c.systems.isEmpty { throw ChoiceError("--catalog-shard", reason: "an outside system indexes the whole catalog itself: run --system without --catalog-shard") }
        if !c.indexFiles.isEmpty { throw ChoiceError("--catalog-shard", reason: "an index file holds the whole catalog: give --index without --catalog-shard") }
    }
}

extension BenchmarkResults {
    /// Stage three: the parts of one query shard that each hold one slice of the catalog, as the one part
    /// the whole catalog would have answered: each answer's candidates over the slices ranked as the
    /// whole index ranks them. Parts without a catalog shard are returned as they are.
    static func mergeCatalogShards(_ parts: [(path: String, results: BenchmarkResults)]) throws -> [(path: String, results: BenchmarkResults)] {
        guard parts.contains(where: { $0.results.shard?.catalogShard != nil }) else { return parts }
        let count = parts.compactMap { $0.results.shard?.catalogShard?.count }.first!
        let groups = Dictionary(grouping: parts) { $0.results.shard?.index ?? 0 }
        return try groups.keys.sorted().map { index in
            let group = groups[index]!
            var slices: [Int: (path: String, results: BenchmarkResults)] = [:]
            for part in group {
                guard let slice = part.results.shard?.catalogShard else { throw DatasetError(path: part.path, reason: "holds the whole catalog, the other parts one slice each") }
                guard slice.count == count else { throw DatasetError(path: part.path, reason: "holds slice \(slice.index) of \(slice.count), the others slices of \(count)") }
                if let other = slices[slice.index] { throw DatasetError(path: part.path, reason: "slice \(slice.index) of query part \(index) is given twice (also \(other.path))") }
                slices[slice.index] = part
            }
            let missing = (0..<count).filter { slices[$0] == nil }
            guard missing.isEmpty else {
                throw MergeError("query part \(index): catalog slice\(missing.count == 1 ? "" : "s") \(missing.map(String.init).joined(separator: ", ")) of \(count) missing")
            }
            let ordered = (0..<count).map { slices[$0]! }
            var merged = ordered[0].results
            let indexed = Set(merged.algorithms.filter { $0.search == "index" }.map(\.identifier))
            for (path, part) in ordered.dropFirst() {
                guard part.answers.count == merged.answers.count, zip(part.answers, merged.answers).allSatisfy({
                    ($0.algorithm, $0.query, $0.condition) == ($1.algorithm, $1.query, $1.condition)
                }) else { throw DatasetError(path: path, reason: "answers other queries than \(ordered[0].path)") }
            }
            for i in merged.answers.indices {
                let answers = ordered.map { $0.results.answers[i] }
                merged.answers[i].failure = answers.lazy.compactMap(\.failure).first
                let kept = indexed.contains(answers[0].algorithm) ? max(Benchmark.answersKept, Catalog.defaultVerified) : nil
                merged.answers[i].top = CatalogSlices.best(answers.map(\.top), kept: kept, limit: Benchmark.answersKept)
                    .map { var match = $0; match.candidateHits = nil; return match }
            }
            merged.skipped = Shard.once(ordered.map(\.results.skipped))
            merged.failures = Shard.once(ordered.map(\.results.failures))
            merged.repeats = RepeatedPassages.merged(ordered.map(\.results), into: merged)
            merged.shard?.catalogShard = nil
            return (path: ordered[0].path, results: merged)
        }
    }
}

extension CatalogShard {
    /// Its tracks: a contiguous range of the catalog, about 1/M of its seconds.
    public func owned(durations: [Double]) -> Range<Int> { CatalogSlices.ranges(durations: durations, count: count)[index] }
}
