import AudioIO
import Fingerprinting
import Foundation

/// An algorithm defined by a configuration file and a command in any language, of one of three kinds
/// (`output`): 32-bit words compared by bit-error rate, hashes searched by the index and matcher of
/// the built-in hash algorithms, or vectors searched by the vector index. The contract, documented in
/// docs/algorithms.md ("External algorithms"): the command gets a mono 16-bit WAV at `sampleRate` and
/// prints what it makes of it; run once per file (`"mode": "call"`, `{input}` in the command) or started
/// once and asked for file after file (`"mode": "serve"`, a JSON line in, a JSON line out), so a model
/// loads once per run. A failure is that file's, reported with the algorithm and the reason.
public struct ExternalCommand: Sendable {
    public struct Configuration: Sendable, Codable, Equatable {
        public var identifier: String
        public var displayName: String
        public var sampleRate: Double
        public var command: [String]
        public var output: OutputFormat
        /// Words: the metric (only bit-error rate so far).
        public var compare: Metric? = nil
        /// Words: seconds of audio per word, for offsets.
        public var wordDuration: Double? = nil
        public var minimumDuration: Double
        /// Words: a match when the bit-error rate is below this.
        public var berThreshold: Double? = nil
        /// Words: how a catalog is searched (absent: brute force).
        public var search: Search? = nil
        /// How to get the command, shown when it is missing.
        public var install: String
        public var parameters: [Parameter]
        /// Wall-clock seconds one fingerprint may take before the command is killed and named (absent: `defaultTimeoutSeconds`).
        public var timeoutSeconds: Double? = nil
        /// Run per file, or started once (absent: per file).
        public var mode: Mode? = nil
        /// Hashes and vectors: seconds the printed times are rounded to (the hashes' frame, the vectors' segment hop).
        public var step: Double? = nil
        /// Hashes: a match needs at least this many time-aligned hashes (absent: 5, audfprint's).
        public var minimumAlignedHashes: Int? = nil
        /// Vectors: how many floats each has.
        public var dimension: Int? = nil
        /// Vectors: a match when the mean similarity of the aligned segments reaches this.
        public var minimumSimilarity: Double? = nil
        /// Vectors: nearest reference segments per query segment (absent: 20).
        public var neighbours: Int? = nil
        /// Vectors: "exact", or a FAISS index_factory description ("IVF256,PQ32", "HNSW32"); absent: by size.
        public var vectorSearch: String? = nil
        /// Vectors: FAISS lists probed (IVF) or candidates kept (HNSW) (absent: 64).
        public var probes: Int? = nil
    }

    /// What the command prints.
    public enum OutputFormat: String, Sendable, Codable, CaseIterable {
        /// 32-bit words separated by commas or white space.
        case words
        /// `{"words": [...]}`.
        case json
        /// `{"hashes": [[hash, seconds], ...]}`: 32-bit hashes at their times, in time order.
        case hashes
        /// `{"times": [seconds, ...], "vectors": [[float, ...], ...]}`: one vector per time, times increasing.
        case vectors
    }

    /// How the command is run.
    public enum Mode: String, Sendable, Codable {
        /// Once per file, `{input}` replaced by its path; it prints its answer and exits.
        case call
        /// Started once (no `{input}`); reads requests `{"input": PATH, "role": "reference" | "query"}`, a JSON
        /// line each, and answers each with one JSON line: the output's object, or `{"error": "reason"}`.
        case serve
    }

    /// How a catalog of the command's words is searched.
    public enum Search: String, Sendable, Codable {
        /// Every reference compared (the thesis suite's small catalogs).
        case bruteForce = "brute-force"
        /// An inverted index of the 32-bit words, looked up exactly as AcoustID's index looks up Chromaprint's.
        case words
    }

    /// The built-in metrics of words; the only one so far compares 32-bit words by bit-error rate at the best alignment.
    public enum Metric: String, Sendable, Codable {
        case bitErrorRate = "bit-error-rate"
    }

    public let configuration: Configuration
    /// The long-lived processes of a command in `serve` mode, shared by every copy of it.
    let servers: ServerPool

    public init(configuration: Configuration) throws {
        if let problem = Self.problem(configuration) { throw ExternalCommandError(command: configuration.command, reason: problem) }
        self.configuration = configuration
        servers = ServerPool()
    }

    /// Why a configuration cannot run (nil: it can), said for the field that is wrong.
    static func problem(_ c: Configuration) -> String? {
        let serving = c.mode == .serve
        if serving == c.command.contains("{input}") {
            return serving ? "a command in serve mode reads its inputs' paths from standard input: no {input}" : "the command must contain {input}"
        }
        if let limit = c.timeoutSeconds, !(limit > 0 && limit <= 86_400) { return "timeoutSeconds: above 0 and at most 86,400" }
        func absent(_ names: [String], _ values: [Any?]) -> String? {
            let missing = zip(names, values).filter { $0.1 == nil }.map(\.0)
            return missing.isEmpty ? nil : "output \(c.output.rawValue) needs \(missing.joined(separator: ", "))"
        }
        switch c.output {
        case .words, .json:
            if let missing = absent(["compare", "wordDuration", "berThreshold"], [c.compare, c.wordDuration, c.berThreshold]) { return missing }
            if !(c.wordDuration! > 0) { return "wordDuration: above 0" }
        case .hashes:
            if let missing = absent(["step"], [c.step]) { return missing }
            if let count = c.minimumAlignedHashes, !(1...10_000).contains(count) { return "minimumAlignedHashes: 1 to 10,000" }
        case .vectors:
            if let missing = absent(["step", "dimension", "minimumSimilarity"], [c.step, c.dimension, c.minimumSimilarity]) { return missing }
            if !(1...4096).contains(c.dimension!) { return "dimension: 1 to 4,096" }
            if !(-1...1).contains(c.minimumSimilarity!) { return "minimumSimilarity: -1 to 1 (a mean inner product of unit vectors)" }
            if let k = c.neighbours, !(1...1000).contains(k) { return "neighbours: 1 to 1,000" }
            if let probes = c.probes, !(1...65_536).contains(probes) { return "probes: 1 to 65,536" }
        }
        if let step = c.step, !(step >= 0.001 && step <= 60) { return "step: 0.001 to 60 seconds" }
        if c.output != .words, c.output != .json, c.compare != nil || c.wordDuration != nil || c.berThreshold != nil || c.search != nil {
            return "compare, wordDuration, berThreshold and search are for words; output \(c.output.rawValue) does not use them"
        }
        return nil
    }

