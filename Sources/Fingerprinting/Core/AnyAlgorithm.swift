import AudioIO
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
    private let fingerprintBody: @Sendable (Audio, FingerprintRole) throws -> any Fingerprint
    private let isMatchBody: @Sendable (Comparison) -> Bool
    private let makeIndexBody: @Sendable () -> any AnyIndexBox
    private let compareBody: @Sendable (any Fingerprint, any Fingerprint) -> Comparison
    private let decodeBody: @Sendable (Data, FingerprintFormat) throws -> any Fingerprint
    private let sliceBody: @Sendable (any Fingerprint, Double, Double) -> (print: any Fingerprint, start: Double)?
    /// The same algorithm with parameters changed (nil: it has none to change, as an external command).
    private let variantBody: (@Sendable ([(name: String, value: String)], String) throws -> AnyAlgorithm)?
    /// A file fingerprinted as it decodes (nil: the algorithm needs the whole signal at once).
    private let streamBody: (@Sendable (String, TimeWindow?, FingerprintRole) throws -> (print: any Fingerprint, samples: Int, sound: Bool))?

    public init<A: FingerprintAlgorithm>(_ algorithm: A) {
        self.init(algorithm, identifier: algorithm.identifier, variants: nil)
    }

    public init<A: FingerprintAlgorithm & Parameterized>(_ algorithm: A) {
        self.init(algorithm, identifier: algorithm.identifier, variants: { values, identifier in
            AnyAlgorithm(A(parameters: try algorithm.parameters.setting(values)), identifier: identifier, variants: nil)
        })
        settable = Mirror(reflecting: algorithm.parameters).children.compactMap(\.label)
    }

    /// The parameter names `--set` takes (none for an external command).
    public private(set) var settable: [String] = []

    private init<A: FingerprintAlgorithm>(_ algorithm: A, identifier: String,
                                          variants: (@Sendable ([(name: String, value: String)], String) throws -> AnyAlgorithm)?) {
        variantBody = variants
        if let streaming = algorithm as? any StreamingFingerprinting { streamBody = Self.streaming(streaming) } else { streamBody = nil }
        self.identifier = identifier
        revision = algorithm.revision
        displayName = algorithm.displayName
        sampleRate = algorithm.sampleRate
        profile = algorithm.profile
        minimumDuration = algorithm.minimumDuration
        offsetResolution = algorithm.offsetResolution
        rawFigureName = algorithm.rawFigureName
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

    /// Reads `path` (optionally a window of it) at the algorithm's rate and fingerprints it; a streaming
    /// algorithm does it as the file decodes, holding a bounded window of samples, not the signal.
    public func fingerprint(file path: String, window: TimeWindow? = nil, role: FingerprintRole = .reference) throws -> AnyFingerprint {
        guard let streamBody else { return try fingerprint(AudioReader.read(path, sampleRate: sampleRate, window: window), role: role) }
        let (print, samples, sound) = try streamBody(path, window, role)
        // The same refusals as for audio in memory, in the same order.
        guard Double(samples) / sampleRate >= minimumDuration else {
            throw FingerprintError.tooShort(duration: Double(samples) / sampleRate, minimum: minimumDuration)
        }
        guard sound else { throw FingerprintError.silent }
        guard print.subFingerprintCount > 0 else { throw FingerprintError.noSubFingerprints(duration: Double(samples) / sampleRate) }
        return AnyFingerprint(algorithm: identifier, base: print)
    }

    private static func streaming<A: StreamingFingerprinting>(_ algorithm: A) -> @Sendable (String, TimeWindow?, FingerprintRole) throws -> (print: any Fingerprint, samples: Int, sound: Bool) {
        { path, window, role in
            let stream = algorithm.stream(role: role)
            var samples = 0, sound = false
            try AudioReader.stream(path, sampleRate: algorithm.sampleRate, window: window) { block in
                samples += block.count
                if !sound { sound = block.contains { $0 != 0 } }
                stream.consume(block)
            }
            return (stream.finish(duration: Double(samples) / algorithm.sampleRate), samples, sound)
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
