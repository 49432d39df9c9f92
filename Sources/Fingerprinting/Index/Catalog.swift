import Foundation

/// One answer of a catalog search.
public struct Match: Sendable, Equatable {
    public var reference: String
    public var comparison: Comparison

    public init(reference: String, comparison: Comparison) {
        self.reference = reference
        self.comparison = comparison
    }
}

/// References of one algorithm, searchable: add references, then ask for the best matches of a query.
public final class Catalog {
    public let algorithm: AnyAlgorithm
    public private(set) var names: [String] = []
    /// The references' fingerprints: all held in a built catalog; in one read from an index file, each
    /// decoded from the file when a candidate first needs verifying.
    private var prints: [AnyFingerprint?] = []
    private var durations: [Double] = []
    /// Each reference's audio file's SHA-256 ("" where not known).
    public private(set) var checksums: [String] = []
    private var printBytes = 0
    private var file: IndexFile.Reader?
    private let printLock = NSLock()
    let index: any AnyIndexBox
    private var sealed = false
    /// How many of the index's candidates are verified with `compare` (more: slower, fewer misses
    /// where the index ranks the right reference low).
    public var verified = Catalog.defaultVerified
    public static let defaultVerified = 5
    /// Seconds of reference kept on either side of the proposed stretch when verifying (more: slower,
    /// tolerates more time stretch between query and reference).
    public var verifyMargin = 1.0
    /// The "no match" threshold calibrated on negatives, saved with the index (nil: the documented one).
    public var calibration: Calibration?
    /// For one slice of a catalog split across parts (`CatalogSlices`): the references it answers for,
    /// and how many others it posts (ghosts); nil: every reference.
    public private(set) var owned: Range<Int>?
    private var ghosts = 0

    public init(algorithm: AnyAlgorithm) {
        self.algorithm = algorithm
        index = algorithm.makeIndex()
    }

    /// A sealed catalog of `algorithm` holding, in order, every entry that has a fingerprint (one whose
    /// file could not be read or fingerprinted has none and is left out); the one way a run fills a catalog.
    public convenience init(algorithm: AnyAlgorithm, sealing entries: some Sequence<(print: AnyFingerprint?, name: String, checksum: String)>) {
        self.init(algorithm: algorithm)
        for entry in entries { if let print = entry.print { add(print, name: entry.name, checksum: entry.checksum) } }
        seal()
    }

    /// An empty slice of a catalog split across parts (`CatalogSlices`): every track of the catalog is
    /// then added in order with its role, its lookups skipping keys by `whole`, the whole catalog's
    /// common keys (nil for brute force).
    public convenience init(slicing algorithm: AnyAlgorithm, whole: KeyCounts?) {
        self.init(algorithm: algorithm)
        owned = 0..<0
        index.withPostings { $0.wholeCounts = whole }
    }

    /// Adds a reference; `checksum`, its audio file's SHA-256 where known, goes into an index file so
    /// the file can be checked against the catalog it claims to index. `keepingPrint: false` indexes it
    /// without holding its fingerprint, which verification then asks `printSource` for.
    public func add(_ fingerprint: AnyFingerprint, name: String, checksum: String = "", keepingPrint: Bool = true) {
        add(fingerprint, name: name, checksum: checksum, role: .owned, keeping: keepingPrint)
    }

    /// Where the fingerprints of references added without keeping them come from (the synthetic scale
    /// test draws its synthetic tracks again, seeded, rather than hold tens of gigabytes of them).
    public var printSource: (@Sendable (Int) -> AnyFingerprint?)?

    /// A reference's part in a catalog slice (`CatalogSlices`): its own (posted, kept for verification),
    /// a ghost (posted, so votes near the slice's edges are the whole catalog's) or only laid out.
    public enum SliceRole: Sendable { case owned, ghost, laidOut }

    /// Adds the next reference of a slice (`init(slicing:whole:)`) in its role; a slice's own references
    /// are contiguous.
    public func add(_ fingerprint: AnyFingerprint, name: String, checksum: String, role: SliceRole, keeping: Bool = true) {
        precondition(!sealed, "Catalog.add after the first search")
        if let owned {
            if role == .owned {
                precondition(owned.isEmpty || owned.upperBound == names.count, "a slice's own references are contiguous")
                self.owned = (owned.isEmpty ? names.count : owned.lowerBound)..<(names.count + 1)
            }
            if role == .ghost { ghosts += 1 }
        } else {
            precondition(role == .owned, "a whole catalog owns every reference")
        }
        index.withPostings { $0.posting = role != .laidOut }
        index.add(fingerprint.base, reference: prints.count)
        names.append(name)
        checksums.append(checksum)
        let kept = role == .owned && keeping
        prints.append(kept ? fingerprint : nil)
        durations.append(fingerprint.duration)
        if kept { printBytes += fingerprint.byteCount }
    }

