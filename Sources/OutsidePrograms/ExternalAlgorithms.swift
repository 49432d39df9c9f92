import AudioIO
import Fingerprinting
import Foundation

/// What the three kinds of external algorithm share: their command's configuration.
protocol ExternalKind: FingerprintAlgorithm {
    var command: ExternalCommand { get }
}

extension ExternalKind {
    var configuration: ExternalCommand.Configuration { command.configuration }
    public var identifier: String { configuration.identifier }
    public var displayName: String { configuration.displayName }
    public var sampleRate: Double { configuration.sampleRate }
    public var minimumDuration: Double { configuration.minimumDuration }

    /// The configuration's own parameters, then how it is run.
    func profile(_ own: [Parameter]) -> Profile {
        Profile(configuration.parameters + own + [
            Parameter("command", configuration.command.joined(separator: " "), source: "external configuration"),
            Parameter("mode", configuration.mode == .serve ? "serve: started once, a JSON line per file" : "call: run once per file",
                      source: "external configuration"),
        ])
    }

    /// The command's answer for `audio` decoded as `T`, or an error naming the algorithm and what is wrong.
    func answer<T: Decodable>(_ audio: Audio, role: FingerprintRole, as type: T.Type, shape: String) throws -> T {
        let output = try command.output(for: audio, role: role).output
        guard let value = try? JSONDecoder().decode(T.self, from: output) else {
            let start = String(decoding: output.prefix(80), as: UTF8.self)
            throw command.failure("its output is not \(shape) (NaN and infinities are not JSON): \(start)")
        }
        return value
    }

    /// `seconds` as a count of `step`s, refusing what no recording of `duration` seconds has.
    func steps(_ seconds: Double, step: Double, duration: Double, what: String) throws -> UInt32 {
        guard seconds.isFinite, seconds >= 0, seconds <= duration + step else {
            throw command.failure("\(what) at \(seconds) s, outside the \(String(format: "%.3f", duration)) s of audio it was given")
        }
        return UInt32((seconds / step).rounded())
    }
}

/// Words: a command turns a WAV file into 32-bit words, and a built-in metric compares them
/// (`"output": "words"`, separated by commas or white space, or `"json"`, `{"words": [...]}`).
public struct ExternalAlgorithm: ExternalKind {
    public let command: ExternalCommand

    public init(command: ExternalCommand) { self.command = command }

    /// 2: the time unit is stored as `step` (was frameDuration, hopDuration or imageDuration).
    public var revision: Int { 2 }
    var wordDuration: Double { configuration.wordDuration! }
    var berThreshold: Double { configuration.berThreshold! }
    public var offsetResolution: Double? { wordDuration }
    public var rawFigureName: String { "bit-error rate" }
    public var profile: Profile {
        profile((configuration.search == .words ? [
            Parameter("search", "inverted index of the 32-bit words, exact lookups, offsets voted; candidates verified by BER",
                      source: "AcoustID's index over Chromaprint (Lalinský, acoustid-index); the index is ours"),
        ] : []) + [
            Parameter("compare", "\(configuration.compare!.rawValue) at the best alignment, match below \(berThreshold)",
                      source: "external configuration; the metric is built in"),
        ])
    }

    public func fingerprint(_ audio: Audio, role: FingerprintRole) throws -> ExternalFingerprint {
        let (output, seconds) = try command.output(for: audio, role: role)
        let words = try parse(output)
        try checkCoverage(words: words.count, of: audio.duration)
        return ExternalFingerprint(words: words, step: wordDuration, duration: audio.duration, commandSeconds: seconds)
    }

    public func compare(query: ExternalFingerprint, reference: ExternalFingerprint) -> Comparison {
        bestBitErrorComparison(query: query.words, reference: reference.words, step: wordDuration)
    }

    public func isMatch(_ comparison: Comparison) -> Bool { comparison.rawFigure < berThreshold }

    /// Brute force, or (`"search": "words"`) an inverted index of the words, looked up exactly as AcoustID's
    /// index does (Chromaprint itself has no search); candidates verified by bit-error rate at the best alignment.
    public func makeIndex() -> ExternalIndex {
        configuration.search == .words ? .words(WordLookup(flippingBits: false)) : .bruteForce(BruteForceIndex())
    }

    /// What a command's words may fall short of the audio they were given, beyond 5 %: its first frame and its
    /// filters' context (fpcalc's words cover 7.3 s of 10 s, 281.1 s of 283.9 s, measured).
    static let contextSeconds = 3.0

