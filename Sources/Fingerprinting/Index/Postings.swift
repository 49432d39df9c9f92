/// References laid end to end on one axis of global positions (sub-fingerprints, frames or hops).
struct ReferenceLayout {
    /// The global position of each reference's first step, and one past the last.
    private(set) var starts: [UInt32] = [0]
    /// The reference holding every 2^`slotShift`-th position (`slots[s]` holds position s << `slotShift`), so
    /// that `locate` steps from there instead of searching every start (4 bytes per 1,024 positions; empty
    /// for a layout whose starts go back, which `locate` then searches).
    private var slots: [UInt32] = []
    static let slotShift: UInt32 = 10

    init() {}
    init(starts: [UInt32]) {
        self.starts = starts.isEmpty ? [0] : starts
        if isOrdered { for reference in 0..<count { fillSlots(reference) } }
    }

    /// Reserves `length` positions for the next reference; returns the first.
    mutating func add(length: Int) -> UInt32 {
        let first = starts.last!
        precondition(UInt64(first) + UInt64(length) < UInt64(UInt32.max), "catalog too large for 32-bit positions")
        starts.append(first + UInt32(length))
        fillSlots(count - 1)
        return first
    }

    /// The slots whose position `reference` holds.
    private mutating func fillSlots(_ reference: Int) {
        while UInt64(slots.count) << Self.slotShift < UInt64(starts[reference + 1]) { slots.append(UInt32(reference)) }
    }

    var count: Int { starts.count - 1 }
    /// One past the last global position.
    var end: UInt32 { starts.last! }
    /// Starts at 0 and never goes back (a layout read from a file is checked with this).
    var isOrdered: Bool { starts.first == 0 && zip(starts, starts.dropFirst()).allSatisfy { $0 <= $1 } }

    /// The reference holding a global position, and the position within it (past the end: the last reference).
    func locate(_ position: UInt32) -> (reference: Int, local: Int) {
        let slot = Int(position >> Self.slotShift)
        guard slot < slots.count else { return search(position) }
        return starts.withUnsafeBufferPointer { starts in
            var reference = Int(slots[slot])
            while reference + 1 < starts.count - 1 && starts[reference + 1] <= position { reference += 1 }
            return (reference, Int(position - starts[reference]))
        }
    }

    /// `locate` by binary search over every start.
    func search(_ position: UInt32) -> (reference: Int, local: Int) {
        var low = 0, high = starts.count - 1
        while high - low > 1 {
            let middle = (low + high) / 2
            if starts[middle] <= position { low = middle } else { high = middle }
        }
        return (low, Int(position - starts[low]))
    }

    /// The reference a global offset (a global position minus a query position) falls in, and the
    /// offset within it; an offset before the catalog's start belongs to the first reference.
    func locateOffset(_ offset: Int) -> (reference: Int, offset: Int)? {
        guard offset < Int(starts.last!) else { return nil }
        let (reference, local) = locate(UInt32(max(0, offset)))
        return (reference, offset < 0 ? offset : local)
    }
}

/// An inverted file for a catalog index: (key, global position) pairs, sorted once by key and looked
/// up by binary search. Eight bytes an entry and no allocation per key, so a catalog of hours stays
/// one array.
struct Postings {
    /// key << 32 | global position, while references are added ...
    private var pending: [UInt64] = []
    /// ... and once sealed: sorted, held by `owner` (the index's own memory, or a mapped index file).
    private var entries = UnsafeBufferPointer<UInt64>(start: nil, count: 0)
    private var owner: AnyObject?
    /// For postings read from an index file: verifies the entries block by block as lookups reach them.
    private var verifier: BlockVerifier?
    private(set) var layout = ReferenceLayout()
    /// Where each bucket of keys (key >> `bucketShift`) starts in `entries`: a binary search runs
    /// within one bucket only. About one bucket per four entries, at most 2^20 (4 MiB).
    private var directory: [UInt32] = []
    private var bucketShift: UInt32 = 0
    private let keyBits: Int
    /// While false, references are laid out but post nothing (a catalog slice's tracks that are neither
    /// its own nor its ghosts: `CatalogSlices`).
    var posting = true
    /// For a catalog slice: how often the whole catalog holds each common key, so that a lookup skips a
    /// key as the whole index does (by its count over every slice, not this one's).
    var wholeCounts: KeyCounts?

