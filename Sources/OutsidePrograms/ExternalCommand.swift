import AudioIO
import Fingerprinting
import Foundation

/// An algorithm defined by a configuration file: a command turns a WAV file into 32-bit words, and a
/// built-in metric compares them. The contract, documented in docs/algorithms.md ("External algorithms"):
/// the command gets a mono 16-bit WAV at `sampleRate` in place of `{input}` and prints the words on
/// standard output, separated by commas or white space (`"output": "words"`), or as JSON
/// `{"words": [...]}` (`"output": "json"`); a non-zero exit is a failure, reported with its stderr.
public struct ExternalAlgorithm: FingerprintAlgorithm {
    public struct Configuration: Sendable, Codable, Equatable {
        public var identifier: String
        public var displayName: String
        public var sampleRate: Double
        public var command: [String]
        public var output: OutputFormat
        public var compare: Metric
        /// Seconds of audio per word, for offsets.
        public var wordDuration: Double
        public var minimumDuration: Double
        /// A match when the bit-error rate is below this.
        public var berThreshold: Double
        /// How a catalog is searched (absent: brute force).
        public var search: Search?
        /// How to get the command, shown when it is missing.
        public var install: String
        public var parameters: [Parameter]
        /// Wall-clock seconds one call may take before it is killed and named (absent: `defaultTimeoutSeconds`).
        public var timeoutSeconds: Double?
    }

    /// How the command prints its words.
    public enum OutputFormat: String, Sendable, Codable {
        /// Separated by commas or white space.
        case words
        /// `{"words": [...]}`.
        case json
    }

    /// How a catalog of the command's fingerprints is searched.
    public enum Search: String, Sendable, Codable {
        /// Every reference compared (the thesis suite's small catalogs).
        case bruteForce = "brute-force"
        /// An inverted index of the 32-bit words, looked up exactly as AcoustID's index looks up Chromaprint's.
        case words
    }

    /// The built-in metrics; the only one so far compares 32-bit words by bit-error rate at the best alignment.
    public enum Metric: String, Sendable, Codable {
        case bitErrorRate = "bit-error-rate"
    }

    public let configuration: Configuration

    public init(configuration: Configuration) throws {
        guard configuration.command.contains("{input}") else {
            throw ExternalCommandError(command: configuration.command, reason: "the command must contain {input}")
        }
        if let limit = configuration.timeoutSeconds, !(limit > 0 && limit <= 86_400) {
            throw ExternalCommandError(command: configuration.command, reason: "timeoutSeconds: above 0 and at most 86,400")
        }
        self.configuration = configuration
    }

    /// Reads a configuration file.
    public static func load(_ path: String) throws -> ExternalAlgorithm {
        guard let data = RegularFile.contents(path) else {
            throw ExternalCommandError(command: [path], reason: "no such configuration file")
        }
        do { return try ExternalAlgorithm(configuration: decodeStrictly(Configuration.self, from: data)) } catch let error as StrictDecodingError {
            throw ExternalCommandError(command: [path], reason: "broken configuration: \(error.reason)")
        }
    }

    public var identifier: String { configuration.identifier }

    /// The command's program when it is neither on PATH nor an executable path (nil: it can run). Checked
    /// before a run, so a missing tool is one refusal, not a failure per query.
    public var missingProgram: String? { executablePath(configuration.command[0]) == nil ? configuration.command[0] : nil }
    /// 2: the time unit is stored as `step` (was frameDuration, hopDuration or imageDuration).
    public var revision: Int { 2 }
    public var displayName: String { configuration.displayName }
    public var sampleRate: Double { configuration.sampleRate }
    public var minimumDuration: Double { configuration.minimumDuration }
    public var offsetResolution: Double? { configuration.wordDuration }
    public var rawFigureName: String { "bit-error rate" }
    public var profile: Profile {
        Profile(configuration.parameters + (configuration.search == .words ? [
            Parameter("search", "inverted index of the 32-bit words, exact lookups, offsets voted; candidates verified by BER",
                      source: "AcoustID's index over Chromaprint (Lalinský, acoustid-index); the index is ours"),
        ] : []) + [
            Parameter("command", configuration.command.joined(separator: " "), source: "external configuration"),
            Parameter("compare", "\(configuration.compare.rawValue) at the best alignment, match below \(configuration.berThreshold)",
                      source: "external configuration; the metric is built in"),
        ])
    }