    /// Reads a catalog written by `save`: the index's postings stay in the mapped file, fingerprints
    /// are read when verification needs them. The file must come from this algorithm with this profile.
    public init(algorithm: AnyAlgorithm, indexFile path: String) throws {
        let reader = try IndexFile.Reader(path: path)
        let header = reader.header
        func refuse(_ what: String) -> Error { IndexFileError(path: path, reason: "was written for \(what); rebuild it with `fpbench index build`") }
        guard header.algorithm == algorithm.identifier else { throw refuse("\(header.algorithm), not \(algorithm.identifier)") }
        guard header.revision == algorithm.revision else { throw refuse("revision \(header.revision) of \(header.algorithm), not \(algorithm.revision)") }
        guard header.profile == algorithm.profile.key else { throw refuse("other parameters of \(header.algorithm) (\(header.profile))") }
        self.algorithm = algorithm
        index = algorithm.makeIndex()
        try index.load(from: reader)
        names = header.references
        durations = header.durations
        checksums = header.checksums
        calibration = header.calibration
        prints = Array(repeating: nil, count: names.count)
        printBytes = try reader.integer("printBytes", in: 0...(1 << 50))
        file = reader
        sealed = true
    }

    /// Reads every byte of the index file this catalog was read from and checks it: every section's
    /// checksum, every block of the postings with its positions, every fingerprint decoded
    /// (`fpbench index verify`). A catalog built in memory has nothing to verify.
    public func verifyAll() throws {
        guard let file else { return }
        try file.verifyAll()
        for i in names.indices where printLock.withLock({ prints[i] == nil }) { _ = readPrint(i, from: file) }  // decoded to check, not kept
        try file.throwIfDamaged()
    }

    /// Writes the sealed catalog as an index file (see `IndexFile`).
    public func save(to path: String) throws {
        seal()
        var writer = IndexFile.Writer(algorithm: algorithm, references: names, durations: durations, checksums: checksums, calibration: calibration)
        index.save(to: &writer)
        for (i, print) in prints.enumerated() { if let print { writer.add("print.\(i)", try algorithm.encode(print, as: .compact)) } }
        writer.set("printBytes", Double(printBytes))
        try writer.write(to: path)
    }

    /// Reference `i`'s fingerprint (from the index file on first use, verified; nil, and the damage
    /// reported to the file, if it cannot be read).
    private func referencePrint(_ i: Int) -> AnyFingerprint? {
        if let printSource, printLock.withLock({ prints[i] == nil && file == nil }) { return printSource(i) }
        return printLock.withLock {
            if let held = prints[i] { return held }
            guard let file else { return nil }
            prints[i] = readPrint(i, from: file)
            return prints[i]
        }
    }

    /// Reference `i`'s fingerprint decoded from the index file (verified); nil, and the damage reported
    /// to the file, if it cannot be read.
    private func readPrint(_ i: Int, from file: IndexFile.Reader) -> AnyFingerprint? {
        do { return try algorithm.decode(Data(file.bytes("print.\(i)")), as: .compact) } catch {
            file.report(damage: "damaged: the fingerprint of \(names[i]) cannot be read (\(error)); \(file.remedy)")
            return nil
        }
    }

    /// Every reference's fingerprint (read from the index file where needed), in order, for a catalog
    /// that grows (`fpbench index add`): nil where one cannot be read.
    public var fingerprints: [AnyFingerprint?] { names.indices.map(referencePrint) }

    /// Throws the damage a search found in the index file this catalog was read from, if any.
    public func throwIfDamaged() throws { try file?.throwIfDamaged() }

    /// Whether the algorithm brings an index of its own (otherwise every search is brute force).
    public var isIndexed: Bool { index.isIndexed }

    private let sealing = NSLock()

    /// Finishes the index; searching does it on first use (once, whichever thread searches first).
    public func seal() {
        sealing.withLock { if !sealed { index.seal(); sealed = true } }
    }

    /// Matches best first, at most `limit`; empty means "no match" (nothing reached the algorithm's
    /// threshold). `applyingThreshold: false` returns the best comparisons whatever their score (for
    /// calibrating a threshold). `useIndex: false` compares with every whole reference (brute force),
    /// for checking the index. Throws where the index file this catalog was read from turns out damaged
    /// in what the search read (`IndexFileError`, naming the section).
    public func search(_ query: AnyFingerprint, limit: Int = 10, applyingThreshold: Bool = true, useIndex: Bool = true) throws -> [Match] {
        ranked(try verifiedCandidates(query, limit: limit, useIndex: useIndex), limit: limit, applyingThreshold: applyingThreshold)
            .map { Match(reference: names[$0.reference], comparison: $0.comparison) }
    }

