import AudioIO
import CFiles
import Foundation

/// An outside system run through its system file: checked, given a catalog to index, asked about query
/// files in batches, each call measured (CPU, wall time, peak memory) by `ChildRun`. Nothing it does can
/// stop the caller: a crash, a hang past its time limit or output that cannot be read becomes a
/// `SystemError` naming the query and the system's last words on standard error.
public struct OutsideSystem: Sendable {
    public let description: SystemDescription
    /// The folder of the system file (`{systemFolder}`).
    public let folder: String
    /// Its name in every table: the system file's identifier, with `@NAME=VALUE,...` for changed settings.
    public private(set) var identifier: String
    /// Every setting's value, as the system is given it (the default unless changed).
    public private(set) var settingValues: [String: String]

    /// The named variant it runs as (`FILE@NAME`), if any.
    public private(set) var variant: SystemDescription.Variant?

    /// The system of a system file, or of one of its named variants: `FILE@NAME`.
    public init(file: String) throws {
        let (path, name) = Self.fileAndVariant(file)
        description = try SystemDescription.load(path)
        folder = URL(fileURLWithPath: path).deletingLastPathComponent().standardizedFileURL.path
        identifier = description.identifier
        settingValues = Dictionary(uniqueKeysWithValues: (description.settings ?? []).map { ($0.name, $0.text($0.default)) })
        guard let name else { return }
        guard let variant = description.variants?.first(where: { $0.name == name }) else {
            let names = (description.variants ?? []).map(\.name)
            throw SystemError(system: path, reason: "no variant '\(name)'" + (names.isEmpty ? ": the file names none" : "; its variants: \(names.joined(separator: ", "))"))
        }
        for (setting, value) in variant.settings { settingValues[setting] = exactText(value) }
        identifier += "@" + name
        self.variant = variant
    }

    /// `FILE@NAME` split in two (a file whose own name holds @ is taken whole).
    static func fileAndVariant(_ text: String) -> (file: String, variant: String?) {
        guard let at = text.lastIndex(of: "@"), !RegularFile.isRegular(text) else { return (text, nil) }
        return (String(text[..<at]), String(text[text.index(after: at)...]))
    }

    /// The system with some settings changed (`--set SYSTEM.NAME=VALUE`), named `SYSTEM@NAME=VALUE,...`
    /// (changes to the default value too, so a sweep names every point alike); its index is kept apart.
    public func variant(_ changes: [(name: String, value: String)]) throws -> OutsideSystem {
        let settings = description.settings ?? []
        var changed = self, names: [String] = []
        for (name, text) in changes {
            guard !names.contains(where: { $0.hasPrefix(name + "=") }) else {
                throw SystemError(system: identifier, reason: "\(name) is set twice")
            }
            guard let setting = settings.first(where: { $0.name == name }) else {
                throw SystemError(system: identifier, reason: settings.isEmpty ? "it declares no settings" :
                                    "no setting '\(name)'; it takes \(settings.map(\.name).joined(separator: ", "))")
            }
            let value = try setting.value(text).mapError { SystemError(system: identifier, reason: "\(name): \($0.reason)") }.get()
            changed.settingValues[name] = setting.text(value)
            names.append("\(name)=\(setting.text(value))")
        }
        changed.identifier = identifier + "@" + names.joined(separator: ",")
        return changed
    }