    public func fingerprint(_ audio: Audio, role: FingerprintRole) throws -> ExternalFingerprint {
        let folder = try ScratchFolder.make("external")
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("input.wav").path
        try AudioWriter.write(audio, to: input)
        let started = Date()
        let stdout = try run(configuration.command.map { $0 == "{input}" ? input : $0 })
        let words = try parse(stdout)
        try checkCoverage(words: words.count, of: audio.duration)
        return ExternalFingerprint(words: words, step: configuration.wordDuration, duration: audio.duration,
                                   commandSeconds: Date().timeIntervalSince(started))
    }

    public func compare(query: ExternalFingerprint, reference: ExternalFingerprint) -> Comparison {
        bestBitErrorComparison(query: query.words, reference: reference.words, step: configuration.wordDuration)
    }

    public func isMatch(_ comparison: Comparison) -> Bool { comparison.rawFigure < configuration.berThreshold }

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
        let covered = Double(words) * configuration.wordDuration
        guard covered + Self.contextSeconds < 0.95 * duration else { return }
        throw ExternalCommandError(command: configuration.command, reason: String(
            format: "its words cover %.1f s of the %.1f s of audio it was given: the command reads only part of its input "
                + "(fpcalc needs -length 0 to read a whole file; its default is the first 120 s)", covered, duration))
    }

    /// A fingerprint of an hour takes fpcalc well under a second; ten minutes means the command hangs.
    public static let defaultTimeoutSeconds = 600.0

    private func run(_ arguments: [String]) throws -> Data {
        guard let program = executablePath(arguments[0]) else {
            throw ExternalCommandError(command: arguments, reason: "\(arguments[0]) \(notRunnable(arguments[0])) (not installed? \(configuration.install))")
        }
        let child: ChildRun
        do { child = try ChildRun.run(program, Array(arguments.dropFirst()),
                                                timeout: configuration.timeoutSeconds ?? Self.defaultTimeoutSeconds, keepErrors: true) } catch {
            throw ExternalCommandError(command: arguments, reason: "cannot start: \(error)")
        }
        guard child.status == 0, !child.timedOut, !child.flooded else {
            let message = child.errors.split(separator: "\n").first.map(String.init) ?? ""
            throw ExternalCommandError(command: arguments, reason: "\(child.ending): \(message)")
        }
        return child.output
    }

    private func parse(_ data: Data) throws -> [UInt32] {
        if configuration.output == .json {
            struct Words: Decodable { var words: [UInt32] }
            guard let decoded = try? JSONDecoder().decode(Words.self, from: data) else {
                throw ExternalCommandError(command: configuration.command, reason: "output is not JSON {\"words\": [...]}")
            }
            return decoded.words
        }
        let text = String(decoding: data, as: UTF8.self)
        let fields = text.split(whereSeparator: { $0 == "," || $0.isWhitespace })
        let words = fields.compactMap { UInt32($0) ?? Int32($0).map { UInt32(bitPattern: $0) } }
        guard words.count == fields.count, !words.isEmpty else {
            throw ExternalCommandError(command: configuration.command, reason: "output is not a list of 32-bit words: \(text.prefix(80))")
        }
        return words
    }
}

/// An external algorithm's catalog index: brute force or its words looked up.
public enum ExternalIndex: FingerprintIndex {
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

public struct ExternalCommandError: Error, CustomStringConvertible {
    public var command: [String]
    public var reason: String
    public var description: String { "external command `\(command.joined(separator: " "))`: \(reason)" }
}
