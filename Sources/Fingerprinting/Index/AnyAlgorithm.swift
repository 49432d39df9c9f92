import AudioIO
import DSP
import Foundation

/// A fingerprint of any algorithm, as the engine and the CLI pass it around.
public struct AnyFingerprint: Sendable {
    public let algorithm: String
    public let base: any Fingerprint

    public var byteCount: Int { base.byteCount }
    public var duration: Double { base.duration }
    public var subFingerprintCount: Int { base.subFingerprintCount }
}

/// A type-erased algorithm: what the registry lists and the engine runs.
/// Checks input once for every algorithm (sample rate, silence, length) so none can crash on it.
public struct AnyAlgorithm: Sendable {
    public let identifier: String
    public let revision: Int
    public let displayName: String
    public let sampleRate: Double
    public let profile: Profile
    public let minimumDuration: Double
    public let offsetResolution: Double?
    public let rawFigureName: String
    /// What its sub-fingerprints are: 32-bit words, hashes at times, vectors at times, or a kind of its own.
    public let kind: String
    /// What it can do beyond fingerprinting and comparing (`Capabilities`): what its types show and it
    /// declares, and variants when it has parameters to set.
    public var capabilities: Capabilities { settable.isEmpty ? shown : shown.union(.variants) }
    private let shown: Capabilities
    private let fingerprintBody: @Sendable (Audio, FingerprintRole) throws -> any Fingerprint
    private let isMatchBody: @Sendable (Comparison) -> Bool
    private let makeIndexBody: @Sendable () -> any AnyIndexBox
    private let compareBody: @Sendable (any Fingerprint, any Fingerprint) -> Comparison
    private let decodeBody: @Sendable (Data, FingerprintFormat) throws -> any Fingerprint
    private let sliceBody: @Sendable (any Fingerprint, Double, Double) -> (print: any Fingerprint, start: Double)?
    /// The same algorithm with parameters changed (nil: it has none to change, as an external command).
    private let variantBody: (@Sendable ([(name: String, value: String)], String) throws -> AnyAlgorithm)?
    /// A fingerprint made as samples arrive: the algorithm's own stream, or, for one that needs the whole
    /// signal at once, the samples gathered and fingerprinted at the end.
    private let streamBody: @Sendable (FingerprintRole) -> SampleSink

    public init<A: FingerprintAlgorithm>(_ algorithm: A) where A.Index: StoredIndex {
        self.init(algorithm, identifier: algorithm.identifier, variants: nil)
    }

    public init<A: FingerprintAlgorithm & Parameterized>(_ algorithm: A) where A.Index: StoredIndex {
        self.init(algorithm, identifier: algorithm.identifier, variants: Self.varying(algorithm))
        settable = Mirror(reflecting: algorithm.parameters).children.compactMap(\.label)
    }

    /// Variants of `algorithm`, each of which can be varied again (`--set panako@dense.peakBinRadius=40`).
    private static func varying<A: FingerprintAlgorithm & Parameterized>(_ algorithm: A)
        -> @Sendable ([(name: String, value: String)], String) throws -> AnyAlgorithm where A.Index: StoredIndex {
        { values, identifier in
            let changed = A(parameters: try algorithm.parameters.setting(values))
            var variant = AnyAlgorithm(changed, identifier: identifier, variants: varying(changed))
            variant.settable = Mirror(reflecting: changed.parameters).children.compactMap(\.label)
            return variant
        }
    }

    /// The parameter names `--set` takes (none for an external command).
    public private(set) var settable: [String] = []