    /// `keyBits`: how many low bits of the keys are used (20 for a constellation hash, 32 for a word).
    init(keyBits: Int) { self.keyBits = keyBits }

    /// Reserves `length` global positions for the next reference; returns the first.
    mutating func addReference(length: Int) -> UInt32 { layout.add(length: length) }

    mutating func append(key: UInt32, position: UInt32) { if posting { pending.append(UInt64(key) << 32 | UInt64(position)) } }

    mutating func seal() {
        radixSort(&pending, bits: 64)
        precondition(pending.count < Int(UInt32.max), "too many postings for one index")
        let owned = OwnedBuffer(pending)
        pending = []
        entries = owned.buffer
        owner = owned
        let bucketBits = min(20, keyBits, max(1, (Int.bitWidth - entries.count.leadingZeroBitCount) - 2))
        bucketShift = UInt32(keyBits - bucketBits)
        directory = [UInt32](repeating: 0, count: (1 << bucketBits) + 1)
        var e = 0
        for bucket in 0...(1 << bucketBits) {
            while e < entries.count && Int(UInt32(entries[e] >> 32) >> bucketShift) < bucket { e += 1 }
            directory[bucket] = UInt32(e)
        }
    }

    /// The entries of `key` (each read by `position(at:)`, in position order) and how many catalog positions
    /// hold it (in a slice, a common key's count is the whole catalog's); no entries when more than `limit` do.
    func lookUp(_ key: UInt32, limit: Int = .max) -> (entries: Range<Int>, count: Int) {
        let whole = wholeCounts?.count(of: key)
        if let whole, whole > limit {
            precondition(limit >= KeyCounts.floor, "a lookup limit below KeyCounts.floor")
            return (0..<0, whole)
        }
        let bucket = Int(key >> bucketShift)
        guard bucket + 1 < directory.count else { return (0..<0, 0) }
        let range = Int(directory[bucket])..<Int(directory[bucket + 1])
        if let verifier, !verifier.verify(elements: range) { return (0..<0, 0) }
        // The entries of the key: from key << 32 up to the next key's, which for the largest key (all 32 bits set,
        // a real Haitsma-Kalker word) is past the end: (key + 1) << 32 would overflow to 0.
        let low = firstNotBelow(UInt64(key) << 32, in: entries, range)
        let high = key == .max ? range.upperBound : firstNotBelow((UInt64(key) + 1) << 32, in: entries, low..<range.upperBound)
        let count = whole ?? high - low
        return (count <= limit ? low..<high : 0..<0, count)
    }

    /// The global position an entry of `lookUp` holds.
    func position(at entry: Int) -> UInt32 { UInt32(truncatingIfNeeded: entries[entry]) }

    /// Calls `body` with each position holding `key` (in position order), unless more than `limit`
    /// do; returns how many do.
    @discardableResult
    func forEachPosition(of key: UInt32, limit: Int = .max, _ body: (UInt32) -> Void) -> Int {
        let (found, count) = lookUp(key, limit: limit)
        for entry in found { body(position(at: entry)) }
        return count
    }

    /// Writes the sealed postings as sections named after `prefix`.
    func save(_ prefix: String, to writer: inout IndexFile.Writer) {
        writer.addBlocks(prefix + ".entries", entries)
        directory.withUnsafeBufferPointer { writer.add(prefix + ".directory", $0) }
        layout.starts.withUnsafeBufferPointer { writer.add(prefix + ".starts", $0) }
        writer.set(prefix + ".bucketShift", Double(bucketShift))
    }

