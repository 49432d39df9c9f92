/// One reference's LSH tables: per table, its images' keys sorted, so a query image finds the reference
/// images sharing its key in a table by binary search; one shared in enough tables is a hit.
struct LSHTables {
    /// Per table, (key, image) sorted by key then image.
    private let tables: [[(key: UInt64, image: Int32)]]
    private let imageCount: Int

    init(_ reference: WaveprintFingerprint) {
        imageCount = reference.subFingerprintCount
        tables = (0..<reference.tableCount).map { table in
            (0..<reference.subFingerprintCount).map { (key: reference.key(image: $0, table: table), image: Int32($0)) }
                .sorted { $0.key != $1.key ? $0.key < $1.key : $0.image < $1.image }
        }
    }

    /// Every (query image, reference image) sharing at least `threshold` table keys, with that count.
    func hits(_ query: WaveprintFingerprint, threshold: Int) -> [(queryImage: Int, image: Int, votes: Int)] {
        var result: [(queryImage: Int, image: Int, votes: Int)] = []
        var votes = [Int32](repeating: 0, count: imageCount)
        var touched: [Int] = []
        // Neighbouring query images often repeat a table's key: its range is looked up once.
        var last: [(key: UInt64, range: Range<Int>)?] = Array(repeating: nil, count: tables.count)
        for queryImage in 0..<query.subFingerprintCount {
            for (t, table) in tables.enumerated() {
                let key = query.key(image: queryImage, table: t)
                if last[t]?.key != key {
                    let first = table.lowerBound { $0.key < key }
                    var end = first
                    while end < table.count && table[end].key == key { end += 1 }
                    last[t] = (key, first..<end)
                }
                for i in last[t]!.range {
                    let image = Int(table[i].image)
                    if votes[image] == 0 { touched.append(image) }
                    votes[image] += 1
                }
            }
            for image in touched {
                if votes[image] >= threshold { result.append((queryImage, image, Int(votes[image]))) }
                votes[image] = 0
            }
            touched.removeAll(keepingCapacity: true)
        }
        return result
    }
}

/// Aligns LSH hits by time offset: the offset that gathers the most distinct reference images wins
/// (then the one with the most table votes at exactly that offset); the score is the share of the
/// reference images the query spans at that offset that were hit.
struct AlignedVoteMatcher {
    let parameters: Waveprint.Parameters

    func compare(query: WaveprintFingerprint, reference: WaveprintFingerprint) -> Comparison {
        let hits = LSHTables(reference).hits(query, threshold: parameters.tableVotesThreshold)
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
        return Comparison(score: score, offset: Double(best.offset) * query.step, rawFigure: Double(best.images))
    }
}

/// The catalog index: every (table, key) of every reference image in one inverted file. A query image
/// hits a reference image sharing keys in enough tables; hits vote for (reference, offset), and the
/// references with the most aligned hits are the candidates.
public struct LSHIndex: StoredIndex, PostingsHolder {
    let parameters: Waveprint.Parameters
    var postings = Postings(keyBits: 32)
    /// The global hop of every catalog image (references laid end to end in hops), by global position.
    private var imageHops: [UInt32] = []
    private var hops = ReferenceLayout()
    private var step = 0.0
    /// Keys held by more catalog images than this (silence, steady tones) are skipped at lookup:
    /// they agree with everything. Higher: slower queries, slightly more hits on quiet passages.
    static let commonKeyLimit = 200

    init(parameters: Waveprint.Parameters) { self.parameters = parameters }

    public mutating func add(_ print: WaveprintFingerprint, reference: Int) {
        precondition(reference == postings.referenceCount, "references are added in order")
        let first = postings.addReference(length: print.subFingerprintCount)
        for image in 0..<print.subFingerprintCount {
            for table in 0..<print.tableCount {
                postings.append(key: Self.key(table: table, print.key(image: image, table: table)), position: first + UInt32(image))
            }
        }
        let firstHop = hops.add(length: Int((print.duration / print.step).rounded(.up)) + 1)
        imageHops += print.imageStarts.map { firstHop + $0 }
        step = print.step
    }

    public mutating func seal() { postings.seal() }