    private init<A: FingerprintAlgorithm>(_ algorithm: A, identifier: String,
                                          variants: (@Sendable ([(name: String, value: String)], String) throws -> AnyAlgorithm)?) where A.Index: StoredIndex {
        variantBody = variants
        if let framed = algorithm as? any FramedFingerprinting { streamBody = Self.framing(framed) }
        else if let streaming = algorithm as? any StreamingFingerprinting { streamBody = Self.streaming(streaming) } else {
            streamBody = { role in .gathering(at: algorithm.sampleRate) { try algorithm.fingerprint($0, role: role) } }
        }
        self.identifier = identifier
        revision = algorithm.revision
        displayName = algorithm.displayName
        sampleRate = algorithm.sampleRate
        profile = algorithm.profile
        minimumDuration = algorithm.minimumDuration
        offsetResolution = algorithm.offsetResolution
        rawFigureName = algorithm.rawFigureName
        kind = Self.kind(of: A.Print.self)
        shown = Self.capabilities(of: algorithm)
        fingerprintBody = { try algorithm.fingerprint($0, role: $1) }
        isMatchBody = { algorithm.isMatch($0) }
        makeIndexBody = { IndexBox(algorithm.makeIndex()) }
        compareBody = { query, reference in
            algorithm.compare(query: query as! A.Print, reference: reference as! A.Print)
        }
        decodeBody = { data, format in
            switch format {
            case .json: return try JSONDecoder().decode(A.Print.self, from: data)
            case .compact: return try CompactCoding.decode(A.Print.self, from: data)
            }
        }
        sliceBody = { print, start, duration in
            (print as! A.Print).slice(from: start, duration: duration).map { ($0.print, $0.start) }
        }
    }

    /// The three kinds an external algorithm can be, named by the fingerprint's type; any other is its own.
    private static func kind(of print: any Fingerprint.Type) -> String {
        if print is any WordFingerprint.Type { return "words (32-bit)" }
        if print == HashFingerprint.self { return "hashes at times" }
        if print == VectorFingerprint.self { return "vectors at times" }
        return "its own (\(print))"
    }

    /// What `algorithm`'s types show it can do, and what it declares.
    private static func capabilities<A: FingerprintAlgorithm>(of algorithm: A) -> Capabilities {
        let index = algorithm.makeIndex()
        var found = algorithm.declaredCapabilities
        if index.isIndexed { found.insert(.indexed) }
        if index is any PostingsHolder { found.insert(.sliceable) }
        if A.Print.self is any KeyedFingerprint.Type || A.Print.self == VectorFingerprint.self { found.insert(.scalable) }
        if algorithm is any StreamingFingerprinting { found.insert(.streaming) }
        return found
    }

    /// This algorithm with `values` changed, named `identifier` ("constellation@fanOut=5").
    public func variant(_ values: [(name: String, value: String)], identifier: String) throws -> AnyAlgorithm {
        guard let variantBody else { throw VariantError(description: "\(self.identifier) has no parameters to change") }
        return try variantBody(values, identifier)
    }

    /// Fingerprints mono audio at `sampleRate`, refusing silent or too-short input with a clear error.
    public func fingerprint(_ audio: Audio, role: FingerprintRole = .reference) throws -> AnyFingerprint {
        guard audio.sampleRate == sampleRate else {
            throw FingerprintError.wrongSampleRate(got: audio.sampleRate, wanted: sampleRate)
        }
        guard audio.duration >= minimumDuration else {
            throw FingerprintError.tooShort(duration: audio.duration, minimum: minimumDuration)
        }
        guard audio.samples.contains(where: { $0 != 0 }) else { throw FingerprintError.silent }
        let print = try fingerprintBody(audio, role)
        guard print.subFingerprintCount > 0 else { throw FingerprintError.noSubFingerprints(duration: audio.duration) }
        return AnyFingerprint(algorithm: identifier, base: print)
    }

    /// Reads `path` (optionally a window of it) at the algorithm's rate and fingerprints it as it decodes,
    /// holding a bounded window of samples, not the signal (unless the algorithm needs it whole).
    public func fingerprint(file path: String, window: TimeWindow? = nil, role: FingerprintRole = .reference) throws -> AnyFingerprint {
        try Self.fingerprints(file: path, window: window, role: role, algorithms: [self]).results[0].print.get()
    }