    /// The settings, one `NAME=VALUE` a line in name order: part of the key of the system's index.
    public var settingsKey: String { settingValues.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "\n") }
    /// fpbench's record of an index, in the system's state folder.
    static let recordName = ".fpbench-index.json"

    /// The version the system prints, or why it cannot run here (with the install line).
    public func installedVersion() -> Result<String, SystemError> {
        let check = description.version
        let fail = { (why: String) in Result<String, SystemError>.failure(SystemError(system: identifier, reason: "\(why); install: \(description.install)")) }
        let command = expand(check.command, [:])
        guard let program = executablePath(command[0]) else { return fail("not installed (\(command[0]) \(notRunnable(command[0])))") }
        guard let run = try? ChildRun.run(program, Array(command.dropFirst()), environment: environment([:]), timeout: 60, keepErrors: true) else {
            return fail("\(command[0]) cannot be started")
        }
        let text = String(decoding: run.output, as: UTF8.self) + run.errors
        let regex = try! NSRegularExpression(pattern: check.pattern)  // checked on load
        guard let m = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) else {
            return fail("`\(command.joined(separator: " "))` did not print its version (\(run.ending)): \(text.prefix(200))")
        }
        return .success(m.numberOfRanges > 1 ? Range(m.range(at: 1), in: text).map { String(text[$0]) } ?? "" : String(text[Range(m.range, in: text)!]))
    }

    // MARK: Indexing

    /// What indexing cost, measured on the system's own processes.
    public struct IndexCosts: Sendable, Codable, Equatable {
        public var audioSeconds: Double
        /// Tracks fpbench converted to WAV first (their decoding is not in these figures).
        public var convertedTracks: Int
        public var cpuSeconds: Double
        public var wallSeconds: Double
        public var peakResidentBytes: Int
        public var bytesOnDisk: Int

        public var audioSecondsPerCPUSecond: Double? { cpuSeconds > 0 ? audioSeconds / cpuSeconds : nil }
        public var mebibytesPerHour: Double { audioSeconds > 0 ? Double(bytesOnDisk) / 1_048_576 / (audioSeconds / 3600) : 0 }
    }

    /// An index as fpbench left it, kept beside it (`.fpbench-index.json`) so a run that reuses it still
    /// reports its costs.
    public struct IndexRecord: Sendable, Codable, Equatable {
        public var version: String
        public var tracks: [String]
        /// The paths the system was given (a converted track's WAV, else the track), as it may print them.
        public var listed: [String]
        public var costs: IndexCosts
    }

    /// The system's index of `tracks` (absolute paths) in `state`: reused when `state/.fpbench-index.json` says it
    /// holds these tracks for this version, else built in a fresh folder moved into place when done (so a
    /// second process, another shard, never sees half an index).
    public func index(tracks: [String], audioSeconds: Double, state: URL, version: String) throws -> (record: IndexRecord, reused: Bool) {
        let recordFile = state.appendingPathComponent(Self.recordName)
        if let data = RegularFile.contents(recordFile.path),
           let record = try? JSONDecoder().decode(IndexRecord.self, from: data), record.tracks == tracks, record.version == version {
            return (record, true)
        }
        let fm = FileManager.default
        Self.removeAbandonedBuilds(of: state)
        let building = state.deletingLastPathComponent().appendingPathComponent(".\(state.lastPathComponent)-\(getpid())-\(UUID().uuidString.prefix(8))")
        try fm.createDirectory(at: building, withIntermediateDirectories: true)
        defer { try? fm.removeItem(at: building) }
        let (listed, converted) = try catalogList(tracks, in: building)
        let values = ["state": building.path, "catalogList": building.appendingPathComponent("catalog.txt").path]
        let command = expand(description.index.command, values)
        let limit = max(60, description.index.timeoutSecondsPerHour * audioSeconds / 3600)
        let run = try start(command, values, timeout: limit)
        guard run.status == 0, !run.timedOut else {
            throw SystemError(system: identifier, reason: "indexing failed (\(run.ending)): \(Self.lastWords(run.errors))")
        }
        try? fm.removeItem(at: building.appendingPathComponent("audio"))  // converted tracks: the index holds what it needs
        let costs = IndexCosts(audioSeconds: audioSeconds, convertedTracks: converted, cpuSeconds: run.cpuSeconds, wallSeconds: run.wallSeconds,
                               peakResidentBytes: run.peakResidentBytes, bytesOnDisk: Self.bytes(in: building))
        let record = IndexRecord(version: version, tracks: tracks, listed: listed, costs: costs)
        try JSONEncoder().encode(record).write(to: building.appendingPathComponent(Self.recordName))
        try Self.putInPlace(building, as: state)
        return (record, false)
    }

    /// `building` becomes `state` in one step: renamed when there is no `state`, else exchanged with it (the
    /// old index is left in `building`, for its caller to remove), so another process (a shard starting at
    /// the same moment) finds the old index or the new, never none.
    static func putInPlace(_ building: URL, as state: URL) throws {
        try FileManager.default.createDirectory(at: state.deletingLastPathComponent(), withIntermediateDirectories: true)
        if rename(building.path, state.path) == 0 || ((errno == ENOTEMPTY || errno == EEXIST) && cfiles_exchange(building.path, state.path) == 0) { return }
        throw SystemError(system: state.lastPathComponent, reason: "its index cannot be put in place: \(String(cString: strerror(errno)))")
    }

    /// Half-built indexes of `state` left by processes that are gone (a run killed while indexing).
    static func removeAbandonedBuilds(of state: URL) {
        let parent = state.deletingLastPathComponent(), prefix = ".\(state.lastPathComponent)-"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: parent.path)) ?? [] where name.hasPrefix(prefix) {
            guard let pid = Int32(name.dropFirst(prefix.count).split(separator: "-").first ?? ""), kill(pid, 0) != 0, errno == ESRCH else { continue }
            try? FileManager.default.removeItem(at: parent.appendingPathComponent(name))
        }
    }

    /// `catalog.txt`: one path a line, each track as it is when the system reads its format, else converted
    /// to a WAV at the system's rate under `audio/`.
    func catalogList(_ tracks: [String], in folder: URL) throws -> (listed: [String], converted: Int) {
        let audio = folder.appendingPathComponent("audio")
        var listed: [String] = [], converted = 0
        if let split = tracks.first(where: { $0.contains(where: \.isNewline) }) {
            throw SystemError(system: identifier, reason: "catalog track \(split.debugDescription) has a line break in its name, which would split "
                              + "{catalogList} (one path a line); rename it")
        }
        for (t, track) in tracks.enumerated() {
            if description.audio.formats.contains(URL(fileURLWithPath: track).pathExtension.lowercased()) { listed.append(track); continue }
            try FileManager.default.createDirectory(at: audio, withIntermediateDirectories: true)
            let wav = audio.appendingPathComponent(String(format: "%05d-", t) + URL(fileURLWithPath: track).deletingPathExtension().lastPathComponent + ".wav").path
            try AudioWriter.write(try AudioReader.read(track, sampleRate: description.audio.sampleRate), to: wav)
            listed.append(wav)
            converted += 1
        }
        try Data(listed.map { $0 + "\n" }.joined().utf8).write(to: folder.appendingPathComponent("catalog.txt"))
        return (listed, converted)
    }

    // MARK: Querying

    /// One call of the query command, measured.
    public struct Call: Sendable, Codable, Equatable {
        public var queries: Int
        public var cpuSeconds: Double
        public var wallSeconds: Double
        public var peakResidentBytes: Int
    }

    /// Every file's answer lines (or why there are none), and the calls made, in batches. When a call
    /// fails (a crash, its time limit, a line that cannot be read), what it printed before is kept, the
    /// first query it said nothing about is asked alone (so a query that fails alone is the one named),
    /// and the rest goes on in a new batch: one bad query costs one more call, and takes no other answer
    /// with it. A call that printed nothing is retried one query at a time. `answered` hears how many
    /// queries each call settled (for progress). `remembering`: answers kept beside the index
    /// (`AnswerMemory`) are taken from there and new ones kept as each batch ends, so an interrupted run
    /// resumes; `remembered` counts the queries not asked again, and what asking them cost when they were
    /// (a call of theirs: those remembered with a cost, their shares of their calls summed, the largest peak).
    public func answer(_ files: [String], state: URL, remembering: Bool = true, answered: (Int) -> Void = { _ in })
        -> (lines: [String: Result<[AnswerFormat.Line], SystemError>], calls: [Call], remembered: (count: Int, cost: Call?)) {
        var lines: [String: Result<[AnswerFormat.Line], SystemError>] = [:], calls: [Call] = []
        let memory = remembering ? AnswerMemory(state: state) : nil
        let keys = memory == nil ? [:] : Dictionary(files.map { ($0, AnswerMemory.key($0)) }, uniquingKeysWith: { first, _ in first })
        var costs: [AnswerMemory.Cost] = []
        for file in files {
            guard let key = keys[file] ?? nil, let known = memory?.answer(key, query: file) else { continue }
            lines[file] = .success(known.lines)
            costs += known.cost.map { [$0] } ?? []
        }
        let remembered = (count: lines.count, cost: AnswerMemory.Cost.call(summing: costs))
        if remembered.count > 0 { answered(remembered.count) }
        var pending = files.filter { lines[$0] == nil }[...]
        while !pending.isEmpty {
            let batch = Array(pending.prefix(description.query.batch))
            var answeredBy: Call?  // the one call that answered the whole batch, whose cost its answers share
            defer {  // whatever this batch settled, kept before the next call (an interruption loses one batch at most)
                memory?.remember(batch.compactMap { file in
                    guard let key = keys[file] ?? nil, case .success(let found)? = lines[file] else { return nil }
                    return (key, found)
                }, call: answeredBy)
            }
            let result = call(batch, state: state)
            calls += result.run.map { [$0] } ?? []
            guard case .failure = result.outcome else {
                answeredBy = result.run
                for file in batch { lines[file] = .success(result.printed[file] ?? []) }
                pending.removeFirst(batch.count)
                answered(batch.count)
                continue
            }
            // Settled: the queries before the first one the call said nothing about. A call that said nothing
            // at all (it hangs or crashes at once) gives nothing to go on: its queries are asked one at a time.
            let silent = batch.firstIndex { result.printed[$0] == nil } ?? batch.count
            for file in batch[..<silent] { lines[file] = .success(result.printed[file]!) }
            let alone = silent == 0 ? batch : silent < batch.count ? [batch[silent]] : []
            for file in alone {
                let single = batch.count == 1 ? result : call([file], state: state)
                if batch.count > 1 { calls += single.run.map { [$0] } ?? [] }
                lines[file] = single.outcome.map { single.printed[file] ?? [] }
            }
            // A call that answered every query and failed after: the answers stand, the failure is not theirs.
            let settled = silent == 0 ? batch.count : min(batch.count, silent + 1)
            pending.removeFirst(settled)
            answered(settled)
        }
        return (lines, calls, remembered)
    }

    /// One call over `files`: the answer lines it printed, by file, for each file it printed a line about
    /// (a "no match" line too; on failure, only complete lines before the failure), and whether it succeeded.
    func call(_ files: [String], state: URL) -> (outcome: Result<Void, SystemError>, printed: [String: [AnswerFormat.Line]], run: Call?) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fpbench-system-\(getpid())-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = { (path: String) in URL(fileURLWithPath: path).lastPathComponent }
        let name = files.count == 1 ? "query file \(file(files[0]))" : "query files \(file(files[0])) ... \(file(files[files.count - 1]))"
        let fail = { (reason: String) in SystemError(system: self.identifier, reason: "\(name): \(reason)") }
        let run: ChildRun
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let listFile = folder.appendingPathComponent("queries.txt")
            try Data(files.map { $0 + "\n" }.joined().utf8).write(to: listFile)
            let values = ["state": state.path, "queryList": listFile.path, "query": files[0]]
            run = try start(expand(description.query.command, values, queries: files), values,
                            timeout: description.query.timeoutSecondsPerCall + description.query.timeoutSecondsPerQuery * Double(files.count))
        } catch { return (.failure(fail("\(error)")), [:], nil) }
        let measured = Call(queries: files.count, cpuSeconds: run.cpuSeconds, wallSeconds: run.wallSeconds, peakResidentBytes: run.peakResidentBytes)
        if run.flooded { return (.failure(fail("\(run.ending): \(Self.lastWords(run.errors))")), [:], measured) }
        var text = String(decoding: run.output, as: UTF8.self)
        let succeeded = run.status == 0 && !run.timedOut
        if !succeeded, let cut = text.lastIndex(of: "\n") { text = String(text[...cut]) } else if !succeeded { text = "" }
        var printed: [String: [AnswerFormat.Line]] = [:]
        let byName = Dictionary(files.map { (file($0), $0) }, uniquingKeysWith: { a, _ in a })
        do {
            for line in try description.answers.parse(text) {
                guard let asked = files.contains(line.query) ? line.query : byName[file(line.query)] else {
                    throw SystemError(system: identifier, reason: "an answer names query '\(line.query)', which it was not asked")
                }
                printed[asked, default: []] += line.reference == nil ? [] : [line]
            }
        } catch let error as SystemError {
            return (.failure(fail(error.reason)), succeeded ? [:] : printed, measured)
        } catch { return (.failure(fail("\(error)")), [:], measured) }
        return (succeeded ? .success(()) : .failure(fail("\(run.ending): \(Self.lastWords(run.errors))")), printed, measured)
    }

    // MARK: Commands

    func expand(_ command: [String], _ values: [String: String], queries: [String] = []) -> [String] {
        SystemDescription.expand(command, values.merging(["systemFolder": folder]) { a, _ in a }.merging(settingValues) { a, _ in a }, queries: queries)
    }

    func environment(_ values: [String: String]) -> [String: String] {
        (description.environment ?? [:]).mapValues { expand([$0], values)[0] }
    }

    func start(_ command: [String], _ values: [String: String], timeout: Double) throws -> ChildRun {
        guard let program = executablePath(command[0]) else {
            throw SystemError(system: identifier, reason: "\(command[0]) \(notRunnable(command[0])); install: \(description.install)")
        }
        return try ChildRun.run(program, Array(command.dropFirst()), environment: environment(values), timeout: timeout, keepErrors: true, wholeGroup: true)
    }

    /// The last non-empty lines of standard error, for a failure message.
    static func lastWords(_ errors: String) -> String {
        let lines = errors.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return lines.isEmpty ? "(nothing on standard error)" : lines.suffix(3).joined(separator: " | ")
    }

    static func bytes(in folder: URL) -> Int {
        let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.fileSizeKey])
        return (files?.allObjects as? [URL] ?? []).reduce(0) { $0 + ((try? $1.resourceValues(forKeys: [.fileSizeKey]).fileSize ?? 0) ?? 0) }
    }
}

extension OutsideSystem.IndexRecord {
    /// The catalog track a printed reference names: its path as listed or as in the catalog, else its file
    /// name, with or without the extension, when only one track has it (Dejavu prints song names).
    public func track(named printed: String) -> Int? {
        func unique(_ key: (String) -> String) -> Int? {
            let target = key(printed), found = listed.indices.filter { key(listed[$0]) == target || key(tracks[$0]) == target }
            return found.count == 1 ? found[0] : nil
        }
        let file = { (path: String) in URL(fileURLWithPath: path).lastPathComponent }
        return unique { $0 } ?? unique(file) ?? unique { URL(fileURLWithPath: file($0)).deletingPathExtension().lastPathComponent }
    }
}
