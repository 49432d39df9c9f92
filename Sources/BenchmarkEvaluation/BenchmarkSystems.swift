import AudioIO
import Evaluation
import Fingerprinting
import Foundation
import OutsidePrograms

/// Outside systems in the benchmark: checked, indexed once (their index kept in the state folder, reused
/// by later runs and by other shards), then asked about the same degraded query files as the built-in
/// algorithms, in batches. Their answers join the same results; their costs are measured per process.
extension Benchmark {
    /// An installed system with its index.
    struct IndexedSystem {
        var system: OutsideSystem
        var version: String
        var record: OutsideSystem.IndexRecord
        var state: URL
        var reused: Bool
    }

    /// Every system that is installed and indexes the catalog; the others are skipped with the reason (not
    /// installed: with the install line; indexing failed: with its last words on standard error), as are the
    /// query lengths below a system's shortest, with its source.
    func indexSystems(_ tracks: [String], durations: [Double], skipped: inout [Problem], progress: ProgressReporter) -> [IndexedSystem] {
        let c = configuration
        let paths = tracks.map { URL(fileURLWithPath: c.dataset.path($0)).standardizedFileURL.path }
        progress.start("indexing outside systems", total: c.systems.count)
        // Systems side by side, one thread each (each process is measured on its own).
        let outcomes = parallelMap(c.systems.count, threads: c.threads) { s -> Result<IndexedSystem, SystemError> in
            defer { progress.advance() }
            let system = c.systems[s]
            return system.installedVersion().flatMap { version in
                // Settings join the key only when the system declares some, so older indexes of the others stay valid.
                let settings = system.settingsKey.isEmpty ? [] : [system.settingsKey]
                let key = sha256Hex(Data((["fpbench-system-state/1", version] + settings + paths).joined(separator: "\n").utf8)).prefix(16)
                let state = c.systemStateFolder.appendingPathComponent("\(system.identifier)-\(key)")
                do {
                    let (record, reused) = try system.index(tracks: paths, audioSeconds: durations.reduce(0, +), state: state, version: version)
                    return .success(IndexedSystem(system: system, version: version, record: record, state: state, reused: reused))
                } catch let error as SystemError {
                    return .failure(error)
                } catch { return .failure(SystemError(system: system.identifier, reason: "indexing failed: \(error)")) }
            }
        }
        progress.finish()
        let indexed = zip(c.systems, outcomes).compactMap { system, outcome -> IndexedSystem? in
            switch outcome {
            case .success(let indexed): return indexed
            case .failure(let error): skipped.append(.init(item: system.identifier, reason: error.reason)); return nil
            }
        }
        for system in indexed.map(\.system) {
            guard let shortest = system.description.shortestQuery else { continue }
            for length in c.spec.queryLengths where length < shortest.seconds {
                skipped.append(.init(item: "\(system.identifier): \(QueryLength(length).spoken) queries",
                                     reason: "not supported: shorter than the \(String(format: "%g", shortest.seconds)) s the system answers (\(shortest.source))"))
            }
        }
        return indexed
    }

    /// The query files written for the systems, by sample rate: `folder/RATE/QUERY__CONDITION.wav`.
    struct SystemQueryFiles: Sendable {
        var folder: URL
        var rates: [Double]

        func path(rate: Double, query: String, condition: String) -> String {
            let safe = "\(query)__\(condition)".map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." ? $0 : "_" }
            return folder.appendingPathComponent(String(format: "%.0f", rate)).appendingPathComponent(String(safe) + ".wav").path
        }

        func write(_ audio: Audio, query: String, condition: String) throws {
            for rate in rates {
                let path = path(rate: rate, query: query, condition: condition)
                try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try AudioWriter.write(audio.resampled(to: rate), to: path)
            }
        }
    }

    /// Each system's answers to every query file that was written (a query that could not be written
    /// already failed for every algorithm), and what its calls cost.
    /// A system is asked only queries at least as long as its shortest (`lengths`: each query's length).
    func answerSystems(_ systems: [IndexedSystem], files: SystemQueryFiles, asked all: [BenchmarkAnswer], lengths: [String: Double],
                       progress: ProgressReporter) -> (answers: [BenchmarkAnswer], costs: [BenchmarkCosts.SystemCosts]) {
        let askedBySystem = systems.map { indexed in
            all.filter { question in indexed.system.description.shortestQuery.map { lengths[question.query, default: 0] >= $0.seconds } ?? true }
        }
        progress.start("querying outside systems", total: askedBySystem.map { $0.filter { $0.failure == nil }.count }.reduce(0, +))
        // Systems side by side, one thread each: every process is measured on its own, so this changes no figure.
        let perSystem = parallelMap(systems.count, threads: configuration.threads) { s -> ([BenchmarkAnswer], BenchmarkCosts.SystemCosts) in
            let indexed = systems[s], system = indexed.system, rate = system.description.audio.sampleRate
            let asked = askedBySystem[s], ready = asked.filter { $0.failure == nil }
            let path = { (question: BenchmarkAnswer) in files.path(rate: rate, query: question.query, condition: question.condition) }
            let paths = ready.map(path)
            let (lines, calls, remembered) = system.answer(paths, state: indexed.state) { progress.advance(by: $0) }
            let alone = paths.first.flatMap { system.answer([$0], state: indexed.state, remembering: false).calls.first }
            let answers = asked.map { question -> BenchmarkAnswer in
                var answer = question
                answer.algorithm = system.identifier
                if answer.failure == nil {
                    answer.top = Self.matches(lines[path(question)], indexed: indexed, error: &answer.note)
                    // The same words on every run: this run's temporary folder left out.
                    answer.note = answer.note?.replacingOccurrences(of: files.folder.path + "/", with: "")
                }
                return answer
            }
            return (answers, BenchmarkCosts.SystemCosts(indexed, calls: calls, alone: alone, remembered: remembered))
        }
        progress.finish()
        return (perSystem.flatMap { $0.0 }, perSystem.map { $0.1 })
    }