    /// Fingerprints one file with several algorithms from a single decoding, resampled once per distinct
    /// rate, every algorithm fed as the file decodes (algorithms whose front ends compute the same rows
    /// share them: `SampleFeed`). Throws when the file cannot be read; an algorithm that cannot fingerprint
    /// it (too short, silent) gets its reason, as for audio in memory.
    /// With a `clock` (CPU seconds of the calling thread), each result carries the time spent in its
    /// algorithm, as if it ran alone, and `shared` the time counted in more than one result (shared rows):
    /// the rest of the call's time is decoding and resampling.
    public static func fingerprints(file path: String, window: TimeWindow? = nil, role: FingerprintRole = .reference,
                                    algorithms: [AnyAlgorithm], clock: (() -> Double)? = nil) throws -> Fingerprints {
        let rates = Array(Set(algorithms.map(\.sampleRate))).sorted()
        return try fingerprints(rates: rates, role: role, algorithms: algorithms, clock: clock) { feed in
            try AudioReader.stream(path, sampleRates: rates, window: window, feed)
        }
    }

    /// Fingerprints audio in memory with several algorithms, each as `fingerprint(_:role:)` would, from `audio`
    /// at each of their rates (algorithms whose front ends compute the same rows share them); `clock` as above.
    public static func fingerprints(_ audio: [Audio], role: FingerprintRole = .reference, algorithms: [AnyAlgorithm],
                                    clock: (() -> Double)? = nil) -> Fingerprints {
        precondition(algorithms.allSatisfy { algorithm in audio.contains { $0.sampleRate == algorithm.sampleRate } }, "audio at every algorithm's rate")
        return fingerprints(rates: audio.map(\.sampleRate), role: role, algorithms: algorithms, clock: clock) { feed in
            for (r, audio) in audio.enumerated() { audio.samples.withUnsafeBufferPointer { feed(r, $0) } }
        }
    }

    /// `algorithms` fed the samples `source` hands out, a block at a time at each of `rates` (by its index).
    private static func fingerprints(rates: [Double], role: FingerprintRole, algorithms: [AnyAlgorithm], clock: (() -> Double)?,
                                     source: ((Int, UnsafeBufferPointer<Float>) -> Void) throws -> Void) rethrows -> Fingerprints {
        let sinks = algorithms.map { $0.streamBody(role) }
        let feeds = rates.map { rate in SampleFeed.feeds(algorithms.indices.filter { algorithms[$0].sampleRate == rate }, sinks: sinks) }
        var samples = rates.map { _ in 0 }, sound = rates.map { _ in false }, time = FeedTime(seconds: algorithms.map { _ in 0.0 })
        try source { r, block in
            samples[r] += block.count
            if !sound[r] { sound[r] = block.contains { $0 != 0 } }
            for feed in feeds[r] { feed.consume(block, sinks: sinks, clock: clock, time: &time) }
        }
        for feed in feeds.joined() { feed.finish(sinks: sinks, clock: clock, time: &time) }
        let results = algorithms.enumerated().map { a, algorithm in
            let r = rates.firstIndex(of: algorithm.sampleRate)!, duration = Double(samples[r]) / algorithm.sampleRate
            let print = Result<AnyFingerprint, Error> {
                // The same refusals as for audio in memory, in the same order.
                guard duration >= algorithm.minimumDuration else { throw FingerprintError.tooShort(duration: duration, minimum: algorithm.minimumDuration) }
                guard sound[r] else { throw FingerprintError.silent }
                let start = clock?()
                defer { if let clock, let start { time.seconds[a] += clock() - start } }
                let print = try sinks[a].finish(duration)
                guard print.subFingerprintCount > 0 else { throw FingerprintError.noSubFingerprints(duration: duration) }
                return AnyFingerprint(algorithm: algorithm.identifier, base: print)
            }
            return (print, time.seconds[a])
        }
        return Fingerprints(results: results, shared: time.shared)
    }

