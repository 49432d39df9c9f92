import CVectorSearch
import Foundation

/// How a vector index finds each query segment's nearest reference segments.
public enum VectorSearch: Sendable, Equatable, CustomStringConvertible {
    /// Every reference segment scored by our own kernel (fused multiply-adds, the same bits on every processor).
    case exact
    /// FAISS, an index made by `description` in its index_factory's language ("IVF1024,PQ32", "HNSW32", "IMI2x8,PQ32"),
    /// with `probes` lists searched (IVF's nprobe) or candidates kept (HNSW's efSearch).
    case faiss(description: String, probes: Int)

    /// Exact search up to this many segments (about 280 h at a 0.5 s hop, 1 GB of 128 floats); FAISS above.
    public static let exactLimit = 2_000_000

    /// What a catalog of `count` segments gets unless told: exact, or FAISS's inverted multi-index of
    /// product-quantised codes (Jégou et al.'s IVF-PQ, NAFP's choice for its large database, §3.4, with a
    /// multi-index as its coarse quantizer): 65,536 cells, 64 of them probed, a byte per 4 dimensions,
    /// without polysemous training ("np": FAISS spends most of a build on it, for a Hamming filter this
    /// search does not use). Our choice of a multi-index: finding a row's cell costs two searches of 256
    /// centroids, so Debian's FAISS (built without SIMD) adds tens of millions of rows in minutes where
    /// an inverted file of 32,768 lists would take hours.
    public static func automatic(count: Int, dimension: Int) -> VectorSearch {
        guard count > exactLimit else { return .exact }
        return .faiss(description: "IMI2x8,PQ\(max(1, dimension / 4))np", probes: 64)
    }

    public var description: String {
        switch self {
        case .exact: "exact inner product"
        case .faiss(let description, let probes): "FAISS \(description), \(probes) probes"
        }
    }
}

/// The index of the vector algorithms, searched as NAFP searches (Chang et al., ICASSP 2021, §3.4): each
/// query segment's `neighbours` nearest reference segments vote for a recording and an offset (reference
/// time - query time), a vote weighing its similarity; the candidates are the (recording, offset) pairs
/// with the largest summed similarity, which the catalog verifies by `SequenceMatcher`.
public struct VectorIndex: StoredIndex {
    let neighbours: Int
    let chosen: VectorSearch?
    private var dimension = 0
    private var step = 0.0
    /// The rows' floats: as added until the index is sealed for exact search, then packed (`vs_pack`).
    private var values: [Float] = []
    private var packed = false
    private var references: [Int32] = []
    private var times: [UInt32] = []
    private var approximate: FaissIndex?
    /// Past this many rows a catalog planned for FAISS streams into it (`moveToFAISS`).
    var streamingRows = VectorSearch.exactLimit

    /// `search`: nil for `VectorSearch.automatic` by the catalog's size.
    public init(neighbours: Int, search: VectorSearch? = nil) {
        self.neighbours = neighbours
        chosen = search
    }

    public mutating func add(_ print: VectorFingerprint, reference: Int) {
        precondition(dimension == 0 || dimension == print.dimension, "every fingerprint of one algorithm has one dimension")
        precondition(!packed, "VectorIndex.add after the index was sealed")
        dimension = print.dimension
        step = print.step
        values += print.values
        references += repeatElement(Int32(reference), count: print.times.count)
        times += print.times
        let streaming = approximate != nil ? values.count >= Self.batchRows * dimension : times.count > streamingRows && faissProblem == nil
        if streaming { moveToFAISS() }
    }

    /// Rows handed to FAISS at a time once it holds a catalog that grows.
    static let batchRows = 65_536

    /// Hands the rows held to FAISS, building its index from them first. A catalog that grows past exact
    /// search's size is built so: its index made from its first `streamingRows` rows, every later row then
    /// added as it comes, so it never holds its floats (exact search is then unavailable). A FAISS that
    /// refuses leaves the rows held and the search exact, and says why.
    private mutating func moveToFAISS() {
        guard case .faiss(let description, let probes) = planned, !values.isEmpty else { return }
        do {
            if let approximate { try approximate.add(values) } else {
                approximate = try FaissIndex(description: description, dimension: dimension, rows: values, probes: probes)
            }
            values = []
        } catch {
            faissProblem = "\(error)"
        }
    }