    /// Sealed postings read from an index file: the entries stay in the mapping, paged in and verified
    /// block by block as lookups touch them (a block whose checksum or positions are wrong is damage,
    /// reported by the reader); the directory and the layout are copied and checked now. Every value
    /// that will index memory is checked before use (the checksums guard against damage, these checks
    /// against a file that lies).
    init(keyBits: Int, _ prefix: String, from reader: IndexFile.Reader) throws {
        self.keyBits = keyBits
        func fail(_ what: String) -> Error { IndexFileError(path: reader.path, reason: "damaged: postings \(prefix): \(what)") }
        layout = ReferenceLayout(starts: Array(try reader.array(prefix + ".starts", of: UInt32.self)))
        guard layout.isOrdered else { throw fail("layout out of order") }
        let end = UInt64(layout.end)
        (entries, verifier) = try reader.blocks(prefix + ".entries", of: UInt64.self) { $0.allSatisfy { $0 & 0xFFFF_FFFF < end } }
        owner = reader
        directory = Array(try reader.array(prefix + ".directory", of: UInt32.self))
        bucketShift = UInt32(try reader.integer(prefix + ".bucketShift", in: max(0, keyBits - 20)...(keyBits - 1)))
        guard directory.count == (1 << (keyBits - Int(bucketShift))) + 1 else { throw fail("a directory of \(directory.count) buckets") }
        guard directory.first == 0, Int(directory.last!) == entries.count, zip(directory, directory.dropFirst()).allSatisfy({ $0 <= $1 }) else {
            throw fail("directory out of order")
        }
    }

    /// With the seconds one position stands for, as the hash and word indexes keep them.
    func save(_ prefix: String, step: Double, to writer: inout IndexFile.Writer) {
        save(prefix, to: &writer)
        writer.set(prefix + ".step", step)
    }

    static func load(keyBits: Int, _ prefix: String, from reader: IndexFile.Reader) throws -> (postings: Postings, step: Double) {
        (try Postings(keyBits: keyBits, prefix, from: reader), try reader.step(prefix + ".step"))
    }

    /// How often each key is posted (sealed postings), for a catalog split into slices.
    var keyCounts: KeyCounts {
        var counts: [UInt64] = []
        var i = 0
        while i < entries.count {
            let key = entries[i] >> 32
            var j = i + 1
            while j < entries.count && entries[j] >> 32 == key { j += 1 }
            counts.append(key << 32 | UInt64(j - i))
            i = j
        }
        return KeyCounts(sorted: counts)
    }

    var referenceCount: Int { layout.count }
    var positionCount: Int { Int(layout.end) }
    var byteCount: Int { entries.count * 8 + layout.starts.count * 4 + directory.count * 4 }
}

/// Votes for alignments: each hit votes for a global offset (a catalog position minus the query's
/// position, in sub-fingerprint steps). The votes are sorted once (radix) and counted in runs, so a
/// query costs a pass over its hits, with no hashing; a reference's best offset gathers the votes
/// within ±`tolerance` steps.
struct OffsetVotes {
    /// Global offsets, biased to be non-negative.
    private var offsets: [UInt64] = []
    let tolerance: Int
    static let bias = Int64(1) << 40

    init(tolerance: Int) { self.tolerance = tolerance }

    mutating func add(globalOffset: Int) { offsets.append(UInt64(Int64(globalOffset) + Self.bias)) }