    /// A candidate with the index's evidence and its verification.
    public struct VerifiedCandidate: Sendable, Equatable, SliceCandidate {
        public var reference: Int
        public var hits: Int
        public var comparison: Comparison
        public var score: Double { comparison.score }
    }

    /// What a slice of a catalog split across parts passes on for one query, so that the merge
    /// (`CatalogSlices.best`) answers as the whole catalog: its verified candidates (indexed), or its best
    /// `limit` by score (brute force: every reference is verified, so the whole's best are among the
    /// slices' best).
    public func sliceCandidates(_ query: AnyFingerprint, limit: Int) throws -> [VerifiedCandidate] {
        let verified = try verifiedCandidates(query, limit: limit)
        return isIndexed ? verified : ranked(verified, limit: limit, applyingThreshold: false)
    }

    /// The index's best `max(limit, verified)` candidates (every reference for brute force), in the
    /// index's order (most hits first, then lower reference), each verified; a slice's own only.
    public func verifiedCandidates(_ query: AnyFingerprint, limit: Int = 10, useIndex: Bool = true) throws -> [VerifiedCandidate] {
        seal()
        let wanted = max(limit, verified)
        let candidates = useIndex
            ? Array(index.candidates(for: query.base, limit: wanted + ghosts).filter { (owned ?? names.indices).contains($0.reference) }.prefix(index.isIndexed ? wanted : .max))
            : (owned ?? prints.indices).map { Candidate(reference: $0, offset: nil, hits: 0) }
        let checked = candidates.map { VerifiedCandidate(reference: $0.reference, hits: $0.hits, comparison: verify(query, $0)) }
        try file?.throwIfDamaged()
        return checked
    }

    /// Matches from verified candidates: those above the threshold (unless `applyingThreshold` is
    /// false), best score first (then lower reference), at most `limit`.
    func ranked(_ candidates: [VerifiedCandidate], limit: Int, applyingThreshold: Bool) -> [VerifiedCandidate] {
        CatalogSlices.byScore(candidates.filter { !applyingThreshold || algorithm.isMatch($0.comparison) }, limit: limit)
    }

    /// The algorithm's comparison with the stretch of the reference around the candidate's offset
    /// (the whole reference when the index does not align or the fingerprint cannot be cut).
    private func verify(_ query: AnyFingerprint, _ candidate: Candidate) -> Comparison {
        guard let reference = referencePrint(candidate.reference) else { return Comparison(score: 0, offset: 0, rawFigure: 0) }
        guard let offset = candidate.offset,
              let stretch = algorithm.slice(reference, from: offset - verifyMargin, duration: query.duration + 2 * verifyMargin)
        else { return algorithm.compare(query: query, reference: reference) }
        var comparison = algorithm.compare(query: query, reference: stretch.print)
        comparison.offset += stretch.start
        return comparison
    }

    /// Seconds of reference audio held.
    public var duration: Double { durations.reduce(0, +) }
    /// Bytes held: the fingerprints' payload plus the index.
    public var byteCount: Int { printBytes + index.byteCount }
    /// Bytes of the index alone.
    public var indexByteCount: Int { index.byteCount }
}

/// An index over one `Postings` (every index but brute force): what a catalog split into slices sets
/// on it (`CatalogSlices`).
protocol PostingsHolder {
    var postings: Postings { get set }
}

/// A type-erased index, made by `AnyAlgorithm.makeIndex()`.
protocol AnyIndexBox: AnyObject {
    func add(_ print: any Fingerprint, reference: Int)
    func seal()
    func candidates(for print: any Fingerprint, limit: Int) -> [Candidate]
    var byteCount: Int { get }
    var isIndexed: Bool { get }
    func save(to writer: inout IndexFile.Writer)
    func load(from reader: IndexFile.Reader) throws
    /// Its postings, changed in place, for a catalog slice (nothing for brute force).
    func withPostings(_ body: (inout Postings) -> Void)
    var keyCounts: KeyCounts? { get }
}

final class IndexBox<Index: StoredIndex>: AnyIndexBox {
    private var index: Index
    init(_ index: Index) { self.index = index }
    func add(_ print: any Fingerprint, reference: Int) { index.add(print as! Index.Print, reference: reference) }
    func seal() { index.seal() }
    func candidates(for print: any Fingerprint, limit: Int) -> [Candidate] { index.candidates(for: print as! Index.Print, limit: limit) }
    var byteCount: Int { index.byteCount }
    var isIndexed: Bool { index.isIndexed }
    func save(to writer: inout IndexFile.Writer) { index.save(to: &writer) }
    func load(from reader: IndexFile.Reader) throws { try index.load(from: reader) }
    func withPostings(_ body: (inout Postings) -> Void) {
        guard var holder = index as? any PostingsHolder else { return }
        body(&holder.postings)
        index = holder as! Index
    }
    var keyCounts: KeyCounts? { (index as? any PostingsHolder)?.postings.keyCounts }
}
