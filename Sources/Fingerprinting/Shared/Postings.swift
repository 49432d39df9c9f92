/// An inverted file for a catalog index: (key, position) pairs, with positions global (the references'
/// sub-fingerprints laid end to end), sorted once by key and looked up by binary search. Eight bytes
/// an entry and no allocation per key, so a catalog of hours stays one array.
struct Postings {
    /// key << 32 | global position.
    private var entries: [UInt64] = []
    /// The global position of each reference's first sub-fingerprint, and one past the last.
    private var referenceStarts: [UInt32] = [0]

    /// Reserves `length` global positions for the next reference; returns the first.
    mutating func addReference(length: Int) -> UInt32 {
        let first = referenceStarts.last!
        precondition(UInt64(first) + UInt64(length) < UInt64(UInt32.max), "catalog too large for 32-bit positions")
        referenceStarts.append(first + UInt32(length))
        return first
    }

    mutating func append(key: UInt32, position: UInt32) { entries.append(UInt64(key) << 32 | UInt64(position)) }

    mutating func seal() { entries.sort() }

    /// How many positions hold `key`, and calls `body` with each (the list sorted by position).
    @discardableResult
    func forEachPosition(of key: UInt32, limit: Int = .max, _ body: (UInt32) -> Void) -> Int {
        let low = lowerBound(UInt64(key) << 32), high = lowerBound(UInt64(key) << 32 | 0xFFFF_FFFF + 1)
        guard high - low <= limit else { return high - low }
        for i in low..<high { body(UInt32(truncatingIfNeeded: entries[i])) }
        return high - low
    }

    /// The reference holding a global position, and the position within it.
    func locate(_ position: UInt32) -> (reference: Int, local: Int) {
        var low = 0, high = referenceStarts.count - 1
        while high - low > 1 {
            let middle = (low + high) / 2
            if referenceStarts[middle] <= position { low = middle } else { high = middle }
        }
        return (low, Int(position - referenceStarts[low]))
    }

    var referenceCount: Int { referenceStarts.count - 1 }
    var byteCount: Int { entries.count * 8 + referenceStarts.count * 4 }

    private func lowerBound(_ value: UInt64) -> Int {
        var low = 0, high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

/// Votes for (reference, offset) pairs, where an offset is where the query starts in the reference, in
/// sub-fingerprint steps; the best offset of a reference gathers the votes within ±`tolerance` steps.
struct OffsetVotes {
    private var votes: [Int64: Int32] = [:]
    let tolerance: Int

    init(tolerance: Int) { self.tolerance = tolerance }

    mutating func add(reference: Int, offset: Int, weight: Int32 = 1) {
        votes[Int64(reference) << 32 | Int64(UInt32(bitPattern: Int32(truncatingIfNeeded: offset))), default: 0] += weight
    }

    /// Per reference its best offset and the votes within the tolerance of it; the `limit` best
    /// references, most votes first (ties: lower reference, then earlier offset).
    func best(limit: Int, minimumVotes: Int = 1) -> [(reference: Int, offset: Int, votes: Int)] {
        var perReference: [Int: (offset: Int, votes: Int)] = [:]
        for key in votes.keys {
            let reference = Int(key >> 32), offset = Int(Int32(truncatingIfNeeded: key))
            var total = 0
            for d in -tolerance...tolerance { total += Int(votes[Int64(reference) << 32 | Int64(UInt32(bitPattern: Int32(truncatingIfNeeded: offset + d)))] ?? 0) }
            if total < minimumVotes { continue }
            if let current = perReference[reference], (current.votes, -current.offset) >= (total, -offset) { continue }
            perReference[reference] = (offset, total)
        }
        return perReference.map { (reference: $0.key, offset: $0.value.offset, votes: $0.value.votes) }
            .sorted { $0.votes != $1.votes ? $0.votes > $1.votes : $0.reference < $1.reference }
            .prefix(limit).map { $0 }
    }
}
