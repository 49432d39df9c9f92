import AudioIO
import Fingerprinting
import Foundation

/// An outside fingerprinting system, as its system file describes it (`Systems/NAME/NAME.json`, schema
/// `Schemas/system.schema.json`): how to tell it is installed, how it indexes a catalog and answers
/// queries, how to read its answers, which audio it takes, and its parameters with their sources. The
/// benchmark runs it beside the built-in algorithms (`fpbench benchmark --system FILE`); docs/systems.md,
/// "Adding a system", walks through one.
///
/// Commands are argument lists with placeholders: `{state}` (a folder the system owns: its index lives
/// there), `{catalogList}` (a file listing the catalog's audio, one absolute path a line), `{query}` (one
/// query file), `{queryList}` (a file listing this call's query files), `{queries}` (the query files as
/// separate arguments), `{systemFolder}` (the folder of the system file, for a wrapper shipped beside it),
/// and `{NAME}` for each of its `settings` (the value chosen with `--set SYSTEM.NAME=VALUE`, else its default).
public struct SystemDescription: Sendable, Codable, Equatable {
    public static let schemaName = "fpbench-system/1"

    public var schema: String
    public var identifier: String
    public var displayName: String
    /// The works to cite for it, by their keys in `Citation.all` (references.bib); a run's LaTeX tables cite them.
    public var cites: [String]?
    /// How to install it, said when it is missing.
    public var install: String
    public var version: VersionCheck
    public var audio: AcceptedAudio
    public var index: Step
    public var query: QueryStep
    public var answers: AnswerFormat
    /// Variables set for every command (placeholders allowed), e.g. `"HOME": "{state}"`.
    public var environment: [String: String]?
    public var parameters: [Parameter]
    /// What a user may change (`--set SYSTEM.NAME=VALUE`, `fpbench sweep operating`), each with its documented default.
    public var settings: [Setting]?
    /// Settings the system's own documentation gives for a use (Olaf's over-the-air setting), each run as
    /// `--system FILE@NAME` and named `SYSTEM@NAME` in every table.
    public var variants: [Variant]?
    /// The shortest query the system answers by its own design (Panako's release: a match must span 5 s),
    /// with where it says so: shorter queries are not asked, and their cells read "not supported".
    public var shortestQuery: ShortestQuery?
    /// The system's analysis hop in seconds at its default settings, as its documentation gives it: the grid
    /// `fpbench sweep skew` puts query starts on.
    public var frameHopSeconds: Double?

    /// A number the system takes on its command line or in its configuration, placed by `{name}`.
    public struct Setting: Sendable, Codable, Equatable {
        public var name: String
        public var `default`: Double
        public var minimum: Double
        public var maximum: Double
        /// Whole numbers only.
        public var integer: Bool
        /// Where the default comes from, and what the setting does.
        public var source: String

        /// The value as the system is given it.
        public func text(_ value: Double) -> String { exactText(value) }

        /// The value `text` asks for, or why it cannot be used.
        public func value(_ text: String) -> Result<Double, SystemError> {
            let fail = { (why: String) in Result<Double, SystemError>.failure(SystemError(system: name, reason: why)) }
            guard let value = Double(text), value.isFinite else { return fail("'\(text)' is not a number") }
            guard value >= minimum, value <= maximum else { return fail("\(text) is outside \(self.text(minimum))-\(self.text(maximum))") }
            guard !integer || value == value.rounded() else { return fail("takes whole numbers, not \(text)") }
            guard !integer || abs(value) < 1e15 else { return fail("takes whole numbers below 10^15, not \(text)") }
            return .success(value)
        }
    }

    public struct ShortestQuery: Sendable, Codable, Equatable {
        public var seconds: Double
        /// Where the system documents it (or the code that imposes it).
        public var source: String
    }

    /// Named values of some settings, with where the system documents them.
    public struct Variant: Sendable, Codable, Equatable {
        public var name: String
        public var settings: [String: Double]
        public var source: String
    }