    /// Reads a configuration file; `{here}` in its command is the file's folder (a script kept beside it).
    public static func load(_ path: String) throws -> ExternalCommand {
        guard let data = RegularFile.contents(path) else {
            throw ExternalCommandError(command: [path], reason: "no such configuration file")
        }
        do {
            var configuration = try decodeStrictly(Configuration.self, from: data)
            let here = URL(fileURLWithPath: path).standardizedFileURL.deletingLastPathComponent().path
            configuration.command = configuration.command.map { $0.replacingOccurrences(of: "{here}", with: here) }
            return try ExternalCommand(configuration: configuration)
        } catch let error as StrictDecodingError {
            throw ExternalCommandError(command: [path], reason: "broken configuration: \(error.reason)")
        }
    }

    /// The algorithm the file defines, of its kind.
    public func algorithm() throws -> AnyAlgorithm {
        switch configuration.output {
        case .words, .json: AnyAlgorithm(ExternalAlgorithm(command: self))
        case .hashes: AnyAlgorithm(ExternalHashAlgorithm(command: self))
        case .vectors: AnyAlgorithm(try ExternalVectorAlgorithm(command: self))
        }
    }

    /// The command's program when it is neither on PATH nor an executable path (nil: it can run). Checked
    /// before a run, so a missing tool is one refusal, not a failure per query.
    public var missingProgram: String? { executablePath(configuration.command[0]) == nil ? configuration.command[0] : nil }

    /// A fingerprint of an hour takes fpcalc well under a second; ten minutes means the command hangs.
    public static let defaultTimeoutSeconds = 600.0
    var timeout: Double { configuration.timeoutSeconds ?? Self.defaultTimeoutSeconds }

    /// What the command prints for `audio`, and its wall time (start-up included in call mode). The command's
    /// CPU time is charged to the calling thread (`ChildCPU`), so an algorithm's costs count it.
    func output(for audio: Audio, role: FingerprintRole) throws -> (output: Data, seconds: Double) {
        let folder = try ScratchFolder.make("external")
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("input.wav").path
        try AudioWriter.write(audio, to: input)
        let started = Date()
        let output = configuration.mode == .serve ? try serve(input, role: role) : try call(configuration.command.map { $0 == "{input}" ? input : $0 })
        return (output, Date().timeIntervalSince(started))
    }

    private func call(_ arguments: [String]) throws -> Data {
        let program = try runnable()
        let child: ChildRun
        do { child = try ChildRun.run(program, Array(arguments.dropFirst()), timeout: timeout, keepErrors: true) } catch {
            throw failure("cannot start: \(error)")
        }
        ChildCPU.charge(child.cpuSeconds)
        guard child.status == 0, !child.timedOut, !child.flooded else {
            throw failure("\(child.ending): \(child.errors.split(separator: "\n").first.map(String.init) ?? "")")
        }
        return child.output
    }

    private func serve(_ input: String, role: FingerprintRole) throws -> Data {
        let program = try runnable()
        let request = try JSONSerialization.data(withJSONObject: ["input": input, "role": role.rawValue], options: [.sortedKeys, .withoutEscapingSlashes])
        let answer: Data
        do { answer = try servers.ask(request, program: program, arguments: Array(configuration.command.dropFirst()), timeout: timeout) } catch let error as ServerError {
            throw failure(error.description)
        }
        if let said = try? JSONSerialization.jsonObject(with: answer) as? [String: Any], said.count == 1, let reason = said["error"] as? String {
            throw failure("it answered with an error: \(reason)")
        }
        return answer
    }

    private func runnable() throws -> String {
        guard let program = executablePath(configuration.command[0]) else {
            throw failure("\(configuration.command[0]) \(notRunnable(configuration.command[0])) (not installed? \(configuration.install))")
        }
        return program
    }

    /// An error naming the algorithm and its command.
    func failure(_ reason: String) -> ExternalCommandError {
        ExternalCommandError(command: configuration.command, reason: reason, algorithm: configuration.identifier)
    }
}

public struct ExternalCommandError: Error, CustomStringConvertible {
    public var command: [String]
    public var reason: String
    /// The algorithm whose command it is, when known.
    public var algorithm: String? = nil
    public var description: String {
        (algorithm.map { "external algorithm \($0), command " } ?? "external command ") + "`\(command.joined(separator: " "))`: \(reason)"
    }
}
