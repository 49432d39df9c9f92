import Fingerprinting
import Foundation

/// One of `count` deterministic parts of a benchmark or a suite run (`--shard I/N`, I from 0 to N-1, as
/// Slurm's `%a` of `--array=0-(N-1)`): a benchmark's query i, or a suite's test i, belongs to part
/// i mod N. Every benchmark part indexes the whole catalog (from the shared fingerprint cache) and
/// answers its part of the queries; `fpbench merge` gathers the parts into the results an unsharded
/// run writes, byte for byte.
public struct Shard: Sendable, Codable, Equatable {
    public var index: Int
    public var count: Int
    /// What every part of one run shares, as a SHA-256 (`ShardedResults.configurationKey`, one key for
    /// every kind): a merge refuses a part whose differs.
    public var configuration: String
    /// What defines the whole run beyond the fields its parts share (the whole suite, a sweep's levels and
    /// tolerance), as text hashed into `configuration`; absent for a benchmark, whose file holds all of it.
    public var definition: String?
    /// Written with the part (`ShardedResults.sealed()`): how many items (answers, tests, sweep points)
    /// it holds, and the checksum of the whole part with this field empty. A merge refuses a part whose
    /// content no longer matches.
    public var items: Int?
    public var seal: String?
    /// A benchmark part that holds one slice of the catalog (`--catalog-shard J/M`); absent: the whole.
    public var catalogShard: CatalogShard?

    public init(index: Int, count: Int, configuration: String = "") {
        self.index = index
        self.count = count
        self.configuration = configuration
    }

    /// "I/N" with 0 <= I < N <= 10,000.
    public init(parsing text: String) throws {
        guard let (i, n) = Self.part(text) else {
            throw ChoiceError("--shard \(text)", reason: "write I/N with 0 <= I < N <= 10,000 (Slurm: --shard $SLURM_ARRAY_TASK_ID/N with --array=0-(N-1))")
        }
        self.init(index: i, count: n)
    }

    /// Part I of N, from "I/N" with 0 <= I < N <= 10,000; nil for anything else.
    package static func part(_ text: String) -> (index: Int, count: Int)? {
        let parts = text.split(separator: "/").map { Int($0) }
        guard parts.count == 2, let i = parts[0], let n = parts[1], n >= 1, n <= 10_000, i >= 0, i < n else { return nil }
        return (i, n)
    }

    package func includes(_ item: Int) -> Bool { item % count == index }

    /// The parts of one run, checked: one count, one configuration, each index once, none missing.
    public static func check(_ parts: [(path: String, shard: Shard?)]) throws -> Shard {
        guard let first = parts.first else { throw MergeError("no parts given") }
        guard let shard = first.shard else { throw DatasetError(path: first.path, reason: "not a shard's part (written without --shard)") }
        var byIndex: [Int: String] = [:]
        for (path, s) in parts {
            guard let s else { throw DatasetError(path: path, reason: "not a shard's part (written without --shard)") }
            guard s.count == shard.count else { throw DatasetError(path: path, reason: "is part \(s.index) of \(s.count), the others of \(shard.count)") }
            guard s.configuration == shard.configuration else {
                throw DatasetError(path: path, reason: "comes from another configuration than \(first.path) (seed, dataset manifest, version, spec, algorithms or their parameters differ)")
            }
            if let other = byIndex[s.index] { throw DatasetError(path: path, reason: "part \(s.index) is given twice (also \(other))") }
            byIndex[s.index] = path
        }
        let missing = (0..<shard.count).filter { byIndex[$0] == nil }
        guard missing.isEmpty else {
            throw MergeError("part\(missing.count == 1 ? "" : "s") \(missing.map(String.init).joined(separator: ", ")) of \(shard.count) missing")
        }
        return shard
    }

    /// Where two parts' JSON differ, for a message: each top-level field outside `ignoring` (and "shard"),
    /// with the two values where they are short ("seed (2013, not 7)"), else the first differing field
    /// within it ("tool.version").
    package static func differences(_ a: Data, _ b: Data, ignoring: Set<String>) -> [String] {
        guard let x = try? JSONSerialization.jsonObject(with: a) as? [String: Any], let y = try? JSONSerialization.jsonObject(with: b) as? [String: Any]
        else { return [] }
        func text(_ value: Any?) -> String {
            guard let value, let data = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys]) else { return "none" }
            return String(decoding: data, as: UTF8.self)
        }
        func describe(_ key: String, _ u: Any?, _ v: Any?) -> String? {
            let (p, q) = (text(u), text(v))
            guard p != q else { return nil }
            if let u = u as? [String: Any], let v = v as? [String: Any],
               let inner = Set(u.keys).union(v.keys).sorted().lazy.compactMap({ describe(key + "." + $0, u[$0], v[$0]) }).first {
                return inner
            }
            return p.count + q.count <= 80 ? "\(key) (\(q), not \(p))" : key
        }
        return Set(x.keys).union(y.keys).subtracting(ignoring).subtracting(["shard"]).sorted().compactMap { describe($0, x[$0], y[$0]) }
    }

    /// Problems of several parts, each once (those every part meets, as an unreadable reference, are
    /// listed by each), in part order.
    package static func once(_ lists: [[Problem]]) -> [Problem] {
        var seen: [Problem] = []
        for problem in lists.joined() where !seen.contains(problem) { seen.append(problem) }
        return seen
    }
}