    /// A system's answer lines for one query as matches, best first. When it failed on the query (a crash,
    /// its time limit, output that cannot be read, a reference that is not a catalog track) there are none:
    /// the system did not identify the query, so it counts as "no match", with the error as the answer's note.
    static func matches(_ lines: Result<[AnswerFormat.Line], SystemError>?, indexed: IndexedSystem, error failure: inout String?) -> [BenchmarkMatch] {
        let id = indexed.system.identifier
        switch lines ?? .failure(SystemError(system: id, reason: "no answer")) {
        case .failure(let error):
            failure = "\(Self.systemErrorNote) \(error.reason)"
            return []
        case .success(let found):
            // Best score first; equal scores keep the system's own order.
            let ranked = found.enumerated().sorted { ($0.element.score, $1.offset) > ($1.element.score, $0.offset) }.map(\.element).prefix(answersKept)
            let tracks = ranked.map { indexed.record.track(named: $0.reference!) }
            if let stray = zip(ranked, tracks).first(where: { $0.1 == nil }) {
                failure = "\(Self.systemErrorNote) \(id) answered '\(stray.0.reference!)', which is not a catalog track"
                return []
            }
            return zip(ranked, tracks).map { BenchmarkMatch(track: $1!, offset: $0.offset, score: $0.score, rawFigure: $0.rawScore, matched: true) }
        }
    }

    /// How a note of a system's error starts (the report lists them).
    public static let systemErrorNote = "system error:"

    /// The system as the results list it beside the algorithms.
    static func info(_ indexed: IndexedSystem) -> BenchmarkResults.AlgorithmInfo {
        let d = indexed.system.description
        let settings = (d.settings ?? []).map { setting -> Parameter in
            let value = indexed.system.settingValues[setting.name] ?? setting.text(setting.default)
            let changed = value != setting.text(setting.default)
            let byVariant = indexed.system.variant.flatMap { variant in
                variant.settings[setting.name].flatMap { exactText($0) == value ? " by its variant \(variant.name): \(variant.source)" : nil }
            } ?? ""
            return Parameter(setting.name, value, source: changed ? "changed from the default (\(setting.text(setting.default)), \(setting.source))\(byVariant)" : setting.source)
        }
        let works = (d.cites ?? []).compactMap { key in Citation.all.first { $0.key == key } }
        let profile = Profile(d.parameters + settings + works.map { Parameter("work", $0.key, source: $0.short) } + [
            Parameter("version", indexed.version, source: "printed by `\(d.version.command.joined(separator: " "))`"),
            Parameter("index", d.index.command.joined(separator: " "), source: "system file"),
            Parameter("query", d.query.command.joined(separator: " "), source: "system file"),
        ])
        return .init(identifier: indexed.system.identifier, displayName: "\(d.displayName) \(indexed.version)", profile: profile,
                     search: d.answers.score == nil ? BenchmarkResults.AlgorithmInfo.unscoredSystem : "outside system",
                     shortestQuery: d.shortestQuery?.seconds)
    }
}

extension BenchmarkCosts {
    /// What an outside system cost, each process measured apart (CPU, peak resident memory of its own).
    public struct SystemCosts: Sendable, Codable, Equatable {
        public var identifier: String
        public var version: String
        /// The index came from an earlier run or another shard; its costs are the ones measured then.
        public var indexReused: Bool
        public var index: OutsideSystem.IndexCosts
        public var queries: Int
        public var calls: Int
        public var queryCPUSeconds: Double
        public var queryPeakResidentBytes: Int
        /// One query in a call of its own: the whole process, start-up and loading the index included.
        public var aloneCPUSeconds: Double?
        /// Queries answered from an earlier, interrupted or repeated run's memory (not asked again).
        public var remembered: Int?
        /// Of those, the ones whose cost was kept, and what asking them cost then (their shares of their calls).
        public var rememberedMeasured: Int?
        public var rememberedCPUSeconds: Double?

        init(_ indexed: Benchmark.IndexedSystem, calls: [OutsideSystem.Call], alone: OutsideSystem.Call?,
             remembered: (count: Int, cost: OutsideSystem.Call?)) {
            identifier = indexed.system.identifier
            version = indexed.version
            indexReused = indexed.reused
            index = indexed.record.costs
            queries = calls.reduce(0) { $0 + $1.queries }
            self.calls = calls.count
            queryCPUSeconds = calls.reduce(0) { $0 + $1.cpuSeconds }
            queryPeakResidentBytes = (calls + (remembered.cost.map { [$0] } ?? [])).map(\.peakResidentBytes).max() ?? 0
            aloneCPUSeconds = alone?.cpuSeconds
            self.remembered = remembered.count > 0 ? remembered.count : nil
            rememberedMeasured = remembered.cost?.queries
            rememberedCPUSeconds = remembered.cost?.cpuSeconds
        }

        /// CPU per query over the batched calls (each call's start-up shared by its queries), this run's and
        /// those of the remembered answers whose cost was kept.
        public var batchedQueryMilliseconds: Double? {
            let measured = queries + (rememberedMeasured ?? 0)
            return measured > 0 ? 1000 * (queryCPUSeconds + (rememberedCPUSeconds ?? 0)) / Double(measured) : nil
        }
    }
}
