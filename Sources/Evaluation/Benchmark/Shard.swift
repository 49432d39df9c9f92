import Foundation

/// One of `count` deterministic parts of a benchmark (`--shard I/N`, I from 0 to N-1, as Slurm's
/// `%a` of `--array=0-(N-1)`): query i is answered by shard i mod N. Every shard indexes the whole
/// catalog (from the shared fingerprint cache) and answers its part of the queries; `fpbench merge`
/// gathers the parts into the results an unsharded run writes, byte for byte.
public struct Shard: Sendable, Codable, Equatable {
    public var index: Int
    public var count: Int
    /// What every part of one benchmark shares (tool, seed, spec, catalog, algorithms and their
    /// profiles, queries), as a SHA-256: a merge refuses a part whose differs.
    public var configuration: String

    public init(index: Int, count: Int, configuration: String = "") {
        self.index = index
        self.count = count
        self.configuration = configuration
    }

    /// "I/N" with 0 <= I < N <= 10,000.
    public init(parsing text: String) throws {
        let parts = text.split(separator: "/").map { Int($0) }
        guard parts.count == 2, let i = parts[0], let n = parts[1], n >= 1, n <= 10_000, i >= 0, i < n else {
            throw DatasetError(path: "--shard \(text)", reason: "write I/N with 0 <= I < N <= 10,000 (Slurm: --shard $SLURM_ARRAY_TASK_ID/N with --array=0-(N-1))")
        }
        self.init(index: i, count: n)
    }

    func includes(_ query: Int) -> Bool { query % count == index }
}

extension BenchmarkResults {
    /// The SHA-256 of everything but the answers, problems and shard: equal for every part of one benchmark.
    var configurationKey: String {
        var shared = self
        shared.answers = []
        shared.skipped = []
        shared.failures = []
        shared.shard = nil
        return (try? shared.encoded()).map(sha256Hex) ?? ""
    }

    /// The parts of one sharded benchmark (each with its file's path, for messages) gathered into the
    /// results the unsharded run writes: answers in query order, problems each once, in shard order.
    public static func merge(_ parts: [(path: String, results: BenchmarkResults)]) throws -> BenchmarkResults {
        guard let first = parts.first else { throw DatasetError(path: "merge", reason: "no parts given") }
        guard let shard = first.results.shard else { throw DatasetError(path: first.path, reason: "not a shard's part (written without --shard)") }
        var byIndex: [Int: String] = [:]
        for (path, results) in parts {
            guard let s = results.shard else { throw DatasetError(path: path, reason: "not a shard's part (written without --shard)") }
            guard s.count == shard.count else { throw DatasetError(path: path, reason: "is part \(s.index) of \(s.count), the others of \(shard.count)") }
            guard s.configuration == shard.configuration, results.configurationKey == s.configuration else {
                throw DatasetError(path: path, reason: "comes from another configuration than \(first.path) (seed, dataset manifest, version, spec, algorithms or their parameters differ)")
            }
            if let other = byIndex[s.index] { throw DatasetError(path: path, reason: "part \(s.index) is given twice (also \(other))") }
            byIndex[s.index] = path
        }
        let missing = (0..<shard.count).filter { byIndex[$0] == nil }
        guard missing.isEmpty else {
            throw DatasetError(path: "merge", reason: "part\(missing.count == 1 ? "" : "s") \(missing.map(String.init).joined(separator: ", ")) of \(shard.count) missing")
        }
        var merged = first.results
        merged.shard = nil
        let order = Dictionary(uniqueKeysWithValues: merged.queries.enumerated().map { ($0.element.id, $0.offset) })
        let sorted = parts.sorted { $0.results.shard!.index < $1.results.shard!.index }
        // Each part lists its answers in query order; a stable sort by query interleaves them.
        merged.answers = sorted.flatMap(\.results.answers).enumerated()
            .sorted { (order[$0.element.query] ?? 0, $0.offset) < (order[$1.element.query] ?? 0, $1.offset) }.map(\.element)
        func once(_ lists: [[RunResults.Problem]]) -> [RunResults.Problem] {
            var seen: [RunResults.Problem] = []
            for problem in lists.joined() where !seen.contains(problem) { seen.append(problem) }
            return seen
        }
        merged.skipped = once(sorted.map(\.results.skipped))
        merged.failures = once(sorted.map(\.results.failures))
        return merged
    }
}
