/// LSH tables: per table, key -> (reference, image). A query image votes for every reference image
/// sharing its key in a table; one shared by enough tables is a hit.
struct LSHTables {
    private var tables: [[UInt64: [(reference: Int32, image: Int32)]]]
    private(set) var entries = 0

    init(tableCount: Int) { tables = Array(repeating: [:], count: tableCount) }

    mutating func add(_ print: WaveprintFingerprint, reference: Int) {
        for image in 0..<print.subFingerprintCount {
            for table in tables.indices {
                tables[table][print.key(image: image, table: table), default: []].append((Int32(reference), Int32(image)))
            }
        }
        entries += print.subFingerprintCount * tables.count
    }

    /// Every (query image, reference, reference image) sharing at least `threshold` table keys, with that count.
    func hits(_ query: WaveprintFingerprint, threshold: Int) -> [(queryImage: Int, reference: Int, image: Int, votes: Int)] {
        var result: [(queryImage: Int, reference: Int, image: Int, votes: Int)] = []
        var votes: [Int64: Int] = [:]
        for queryImage in 0..<query.subFingerprintCount {
            votes.removeAll(keepingCapacity: true)
            for table in tables.indices {
                for entry in tables[table][query.key(image: queryImage, table: table)] ?? [] {
                    votes[Int64(entry.reference) << 32 | Int64(entry.image), default: 0] += 1
                }
            }
            for (packed, count) in votes where count >= threshold {
                result.append((queryImage, Int(packed >> 32), Int(packed & 0xFFFF_FFFF), count))
            }
        }
        return result
    }
}

/// Aligns LSH hits by time offset: the offset that gathers the most distinct reference images wins
/// (then the one with the most table votes at exactly that offset); the score is the share of the
/// reference images the query spans at that offset that were hit.
struct AlignedVoteMatcher {
    let parameters: Waveprint.Parameters

    func compare(query: WaveprintFingerprint, reference: WaveprintFingerprint, tables: LSHTables) -> Comparison {
        let hits = tables.hits(query, threshold: parameters.tableVotesThreshold)
        // Offset in hops of each hit: where the query starts in the reference.
        let offsets = hits.map { (image: $0.image, votes: $0.votes,
                                  offset: Int(reference.imageStarts[$0.image]) - Int(query.imageStarts[$0.queryImage])) }
        var votesAt: [Int: Int] = [:]
        for hit in offsets { votesAt[hit.offset, default: 0] += hit.votes }
        let tolerance = parameters.alignmentTolerance
        var best: (images: Int, votes: Int, offset: Int)?
        for (candidate, votes) in votesAt.sorted(by: { $0.key < $1.key }) {
            let images = Set(offsets.filter { abs($0.offset - candidate) <= tolerance }.map(\.image)).count
            if best == nil || (images, votes) > (best!.images, best!.votes) { best = (images, votes, candidate) }
        }
        guard let best, let lastQueryStart = query.imageStarts.last else { return Comparison(score: 0, offset: 0, rawFigure: 0) }
        // Reference images whose start falls where the query has images.
        let spanned = reference.imageStarts.filter {
            let position = Int($0) - best.offset
            return position >= -tolerance && position <= Int(lastQueryStart) + tolerance
        }.count
        let score = spanned > 0 ? min(1, Double(best.images) / Double(spanned)) : 0
        return Comparison(score: score, offset: Double(best.offset) * query.hopDuration, rawFigure: Double(best.images))
    }
}

/// The catalog index: one set of LSH tables over every reference. Candidates are ranked by their
/// aligned hits; only references with at least one hit are proposed.
public struct LSHIndex: FingerprintIndex {
    let parameters: Waveprint.Parameters
    private var tables: LSHTables

    init(parameters: Waveprint.Parameters) {
        self.parameters = parameters
        tables = LSHTables(tableCount: parameters.tableCount)
    }

    public mutating func add(_ print: WaveprintFingerprint, reference: Int) { tables.add(print, reference: reference) }

    public func candidates(for query: WaveprintFingerprint) -> [Int] {
        var count: [Int: Int] = [:]
        for hit in tables.hits(query, threshold: parameters.tableVotesThreshold) { count[hit.reference, default: 0] += 1 }
        return count.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map(\.key)
    }

    /// An 8-byte key and 8 bytes of (reference, image) per entry.
    public var byteCount: Int { tables.entries * 16 }
}