    public func candidates(for query: WaveprintFingerprint, limit: Int) -> [Candidate] {
        var votes = OffsetVotes(tolerance: parameters.alignmentTolerance), tally = PositionTally()
        let enough = max(1, parameters.tableVotesThreshold)  // a threshold of 0 or less: every position found votes once
        // Neighbouring query images often repeat a table's key: its entries are looked up once.
        var last = [(key: UInt32, entries: Range<Int>)?](repeating: nil, count: query.tableCount)
        for image in 0..<query.subFingerprintCount {
            // The catalog images sharing a key with this query image, counted once per table that agrees;
            // each found in enough tables votes once (the votes are sorted before they are counted).
            tally.empty()
            for table in 0..<query.tableCount {
                let key = Self.key(table: table, query.key(image: image, table: table))
                if last[table]?.key != key { last[table] = (key, postings.lookUp(key, limit: Self.commonKeyLimit).entries) }
                for entry in last[table]!.entries {
                    let position = postings.position(at: entry)
                    if tally.count(position) == enough {
                        votes.add(globalOffset: Int(imageHops[Int(position)]) - Int(query.imageStarts[image]))
                    }
                }
            }
        }
        return votes.best(limit: limit, locate: hops.locateOffset).map {
            Candidate(reference: $0.reference, offset: Double($0.offset) * step, hits: $0.votes)
        }
    }

    /// A table's 64-bit key folded with the table number into the inverted file's 32-bit key (a rare
    /// collision only proposes a candidate that verification then rejects).
    static func key(table: Int, _ key: UInt64) -> UInt32 {
        var x = key &+ UInt64(table + 1) &* 0x9E37_79B9_7F4A_7C15
        x = (x ^ (x >> 31)) &* 0xBF58_476D_1CE4_E5B9
        return UInt32(truncatingIfNeeded: x ^ (x >> 32))
    }

    public var byteCount: Int { postings.byteCount + imageHops.count * 4 + hops.starts.count * 4 }

    public func save(to writer: inout IndexFile.Writer) {
        postings.save("keys", step: step, to: &writer)
        imageHops.withUnsafeBufferPointer { writer.add("imageHops", $0) }
        hops.starts.withUnsafeBufferPointer { writer.add("hops", $0) }
    }

    public mutating func load(from reader: IndexFile.Reader) throws {
        (postings, step) = try Postings.load(keyBits: 32, "keys", from: reader)
        imageHops = Array(try reader.array("imageHops", of: UInt32.self))
        hops = ReferenceLayout(starts: Array(try reader.array("hops", of: UInt32.self)))
        guard imageHops.count == postings.positionCount, hops.count == postings.referenceCount, hops.isOrdered,
              imageHops.allSatisfy({ $0 < hops.end }) else {
            throw IndexFileError(path: reader.path, reason: "damaged: the images' hops do not fit the postings")
        }
    }
}

/// How many of a query image's tables found each catalog position: an open-addressing table, emptied
/// for the next image by a new stamp instead of cleared, grown when half full.
struct PositionTally {
    /// A position, its count, and the stamp of the tally that counted it, side by side: a probe reads one
    /// cache line, not one in each of three arrays.
    private struct Slot {
        var position: UInt32 = 0
        var stamp: UInt32 = 0
        var count: Int32 = 0
    }

    private var slots = [Slot](repeating: Slot(), count: 1_024)
    private var stamp: UInt32 = 0
    private var held = 0

    mutating func empty() {
        held = 0
        stamp &+= 1
        if stamp == 0 {
            slots = [Slot](repeating: Slot(), count: slots.count)
            stamp = 1
        }
    }

    /// The times `position` has been counted since the tally was emptied, this time included.
    mutating func count(_ position: UInt32, adding added: Int = 1) -> Int {
        if 2 * (held + 1) > slots.count { grow() }
        let stamp = stamp
        let (total, new) = slots.withUnsafeMutableBufferPointer { slots -> (Int, Bool) in
            let mask = slots.count - 1
            var i = Int(truncatingIfNeeded: (UInt64(position) &* 0x9E37_79B9_7F4A_7C15) >> 40) & mask
            while slots[i].stamp == stamp {
                if slots[i].position == position {
                    slots[i].count += Int32(added)
                    return (Int(slots[i].count), false)
                }
                i = (i + 1) & mask
            }
            slots[i] = Slot(position: position, stamp: stamp, count: Int32(added))
            return (added, true)
        }
        if new { held += 1 }
        return total
    }

    private mutating func grow() {
        let old = self
        slots = [Slot](repeating: Slot(), count: 2 * old.slots.count)
        stamp = 1
        held = 0
        for slot in old.slots where slot.stamp == old.stamp { _ = count(slot.position, adding: Int(slot.count)) }
    }
}