    /// Placeholders fpbench fills itself: no setting may take their names.
    static let reservedPlaceholders: Set<String> = ["state", "catalogList", "query", "queryList", "queries", "systemFolder"]

    /// A command whose output (standard output and error together) must match `pattern`; its first
    /// group is the version recorded with every result.
    public struct VersionCheck: Sendable, Codable, Equatable {
        public var command: [String]
        public var pattern: String
    }

    /// The audio the system is given: queries are written as mono 16-bit WAV at `sampleRate`; a catalog
    /// track whose extension is not in `formats` (lower case, no dot) is converted likewise before indexing.
    public struct AcceptedAudio: Sendable, Codable, Equatable {
        public var sampleRate: Double
        public var formats: [String]
    }

    public struct Step: Sendable, Codable, Equatable {
        public var command: [String]
        /// Wall-clock limit, in seconds per hour of catalog audio (at least a minute in all).
        public var timeoutSecondsPerHour: Double
    }

    public struct QueryStep: Sendable, Codable, Equatable {
        public var command: [String]
        /// Queries per call (1 when the command takes `{query}`; more with `{queries}` or `{queryList}`,
        /// for systems with a high start-up cost).
        public var batch: Int
        /// Wall-clock limit of a call of n queries: this (start-up, loading the index) + n × `timeoutSecondsPerQuery`.
        public var timeoutSecondsPerCall: Double
        public var timeoutSecondsPerQuery: Double
    }

    /// Reads a system file, naming the field that is wrong.
    public static func load(_ path: String) throws -> SystemDescription {
        guard let data = RegularFile.contents(path) else { throw SystemError(system: path, reason: "no such system file") }
        let description: SystemDescription
        do { description = try decodeStrictly(SystemDescription.self, from: data) } catch let error as StrictDecodingError {
            throw SystemError(system: path, reason: "broken system file: \(error.reason)")
        }
        if let problem = description.problem { throw SystemError(system: path, reason: problem) }
        return description
    }