    /// Several algorithms' fingerprints of the same audio (`fingerprints(file:...)`, `fingerprints(_:...)`).
    public struct Fingerprints {
        /// Per algorithm, its fingerprint or why it has none, and its CPU seconds as if it ran alone (with a clock).
        public var results: [(print: Result<AnyFingerprint, Error>, seconds: Double)]
        /// CPU seconds counted in more than one result: the rows algorithms shared, counted once more per algorithm.
        public var shared: Double
    }

    private static func streaming<A: StreamingFingerprinting>(_ algorithm: A) -> @Sendable (FingerprintRole) -> SampleSink {
        { role in
            let stream = algorithm.stream(role: role)
            return SampleSink(consume: stream.consume, finish: stream.finish)
        }
    }

    /// A framed algorithm's sink, whose back end can also take the rows of another algorithm's front end.
    private static func framing<A: FramedFingerprinting>(_ algorithm: A) -> @Sendable (FingerprintRole) -> SampleSink {
        { role in
            let stream = algorithm.stream(role: role)
            return SampleSink(consume: stream.consume, finish: stream.finish, framed: (stream.frames, stream.add))
        }
    }

    public func compare(query: AnyFingerprint, reference: AnyFingerprint) -> Comparison {
        precondition(query.algorithm == identifier && reference.algorithm == identifier,
                     "fingerprints of \(query.algorithm) and \(reference.algorithm) compared by \(identifier)")
        return compareBody(query.base, reference.base)
    }

    public func isMatch(_ comparison: Comparison) -> Bool { isMatchBody(comparison) }

    /// The part of a fingerprint covering [start, start + duration) seconds and where it starts; nil
    /// when the algorithm's fingerprints cannot be cut.
    public func slice(_ fingerprint: AnyFingerprint, from start: Double, duration: Double) -> (print: AnyFingerprint, start: Double)? {
        sliceBody(fingerprint.base, start, duration).map { (AnyFingerprint(algorithm: identifier, base: $0.print), $0.start) }
    }

    func makeIndex() -> any AnyIndexBox { makeIndexBody() }

    /// JSON (as `fpbench fingerprint --output` writes it), or the compact binary form the caches keep.
    public func encode(_ fingerprint: AnyFingerprint, as format: FingerprintFormat = .json) throws -> Data {
        switch format {
        case .json:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return try encoder.encode(fingerprint.base)
        case .compact: return try CompactCoding.encode(fingerprint.base)
        }
    }

    public func decode(_ data: Data, as format: FingerprintFormat = .json) throws -> AnyFingerprint {
        AnyFingerprint(algorithm: identifier, base: try decodeBody(data, format))
    }
}

/// How a fingerprint is written: JSON for people and other tools, compact (`CompactCoding`) for caches,
/// where reading it back fast is what matters.
public enum FingerprintFormat: Sendable {
    case json, compact
}

extension AnyAlgorithm: CustomStringConvertible {
    /// Its identifier, as every table names it.
    public var description: String { identifier }
}

/// Where an algorithm's samples go as a file decodes, and what makes its fingerprint at the end.
struct SampleSink {
    let consume: (UnsafeBufferPointer<Float>) -> Void
    /// The fingerprint of everything consumed, `duration` seconds.
    let finish: (_ duration: Double) throws -> any Fingerprint
    /// A framed algorithm's frame stream, and its back end taking one row: fed rows in place of samples, where
    /// another algorithm's front end computes the same rows.
    var framed: (frames: FrameStream, add: (UnsafeBufferPointer<Float>) -> Void)? = nil
}

extension SampleSink {
    /// The sink of an algorithm that needs the whole signal: gathers the samples, fingerprints them at the end.
    static func gathering(at sampleRate: Double, _ make: @escaping (Audio) throws -> any Fingerprint) -> SampleSink {
        final class Gathered { var samples: [Float] = [] }
        let gathered = Gathered()
        return SampleSink(consume: { gathered.samples.append(contentsOf: $0) }) { _ in
            try make(Audio(samples: gathered.samples, sampleRate: sampleRate))
        }
    }
}