    /// The search asked for: the one chosen, or the automatic one for the segments held.
    var planned: VectorSearch { chosen ?? .automatic(count: times.count, dimension: max(1, dimension)) }
    /// The search in use: FAISS once its index is built or read, else exact.
    public var search: VectorSearch { approximate == nil ? .exact : planned }
    /// Why FAISS could not build the index asked for (then the search is exact).
    public private(set) var faissProblem: String?

    /// Builds FAISS's index where one is planned, or adds the rows still held to it. A catalog too small
    /// for the description (fewer segments than lists) is searched exactly, and says why.
    public mutating func seal() {
        if faissProblem == nil { moveToFAISS() }
        packForExactSearch()
    }

    /// Rows searched exactly are packed once, as the kernel reads them, not for every query.
    private mutating func packForExactSearch() {
        guard approximate == nil, !packed, !values.isEmpty else { return }
        values = Self.pack(values, dimension: dimension)
        packed = true
    }

    static func pack(_ rows: [Float], dimension: Int) -> [Float] {
        let count = rows.count / dimension
        var packed = [Float](repeating: 0, count: Int(vs_packed_count(Int64(count), Int32(dimension))))
        vs_pack(rows, Int64(count), Int32(dimension), &packed)
        return packed
    }

    static func unpack(_ packed: [Float], count: Int, dimension: Int) -> [Float] {
        var rows = [Float](repeating: 0, count: count * dimension)
        vs_unpack(packed, Int64(count), Int32(dimension), &rows)
        return rows
    }

    /// Each query row's nearest reference rows: (similarity, row), `neighbours` per query row.
    func nearest(_ query: VectorFingerprint) -> (scores: [Float], rows: [Int64]) {
        let n = query.times.count, k = min(neighbours, times.count)
        guard k > 0, query.dimension == dimension else { return ([], []) }
        if let approximate {
            var scores = [Float](repeating: 0, count: n * k), rows = [Int64](repeating: -1, count: n * k)
            if (try? approximate.search(query.values, count: n, k: k, scores: &scores, rows: &rows)) != nil { return (scores, rows) }
        }
        guard packed || values.count == times.count * dimension else { return ([], []) }  // FAISS holds (some of) the rows alone
        guard packed else { return Self.exactNearest(values, dimension: dimension, queries: query.values, k: k) }
        return Self.exactNearest(packed: values, count: times.count, dimension: dimension, queries: query.values, k: k)
    }

    /// Exact search: each query row's `k` nearest rows of `base` by inner product, (similarity, row) best
    /// first. Every product is one chain of fused multiply-adds in the order of the dimensions, so the AVX2
    /// kernel and the scalar one (`scalar`, and where the processor has no AVX2) give the same bits.
    static func exactNearest(_ base: [Float], dimension: Int, queries: [Float], k: Int, scalar: Bool = false) -> (scores: [Float], rows: [Int64]) {
        exactNearest(packed: pack(base, dimension: dimension), count: base.count / dimension, dimension: dimension, queries: queries, k: k, scalar: scalar)
    }

    static func exactNearest(packed base: [Float], count: Int, dimension: Int, queries: [Float], k: Int, scalar: Bool = false) -> (scores: [Float], rows: [Int64]) {
        let n = queries.count / dimension
        var scores = [Float](repeating: 0, count: n * k), rows = [Int64](repeating: -1, count: n * k)
        vs_exact_search(base, Int64(count), Int32(dimension), queries, Int64(n), Int32(k), scalar ? 1 : 0, &scores, &rows)
        return (scores, rows)
    }