/// Results a sharded run writes in parts and `fpbench merge` gathers, one protocol for the suite's, the
/// benchmark's and a sweep's: each part names its `Shard` (checked by `Shard.check`), and `merge` gives the
/// results the unsharded run writes.
public protocol ShardedResults: ResultsFile {
    var shard: Shard? { get set }
    /// A whole run's seal (a part's is in its shard).
    var seal: String? { get set }
    /// The items a part answers for: a benchmark's answers, a suite's tests, a sweep's points.
    var itemCount: Int { get }
    /// The top-level fields in which the parts of one run differ by design (their items and problems).
    static var partFields: Set<String> { get }
    /// The parts, each with its file's path for messages, gathered into the whole.
    static func merge(_ parts: [(path: String, results: Self)]) throws -> Self
}

extension ShardedResults {
    /// The one configuration key of every results kind: the SHA-256 of the fields all parts of a run share
    /// (all but `partFields`, the shard and the seal) and of the shard's `definition`.
    public var configurationKey: String {
        guard let data = try? encoded(), var object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return "" }
        for field in Self.partFields.union(["shard", "seal"]) { object[field] = nil }
        let shared = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return sha256Hex(shared + Data(("|" + (shard?.definition ?? "")).utf8))
    }

    /// This file as `part` of a sharded run: the shard with its `definition` and its configuration key.
    public func keyed(_ part: Shard, definition: String? = nil) -> Self {
        var keyed = self, shard = part
        shard.definition = definition
        keyed.shard = shard
        shard.configuration = keyed.configurationKey
        keyed.shard = shard
        return keyed
    }

    /// Reads the parts' files, checks each one's seal, and merges them. A part of another run is refused
    /// naming the fields in which it differs from the first part.
    public static func merge(files: [(path: String, data: Data)]) throws -> Self {
        let parts = try files.map { file in
            let part = try decode(file.data, path: file.path)
            if let broken = part.brokenSeal { throw DatasetError(path: file.path, reason: broken) }
            if let shard = part.shard, part.configurationKey != shard.configuration {
                throw DatasetError(path: file.path, reason: "its content does not match its configuration key (written by another fpbench version?); run it again")
            }
            return (path: file.path, results: part)
        }
        if let first = parts.first?.results.shard {
            for (file, part) in zip(files, parts).dropFirst() {
                guard let shard = part.results.shard, shard.configuration != first.configuration else { continue }
                let fields = Shard.differences(files[0].data, file.data, ignoring: partFields)
                throw DatasetError(path: file.path, reason: "comes from another run than \(files[0].path): "
                                   + (fields.isEmpty ? "their configurations differ" : "they differ in " + fields.joined(separator: ", ")))
            }
        }
        return try merge(parts)
    }

    /// The file with its seal: a part's item count and the checksum of its encoding with the seal empty in its
    /// shard; a whole run's checksum, likewise, in `seal`.
    public func sealed() -> Self {
        var whole = self
        whole.seal = nil
        guard var shard else {
            whole.seal = Checksum.hex((try? whole.encoded()) ?? Data())
            return whole
        }
        shard.items = itemCount
        shard.seal = nil
        whole.shard = shard
        shard.seal = Checksum.hex((try? whole.encoded()) ?? Data())
        whole.shard = shard
        return whole
    }

    /// A whole run's file written before fpbench sealed them: its figures cannot be checked.
    public var unsealed: Bool { shard == nil && seal == nil }

    /// Why a file read back is not what its run wrote (nil: it is, or it carries no seal: `unsealed`).
    public var brokenSeal: String? {
        guard let shard else {
            guard let seal else { return nil }
            return sealed().seal == seal ? nil : "does not match its seal (edited or damaged); run it again or restore it"
        }
        guard let items = shard.items, let seal = shard.seal else { return "part \(shard.index) of \(shard.count) carries no seal (written by an older fpbench?); run it again" }
        guard items == itemCount else {
            return "part \(shard.index) of \(shard.count) holds \(itemCount) of the \(items) items it was written with (truncated or edited); run it again"
        }
        guard sealed().shard?.seal == seal else { return "part \(shard.index) of \(shard.count) does not match its seal (edited or damaged); run it again" }
        return nil
    }
}

/// One of `count` slices of the catalog (`--catalog-shard J/M`), each about 1/M of its hours: a part
/// that holds it indexes and verifies only its own tracks (`CatalogSlices`), so no node needs the whole
/// index. Two stages and a merge:
/// 1. `--count-keys`: each slice's key counts, written to the shared `--key-counts` folder;
/// 2. the benchmark proper: each slice (with any query shard) built with the whole catalog's common keys
///    from every slice's counts, answering each query with its candidates and their hits;
/// 3. `fpbench merge`: each query's candidates over the slices ranked as the whole index ranks them
///    (`CatalogSlices.best`), so the merged results equal the unsharded run's, byte for byte.
public struct CatalogShard: Sendable, Codable, Equatable {
    public var index: Int
    public var count: Int

    public init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// "J/M" with 0 <= J < M <= 10,000.
    public init(parsing text: String) throws {
        guard let (j, m) = Shard.part(text) else {
            throw ChoiceError("--catalog-shard \(text)", reason: "write J/M with 0 <= J < M <= 10,000: slice J of the catalog split into M")
        }
        self.init(index: j, count: m)
    }
}