    /// A fingerprint that covers clearly less than its audio is an error, not a shorter fingerprint: the command
    /// read part of its input (fpcalc without `-length 0` reads the first 120 s).
    func checkCoverage(words: Int, of duration: Double) throws {
        let covered = Double(words) * wordDuration
        guard covered + Self.contextSeconds < 0.95 * duration else { return }
        throw command.failure(String(
            format: "its words cover %.1f s of the %.1f s of audio it was given: the command reads only part of its input "
                + "(fpcalc needs -length 0 to read a whole file; its default is the first 120 s)", covered, duration))
    }

    private func parse(_ data: Data) throws -> [UInt32] {
        if configuration.output == .json {
            struct Words: Decodable { var words: [UInt32] }
            guard let decoded = try? JSONDecoder().decode(Words.self, from: data) else {
                throw command.failure("output is not JSON {\"words\": [...]}")
            }
            return decoded.words
        }
        let text = String(decoding: data, as: UTF8.self)
        let fields = text.split(whereSeparator: { $0 == "," || $0.isWhitespace })
        let words = fields.compactMap { UInt32($0) ?? Int32($0).map { UInt32(bitPattern: $0) } }
        guard words.count == fields.count, !words.isEmpty else {
            throw command.failure("output is not a list of 32-bit words: \(text.prefix(80))")
        }
        return words
    }
}

/// Hashes: a command prints 32-bit hashes at their times (`{"hashes": [[hash, seconds], ...]}`, in time
/// order), searched as constellation's are: an inverted index of the hashes, offsets voted in a histogram,
/// a match with at least `minimumAlignedHashes` time-aligned hashes (Wang 2003 §2.3).
public struct ExternalHashAlgorithm: ExternalKind {
    public let command: ExternalCommand
    public var revision: Int { 1 }
    var step: Double { configuration.step! }
    var minimumAlignedHashes: Int { configuration.minimumAlignedHashes ?? 5 }
    public var offsetResolution: Double? { step }
    public var rawFigureName: String { "time-aligned matching hashes" }
    public var profile: Profile {
        profile([
            Parameter("step", "\(step) s", source: "external configuration: the hashes' times are rounded to it"),
            Parameter("matching", "inverted index of the 32-bit hashes, histogram of time offsets (constellation's index and matcher)",
                      source: "Wang 2003 §2.3; the index and matcher are fpbench's"),
            Parameter("minimumAlignedHashes", minimumAlignedHashes, source: configuration.minimumAlignedHashes == nil
                      ? "audfprint: a match needs at least 5 time-consistent hashes (the default)" : "external configuration"),
        ])
    }

    public func fingerprint(_ audio: Audio, role: FingerprintRole) throws -> HashFingerprint {
        struct Hashes: Decodable { var hashes: [[Double]] }
        let printed = try answer(audio, role: role, as: Hashes.self, shape: "JSON {\"hashes\": [[hash, seconds], ...]}")
        var keys: [UInt64] = [], last = -Double.infinity
        keys.reserveCapacity(printed.hashes.count)
        for (i, pair) in printed.hashes.enumerated() {
            guard pair.count == 2, let hash = UInt32(exactly: pair[0]) else {
                throw command.failure("hash \(i) is not [hash, seconds] with a whole hash of 0 to 4294967295")
            }
            guard pair[1] >= last else { throw command.failure("hash \(i)'s time goes backwards (\(pair[1]) s after \(last) s): hashes come in time order") }
            last = pair[1]
            keys.append(UInt64(try steps(pair[1], step: step, duration: audio.duration, what: "hash \(i)")) << 32 | UInt64(hash))
        }
        return HashFingerprint(keys: keys, step: step, duration: audio.duration)
    }

    public func compare(query: HashFingerprint, reference: HashFingerprint) -> Comparison {
        OffsetHistogramMatcher.compare(query: query, reference: reference)
    }

    public func isMatch(_ comparison: Comparison) -> Bool { comparison.rawFigure >= Double(minimumAlignedHashes) }

    public func makeIndex() -> InvertedHashIndex { InvertedHashIndex(keyBits: 32, commonHashLimit: Constellation.Parameters().commonHashLimit) }
}

/// Vectors: a command prints one embedding per segment (`{"times": [seconds, ...], "vectors": [[...], ...]}`),
/// as the learned fingerprints since NAFP do; they are scaled to unit length and searched by the vector
/// index (exact or FAISS), candidates verified by sequence matching (NAFP §3.4).
public struct ExternalVectorAlgorithm: ExternalKind {
    public let command: ExternalCommand
    let search: VectorSearch?