    /// The `limit` best references, most votes first (ties: lower reference), each at its best offset
    /// (ties: the earliest); `locate` maps a global offset to (reference, offset within it), or nil.
    func best(limit: Int, minimumVotes: Int = 1, locate: (Int) -> (reference: Int, offset: Int)?) -> [(reference: Int, offset: Int, votes: Int)] {
        var sorted = offsets
        radixSort(&sorted, bits: 48)
        // Runs of equal offsets: (offset, votes), ascending.
        var runs: [(offset: Int64, votes: Int)] = []
        for value in sorted {
            let offset = Int64(value) - Self.bias
            if let last = runs.last, last.offset == offset { runs[runs.count - 1].votes += 1 } else { runs.append((offset, 1)) }
        }
        // Window sums over ±tolerance by two pointers.
        var perReference: [Int: (offset: Int, votes: Int)] = [:]
        var low = 0, high = 0, window = 0
        for run in runs {
            while high < runs.count && runs[high].offset <= run.offset + Int64(tolerance) { window += runs[high].votes; high += 1 }
            while runs[low].offset < run.offset - Int64(tolerance) { window -= runs[low].votes; low += 1 }
            guard window >= minimumVotes, let (reference, offset) = locate(Int(run.offset)) else { continue }
            if let current = perReference[reference], current.votes >= window { continue }
            perReference[reference] = (offset, window)
        }
        return perReference.map { (reference: $0.key, offset: $0.value.offset, votes: $0.value.votes) }
            .sorted { $0.votes != $1.votes ? $0.votes > $1.votes : $0.reference < $1.reference }
            .prefix(limit).map { $0 }
    }
}

/// The first position of `range` whose entry is not below `target` (the entries sorted), in steps that depend
/// only on the range's length: no branch waits on an entry, so one lookup's memory loads overlap the next one's.
@inline(__always)
func firstNotBelow(_ target: UInt64, in entries: UnsafeBufferPointer<UInt64>, _ range: Range<Int>) -> Int {
    var base = range.lowerBound, count = range.count
    guard count > 0 else { return base }
    while count > 1 {
        let half = count / 2
        base = entries[base + half - 1] < target ? base + half : base
        count -= half
    }
    return entries[base] < target ? base + 1 : base
}

/// 64-bit keys sorted by `radixSort`, for keys made and sorted in one expression (verification's).
func radixSorted(_ keys: consuming [UInt64]) -> [UInt64] {
    radixSort(&keys, bits: 64)
    return keys
}

/// Sorts keys below 2^`bits`: a comparison sort for a few thousand (a query's votes), else an LSD radix
/// sort in passes of 16 bits, every digit counted in one pass over the keys and a pass skipped where
/// every key has the same digit (equal keys are indistinguishable, so any sort gives the same array).
func radixSort(_ values: inout [UInt64], bits: Int) {
    guard values.count > radixSortFloor else { return values.sort() }
    let passes = (bits + 15) / 16, digits = 1 << 16
    var counts = [Int](repeating: 0, count: passes * digits)
    counts.withUnsafeMutableBufferPointer { counts in
        for v in values { for pass in 0..<passes { counts[pass * digits + Int((v >> UInt64(16 * pass)) & 0xFFFF)] += 1 } }
    }
    var buffer = [UInt64](repeating: 0, count: values.count)
    for pass in 0..<passes {
        let shift = UInt64(16 * pass), base = pass * digits
        if counts[base + Int(values[0] >> shift & 0xFFFF)] == values.count { continue }
        values.withUnsafeBufferPointer { values in
            buffer.withUnsafeMutableBufferPointer { buffer in
                counts.withUnsafeMutableBufferPointer { counts in
                    var total = 0
                    for i in base..<(base + digits) { let c = counts[i]; counts[i] = total; total += c }
                    for v in values {
                        let digit = base + Int((v >> shift) & 0xFFFF)
                        buffer[counts[digit]] = v
                        counts[digit] += 1
                    }
                }
            }
        }
        swap(&values, &buffer)
    }
}

/// Below this many keys `radixSort` compares: clearing its 65,536 counts would cost more.
let radixSortFloor = 4_096

/// Sorted postings the index owns (a copy out of the array it was built in, freed with the index).
final class OwnedBuffer: @unchecked Sendable {
    let buffer: UnsafeBufferPointer<UInt64>
    init(_ values: [UInt64]) {
        let memory = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: values.count)
        _ = memory.initialize(from: values)
        buffer = UnsafeBufferPointer(memory)
    }
    deinit { buffer.deallocate() }
}