    public func candidates(for query: VectorFingerprint, limit: Int) -> [Candidate] {
        let (scores, rows) = nearest(query)
        guard !rows.isEmpty else { return [] }
        let k = rows.count / query.times.count
        struct Key: Hashable { var reference: Int32; var offset: Int }
        var votes: [Key: (sum: Float, count: Int)] = [:]
        for (i, time) in query.times.enumerated() {
            for slot in (i * k)..<((i + 1) * k) where rows[slot] >= 0 {
                let row = Int(rows[slot]), key = Key(reference: references[row], offset: Int(times[row]) - Int(time))
                let vote = votes[key, default: (0, 0)]
                votes[key] = (vote.sum + scores[slot], vote.count + 1)
            }
        }
        // The best offset of each reference, references by their best summed similarity (then lower reference).
        var best: [Int32: (key: Key, sum: Float, count: Int)] = [:]
        for (key, vote) in votes where best[key.reference].map({ vote.sum > $0.sum || (vote.sum == $0.sum && key.offset < $0.key.offset) }) ?? true {
            best[key.reference] = (key, vote.sum, vote.count)
        }
        return best.values.sorted { $0.sum != $1.sum ? $0.sum > $1.sum : $0.key.reference < $1.key.reference }.prefix(limit)
            .map { Candidate(reference: Int($0.key.reference), offset: Double($0.key.offset) * step, hits: $0.count) }
    }

    /// The segments' floats (unless FAISS alone holds them), their recordings and times, and FAISS's own index.
    public var byteCount: Int { (values.isEmpty ? 0 : times.count * dimension * 4) + times.count * 8 + (approximate?.byteCount ?? 0) }

    public func save(to writer: inout IndexFile.Writer) {
        writer.set("vectors.dimension", Double(dimension))
        writer.set("vectors.step", step)
        (packed ? Self.unpack(values, count: times.count, dimension: dimension) : values).withUnsafeBufferPointer { writer.addBlocks("vectors.values", $0) }
        references.withUnsafeBufferPointer { writer.add("vectors.references", $0) }
        times.withUnsafeBufferPointer { writer.add("vectors.times", $0) }
        if let bytes = approximate?.bytes { writer.add("vectors.faiss", bytes) }
    }

    public mutating func load(from reader: IndexFile.Reader) throws {
        dimension = try reader.integer("vectors.dimension", in: 1...65_536)
        step = try reader.step("vectors.step")
        values = Array(try reader.array("vectors.values", of: Float.self))
        packed = false
        references = Array(try reader.array("vectors.references", of: Int32.self))
        times = Array(try reader.array("vectors.times", of: UInt32.self))
        let faiss = reader.header.sections["vectors.faiss"] != nil
        guard values.count == times.count * dimension || (values.isEmpty && faiss), references.count == times.count,
              references.allSatisfy({ $0 >= 0 && Int($0) < reader.header.references.count }) else {
            throw IndexFileError(path: reader.path, reason: "damaged: the vector sections disagree in length or name a recording it does not hold")
        }
        if faiss, case .faiss(_, let probes) = planned {
            approximate = try FaissIndex(bytes: try reader.bytes("vectors.faiss"), probes: probes, path: reader.path)
        } else if values.isEmpty && !times.isEmpty {
            throw IndexFileError(path: reader.path, reason: "holds its segments as FAISS codes alone, and this run asks for exact search; search it with FAISS")
        }
        packForExactSearch()
    }
}

/// A FAISS index through our C shim (Sources/CVectorSearch), freed with its last reference.
final class FaissIndex: @unchecked Sendable {
    private let handle: OpaquePointer

    init(description: String, dimension: Int, rows: [Float], probes: Int) throws {
        var error = [CChar](repeating: 0, count: 512)
        guard let handle = vs_faiss_build(description, Int32(dimension), rows, Int64(rows.count / dimension), Int32(probes), &error, error.count) else {
            throw VectorSearchError(description: "FAISS \(description): \(message(error))")
        }
        self.handle = handle
    }

