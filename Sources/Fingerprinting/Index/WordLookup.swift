/// An inverted index of 32-bit words: every word points to the catalog positions (words) holding it.
/// Each query word is looked up (as it is, and with `flippingBits` also with each single bit flipped) and
/// votes for (reference, offset); the references with the most aligned votes are candidates, then
/// verified by bit-error rate at the best alignment (the algorithm's `compare`).
/// - Haitsma & Kalker (2002), §4: single-bit flips, since a degraded sub-fingerprint often differs in one bit.
/// - Chromaprint's words as AcoustID's index looks them up: exact words only (Lukáš Lalinský, acoustid-index).
public struct WordLookup<Print: WordFingerprint>: StoredIndex, PostingsHolder {
    var postings = Postings(keyBits: 32)
    private var step = 0.0
    private let flippingBits: Bool
    /// Words held at more catalog positions than this carry no information (silence, steady tones) and
    /// are skipped at lookup (higher: slower queries, a little more recall on quiet music).
    static var commonWordLimit: Int { 500 }

    public init(flippingBits: Bool) { self.flippingBits = flippingBits }

    public mutating func add(_ print: Print, reference: Int) {
        precondition(reference == postings.referenceCount, "references are added in order")
        let first = postings.addReference(length: print.words.count)
        for (i, word) in print.words.enumerated() { postings.append(key: word, position: first + UInt32(i)) }
        step = print.step
    }

    public mutating func seal() { postings.seal() }

    public func candidates(for query: Print, limit: Int) -> [Candidate] {
        var votes = OffsetVotes(tolerance: 1)
        for (i, word) in query.words.enumerated() {
            for flip in (flippingBits ? 0 : 32)...32 {
                let key = flip == 32 ? word : word ^ (1 << UInt32(flip))
                postings.forEachPosition(of: key, limit: Self.commonWordLimit) { votes.add(globalOffset: Int($0) - i) }
            }
        }
        return votes.best(limit: limit, minimumVotes: 2, locate: postings.layout.locateOffset).map {
            Candidate(reference: $0.reference, offset: Double($0.offset) * step, hits: $0.votes)
        }
    }

    public var byteCount: Int { postings.byteCount }

    public func save(to writer: inout IndexFile.Writer) { postings.save("words", step: step, to: &writer) }
    public mutating func load(from reader: IndexFile.Reader) throws { (postings, step) = try Postings.load(keyBits: 32, "words", from: reader) }
}