    /// What is wrong with the description, if anything (checked on load).
    public var problem: String? {
        let single = query.command.contains("{query}"), many = query.command.contains { $0.contains("{queries}") || $0.contains("{queryList}") }
        if schema != Self.schemaName { return "schema is '\(schema)'; this fpbench reads '\(Self.schemaName)'" }
        if identifier.isEmpty || identifier.contains(where: { !($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) {
            return "identifier: letters, digits, - and _ only"
        }
        if version.command.isEmpty || index.command.isEmpty || query.command.isEmpty { return "version, index and query each need a command" }
        if (try? NSRegularExpression(pattern: version.pattern)) == nil { return "version.pattern is not a regular expression" }
        if !index.command.contains(where: { $0.contains("{catalogList}") }) { return "index.command must contain {catalogList}" }
        if single == many { return "query.command takes either {query} or {queries}/{queryList}" }
        if single && query.batch != 1 { return "query.batch must be 1 when the command takes {query}" }
        if !(1...10_000).contains(query.batch) { return "query.batch: 1 to 10,000" }
        if !(audio.sampleRate >= 4000 && audio.sampleRate <= 192_000) { return "audio.sampleRate: 4,000 to 192,000 Hz" }
        if !(index.timeoutSecondsPerHour > 0) || !(query.timeoutSecondsPerCall > 0) || !(query.timeoutSecondsPerQuery > 0) { return "timeouts must be above 0" }
        if let hop = frameHopSeconds, !(hop > 0 && hop <= 10) { return "frameHopSeconds: above 0 and at most 10" }
        if let shortest = shortestQuery?.seconds, !(shortest > 0 && shortest <= 600) { return "shortestQuery.seconds: above 0 and at most 600" }
        if let key = (cites ?? []).first(where: { key in !Citation.all.contains { $0.key == key } }) {
            return "cites: no work has the key '\(key)' (the keys: \(Set(Citation.all.map(\.key)).sorted().joined(separator: ", ")))"
        }
        return answers.problem ?? settingsProblem ?? variantsProblem
    }

    var variantsProblem: String? {
        let all = variants ?? [], settings = self.settings ?? []
        if Set(all.map(\.name)).count != all.count { return "variants: two have the same name" }
        for variant in all {
            if variant.name.isEmpty || !variant.name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) {
                return "variants: '\(variant.name)': letters, digits, - and _ only"
            }
            if variant.settings.isEmpty { return "variants: \(variant.name) changes no setting" }
            for (name, value) in variant.settings.sorted(by: { $0.key < $1.key }) {
                guard let setting = settings.first(where: { $0.name == name }) else {
                    return "variants: \(variant.name): no setting '\(name)'" + (settings.isEmpty ? "" : "; the settings: \(settings.map(\.name).joined(separator: ", "))")
                }
                if case .failure(let error) = setting.value(exactText(value)) { return "variants: \(variant.name): \(name): \(error.reason)" }
            }
        }
        return nil
    }

    var settingsProblem: String? {
        let all = settings ?? [], texts = index.command + query.command + (environment.map { Array($0.values) } ?? [])
        if Set(all.map(\.name)).count != all.count { return "settings: two have the same name" }
        let known = Self.reservedPlaceholders.union(all.map(\.name))
        if let unknown = texts.flatMap(Self.placeholders).first(where: { !known.contains($0) }) {
            return "{\(unknown)} is no placeholder: fpbench fills \(Self.reservedPlaceholders.sorted().map { "{\($0)}" }.joined(separator: ", "))"
                + (all.isEmpty ? "" : " and the settings' \(all.map { "{\($0.name)}" }.joined(separator: ", "))")
        }
        for setting in all {
            let name = setting.name
            if name.isEmpty || !name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) { return "settings: '\(name)': letters, digits and _ only" }
            if Self.reservedPlaceholders.contains(name) { return "settings: '\(name)' is a placeholder fpbench fills itself" }
            if !(setting.minimum <= setting.maximum) { return "settings: \(name): minimum above maximum" }
            if case .failure(let error) = setting.value(String(setting.default)) { return "settings: \(name): its default \(error.reason)" }
            if !texts.contains(where: { $0.contains("{\(name)}") }) {
                return "settings: \(name) is used by no command nor environment variable (write {\(name)} where the system takes it)"
            }
        }
        return nil
    }

    /// The command with every placeholder replaced (`{queries}` becomes one argument per file).
    static func expand(_ command: [String], _ values: [String: String], queries: [String] = []) -> [String] {
        command.flatMap { argument -> [String] in
            if argument == "{queries}" { return queries }
            return [fill(argument, values)]
        }
    }

    /// Every `{NAME}` that has a value replaced, in one pass from left to right: a value is never expanded again,
    /// whatever the order of the dictionary.
    static func fill(_ text: String, _ values: [String: String]) -> String {
        var out = "", rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            out += rest[..<open]
            let after = rest[rest.index(after: open)...]
            if let close = after.firstIndex(of: "}"), let value = values[String(after[..<close])] {
                out += value
                rest = after[after.index(after: close)...]
            } else {
                out += "{"
                rest = after
            }
        }
        return out + rest
    }

    /// The names written `{NAME}` (letters, digits and _) in `text`.
    static func placeholders(in text: String) -> [String] {
        text.split(separator: "{", omittingEmptySubsequences: false).dropFirst().compactMap { part in
            guard let close = part.firstIndex(of: "}") else { return nil }
            let name = part[..<close]
            return !name.isEmpty && name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) ? String(name) : nil
        }
    }
}

/// A system that could not be used, or a call that failed, with the reason.
public struct SystemError: Error, CustomStringConvertible {
    public var system: String
    public var reason: String
    public init(system: String, reason: String) {
        self.system = system
        self.reason = reason
    }
    public var description: String { "\(system): \(reason)" }
}