    init(bytes: UnsafeRawBufferPointer, probes: Int, path: String) throws {
        var error = [CChar](repeating: 0, count: 512)
        guard let base = bytes.baseAddress,
              let handle = vs_faiss_read(base.assumingMemoryBound(to: UInt8.self), bytes.count, Int32(probes), &error, error.count) else {
            throw IndexFileError(path: path, reason: "damaged: FAISS cannot read its index: \(message(error))")
        }
        self.handle = handle
    }

    deinit { vs_faiss_free(handle) }

    /// Adds rows after those it holds.
    func add(_ rows: [Float]) throws {
        var error = [CChar](repeating: 0, count: 512)
        guard vs_faiss_add(handle, rows, Int64(rows.count / Int(vs_faiss_dimension(handle))), &error, error.count) == 0 else {
            throw VectorSearchError(description: "FAISS add: \(message(error))")
        }
    }

    func search(_ queries: [Float], count: Int, k: Int, scores: inout [Float], rows: inout [Int64]) throws {
        var error = [CChar](repeating: 0, count: 512)
        guard vs_faiss_search(handle, queries, Int64(count), Int32(k), &scores, &rows, &error, error.count) == 0 else {
            throw VectorSearchError(description: "FAISS search: \(message(error))")
        }
    }

    var byteCount: Int { vs_faiss_byte_count(handle) }

    var bytes: Data? {
        var size = 0
        guard let buffer = vs_faiss_write(handle, &size, nil, 0) else { return nil }
        defer { free(buffer) }
        return Data(bytes: buffer, count: size)
    }
}

public struct VectorSearchError: Error, CustomStringConvertible {
    public var description: String
}

extension VectorSearch {
    /// A setting as written: "exact", a FAISS index_factory description, or nil (chosen by size); `probes`
    /// for FAISS (absent: 64). FAISS's own parser judges the description when the index is built.
    public static func parse(_ setting: String?, probes: Int?) -> Result<VectorSearch?, VectorSearchError> {
        guard let setting else { return .success(nil) }
        if setting == "exact" { return .success(.exact) }
        guard setting.hasPrefix("IVF") || setting.hasPrefix("IMI") || setting.hasPrefix("HNSW") || setting.hasPrefix("PQ") || setting.hasPrefix("Flat") else {
            return .failure(VectorSearchError(description: "\"exact\" or a FAISS index_factory description (\"IVF1024,PQ32\", \"IMI2x8,PQ32\", \"HNSW32\"), not \"\(setting)\""))
        }
        return .success(.faiss(description: setting, probes: probes ?? 64))
    }
}

/// How a vector algorithm's segments are matched, with provenance: the vector index's search, the
/// voting neighbours, sequence matching and its threshold.
public struct VectorMatching: Sendable {
    /// NAFP's evaluation keeps the 20 nearest segments of each query segment (our reading of its search code: `k_probe = 20`).
    public static let defaultNeighbours = 20

    public var minimumSimilarity: Double
    public var neighbours: Int?
    public var search: VectorSearch?

    public init(minimumSimilarity: Double, neighbours: Int?, search: VectorSearch?) {
        (self.minimumSimilarity, self.neighbours, self.search) = (minimumSimilarity, neighbours, search)
    }

    /// The parameters, each value from `source` unless it is a default of ours.
    public func parameters(source: String) -> [Parameter] {
        [
            Parameter("search", search.map(\.description) ?? "exact up to \(VectorSearch.exactLimit) segments, FAISS IMI2x8,PQ{dimension / 4} above",
                      source: search == nil ? "our choice: exact where it is fast enough (NAFP §3.4 searches its large database with FAISS IVF-PQ)" : source),
            Parameter("neighbours", neighbours ?? Self.defaultNeighbours, source: (neighbours ?? Self.defaultNeighbours) == Self.defaultNeighbours
                      ? "NAFP's evaluation: the 20 nearest segments per query segment vote for a recording and an offset" : source),
            Parameter("matching", "mean inner product of the query's segments with the reference's at the best offset",
                      source: "NAFP §3.4 (sequence search); the implementation is fpbench's"),
            Parameter("minimumSimilarity", minimumSimilarity, source: source),
        ]
    }
}

/// A C string in a buffer, up to its end.
private func message(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
