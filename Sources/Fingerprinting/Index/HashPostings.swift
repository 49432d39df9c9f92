/// The postings of hash fingerprints (constellation's, Panako's index): each hash at its anchor's
/// global frame, with the seconds one frame stands for, saved in index-file sections named `name`.
struct HashPostings {
    var postings: Postings
    private(set) var step = 0.0
    private let keyBits: Int
    private let name: String

    init(keyBits: Int, name: String) {
        postings = Postings(keyBits: keyBits)
        self.keyBits = keyBits
        self.name = name
    }

    /// Adds the next reference (references come in order 0, 1, 2, ...), each hash under the keys
    /// `keys` gives it (itself, unless said).
    mutating func add(_ print: HashFingerprint, reference: Int, keys: ((UInt32, inout [UInt32]) -> Void)? = nil) {
        precondition(reference == postings.referenceCount, "references are added in order")
        let length = max(Int(print.times.last ?? 0) + 1, Int((print.duration / print.step).rounded(.up)))
        let first = postings.addReference(length: length)
        var posted: [UInt32] = []
        for (hash, time) in zip(print.hashes, print.times) {
            guard let keys else { postings.append(key: hash, position: first + time); continue }
            posted.removeAll(keepingCapacity: true)
            keys(hash, &posted)
            for key in posted { postings.append(key: key, position: first + time) }
        }
        step = print.step
    }

    mutating func seal() { postings.seal() }
    var byteCount: Int { postings.byteCount }
    func save(to writer: inout IndexFile.Writer) { postings.save(name, step: step, to: &writer) }
    mutating func load(from reader: IndexFile.Reader) throws { (postings, step) = try Postings.load(keyBits: keyBits, name, from: reader) }
}

/// An index over one `HashPostings` (constellation's, Panako's and the quads'): its size, its slices and
/// its index-file sections are its postings'.
protocol HashPostingsIndex: StoredIndex, PostingsHolder {
    var hashes: HashPostings { get set }
}

extension HashPostingsIndex {
    public mutating func seal() { hashes.seal() }
    public var byteCount: Int { hashes.byteCount }
    var postings: Postings {
        get { hashes.postings }
        set { hashes.postings = newValue }
    }
    public func save(to writer: inout IndexFile.Writer) { hashes.save(to: &writer) }
    public mutating func load(from reader: IndexFile.Reader) throws { try hashes.load(from: reader) }
}