    init(command: ExternalCommand) throws {
        self.command = command
        search = try VectorSearch.parse(command.configuration.vectorSearch, probes: command.configuration.probes)
            .mapError { command.failure("vectorSearch: \($0)") }.get()
    }

    public var revision: Int { 1 }
    var step: Double { configuration.step! }
    var dimension: Int { configuration.dimension! }
    public var offsetResolution: Double? { step }
    public var rawFigureName: String { "mean similarity of the aligned segments" }
    public var profile: Profile {
        profile([Parameter("step", "\(step) s", source: "external configuration: the segments' hop; times are rounded to it")]
                + VectorMatching(minimumSimilarity: configuration.minimumSimilarity!, neighbours: configuration.neighbours, search: search)
                .parameters(source: "external configuration"))
    }

    public func fingerprint(_ audio: Audio, role: FingerprintRole) throws -> VectorFingerprint {
        struct Vectors: Decodable { var times: [Double]; var vectors: [[Float]] }
        let printed = try answer(audio, role: role, as: Vectors.self, shape: "JSON {\"times\": [...], \"vectors\": [[...], ...]}")
        guard printed.times.count == printed.vectors.count else {
            throw command.failure("\(printed.times.count) times for \(printed.vectors.count) vectors")
        }
        var times: [UInt32] = [], values: [Float] = []
        values.reserveCapacity(printed.vectors.count * dimension)
        for (i, (seconds, vector)) in zip(printed.times, printed.vectors).enumerated() {
            guard vector.count == dimension else { throw command.failure("vector \(i) has \(vector.count) values; its file says dimension \(dimension)") }
            guard vector.allSatisfy(\.isFinite) else { throw command.failure("vector \(i) holds a value that is not a finite number") }
            let time = try steps(seconds, step: step, duration: audio.duration, what: "vector \(i)")
            if let previous = times.last, time <= previous {
                throw command.failure("vector \(i)'s time goes backwards or repeats (\(seconds) s, \(step) s steps): one vector per segment, in time order")
            }
            times.append(time)
            values += vector
        }
        return VectorFingerprint(dimension: dimension, values: VectorFingerprint.normalized(values, dimension: dimension),
                                 times: times, step: step, duration: audio.duration)
    }

    public func compare(query: VectorFingerprint, reference: VectorFingerprint) -> Comparison {
        SequenceMatcher.compare(query: query, reference: reference)
    }

    public func isMatch(_ comparison: Comparison) -> Bool { comparison.rawFigure >= configuration.minimumSimilarity! }

    public func makeIndex() -> VectorIndex { VectorIndex(neighbours: configuration.neighbours ?? VectorMatching.defaultNeighbours, search: search) }
}

/// An external algorithm's catalog index: brute force or its words looked up.
public enum ExternalIndex: StoredIndex {
    case bruteForce(BruteForceIndex<ExternalFingerprint>)
    case words(WordLookup<ExternalFingerprint>)

    public mutating func add(_ print: ExternalFingerprint, reference: Int) {
        switch self {
        case .bruteForce(var index): index.add(print, reference: reference); self = .bruteForce(index)
        case .words(var index): index.add(print, reference: reference); self = .words(index)
        }
    }
    public mutating func seal() {
        if case .words(var index) = self { index.seal(); self = .words(index) }
    }
    public func candidates(for query: ExternalFingerprint, limit: Int) -> [Candidate] {
        switch self {
        case .bruteForce(let index): index.candidates(for: query, limit: limit)
        case .words(let index): index.candidates(for: query, limit: limit)
        }
    }
    public var isIndexed: Bool { if case .words = self { true } else { false } }
    public var byteCount: Int {
        switch self {
        case .bruteForce(let index): index.byteCount
        case .words(let index): index.byteCount
        }
    }
    public func save(to writer: inout IndexFile.Writer) {
        switch self {
        case .bruteForce(let index): index.save(to: &writer)
        case .words(let index): index.save(to: &writer)
        }
    }
    public mutating func load(from reader: IndexFile.Reader) throws {
        switch self {
        case .bruteForce(var index): try index.load(from: reader); self = .bruteForce(index)
        case .words(var index): try index.load(from: reader); self = .words(index)
        }
    }
}

/// The words an external command printed, and how long the command took (start-up included).
public struct ExternalFingerprint: WordFingerprint, Equatable {
    public var words: [UInt32]
    public var step: Double
    public var duration: Double
    /// Wall time of the command, process start-up included.
    public var commandSeconds: Double

    public var subFingerprintCount: Int { words.count }
    public var byteCount: Int { words.count * 4 }
}