/// Keys with how often a catalog posts them (key << 32 | count, sorted by key): each slice's complete
/// counts (`Postings.keyCounts`) are summed by `whole(_:)` into the whole catalog's common keys.
public struct KeyCounts: Sendable, Codable, Equatable {
    /// Only keys posted more often than this are kept in the whole catalog's table: every index's lookup
    /// limit is at least this (20 is the least a variant may set; panako@dense 60; 200: constellation, Panako,
    /// the quads, Waveprint; 500: Haitsma-Kalker), so a key not in the table is never skipped, in a slice as in the whole.
    public static let floor = 20

    /// Why a lookup limit (`commonHashLimit`) cannot be used: below `floor`, nil otherwise.
    static func limitProblem(_ limit: Int) -> String? {
        limit < floor ? "commonHashLimit must be at least \(floor) (catalog slices count keys from there)" : nil
    }

    var sorted: [UInt64]

    /// The whole catalog's common keys: the slices' counts summed, those above `floor` kept.
    public static func whole(_ slices: [KeyCounts]) -> KeyCounts {
        func buffers(_ rest: ArraySlice<KeyCounts>, _ held: [UnsafeBufferPointer<UInt64>]) -> KeyCounts {
            guard let first = rest.first else { return whole(sorted: held) }
            return first.sorted.withUnsafeBufferPointer { buffers(rest.dropFirst(), held + [$0]) }
        }
        return buffers(slices[...], [])
    }

    /// The same from each slice's counts as sorted runs (mapped from key-count files): merged in one pass,
    /// so only the common keys are held, not every slice's table.
    static func whole(sorted runs: [UnsafeBufferPointer<UInt64>]) -> KeyCounts {
        // A min-heap of (key, run) over the runs' next entries.
        var next = runs.map { _ in 0 }, heap: [(key: UInt64, run: Int)] = []
        func push(_ item: (key: UInt64, run: Int)) {
            heap.append(item)
            var i = heap.count - 1
            while i > 0 && heap[(i - 1) / 2].key > heap[i].key { heap.swapAt(i, (i - 1) / 2); i = (i - 1) / 2 }
        }
        func pop() -> (key: UInt64, run: Int) {
            let top = heap[0]
            heap[0] = heap[heap.count - 1]
            heap.removeLast()
            var i = 0
            while true {
                let l = 2 * i + 1, r = l + 1
                var m = i
                if l < heap.count && heap[l].key < heap[m].key { m = l }
                if r < heap.count && heap[r].key < heap[m].key { m = r }
                if m == i { return top }
                heap.swapAt(i, m)
                i = m
            }
        }
        for (r, run) in runs.enumerated() where !run.isEmpty { push((run[0] >> 32, r)) }
        var summed: [UInt64] = [], key: UInt64 = 0, count: UInt64 = 0
        while !heap.isEmpty {
            let (k, r) = pop()
            if k != key || count == 0 {
                if count > UInt64(floor) { summed.append(key << 32 | count) }
                key = k
                count = 0
            }
            count += runs[r][next[r]] & 0xFFFF_FFFF
            next[r] += 1
            if next[r] < runs[r].count { push((runs[r][next[r]] >> 32, r)) }
        }
        if count > UInt64(floor) { summed.append(key << 32 | count) }
        return KeyCounts(sorted: summed)
    }

    /// How often the catalog posts `key`, if the table holds it.
    func count(of key: UInt32) -> Int? {
        let i = sorted.lowerBound { $0 < UInt64(key) << 32 }
        guard i < sorted.count, sorted[i] >> 32 == UInt64(key) else { return nil }
        return Int(sorted[i] & 0xFFFF_FFFF)
    }

    public var count: Int { sorted.count }
}
