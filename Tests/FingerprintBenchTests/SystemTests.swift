import AudioIO
import BenchmarkEvaluation
import Evaluation
import Fingerprinting
import Foundation
@testable import OutsidePrograms
@testable import Reporting
import SuiteEvaluation
import Testing

private let example = repositoryRoot.appendingPathComponent("Systems/envelope-example/envelope-example.json").path

/// Prints 1 MiB lines for ever.
let floodScript = "l=x; for i in $(seq 20); do l=$l$l; done; while :; do echo $l; done"

/// The outside-system contract: answers read as documented, bad system files refused with the reason.
@Suite struct SystemContractTests {
    func format(_ json: String) throws -> AnswerFormat { try JSONDecoder().decode(AnswerFormat.self, from: Data(json.utf8)) }

    /// Olaf's CSV: a header before every query's lines, an empty path for no match, the offset as a difference.
    @Test func csvAnswersWithRepeatedHeadersAndADifferenceOffset() throws {
        let f = try format(#"{"format": "csv", "query": "query_path", "reference": "path", "offset": "reference_start - query_start", "score": "match_count", "scoreScale": {"kind": "count", "half": 10}}"#)
        let lines = try f.parse("""
            query_index, query_path, match_count, query_start, path, reference_start
            1 ,q1.wav, 30 ,0.184, /music/a.ogg, 20.184
            query_index, query_path, match_count, query_start, path, reference_start
            2 ,q2.wav, 0 ,0.000, , 0.000
            """)
        #expect(lines.count == 2)
        #expect(lines[0].query == "q1.wav" && lines[0].reference == "/music/a.ogg" && abs(lines[0].offset - 20) < 1e-9)
        #expect(lines[0].rawScore == 30 && abs(lines[0].score - 0.75) < 1e-12)
        #expect(lines[1].reference == nil)
        #expect { try f.parse("a,b\n1,2,3\n") } throws: { "\($0)".contains("line 2 cannot be read (3 cells under a header of 2)") }
        #expect { try f.parse("query_path,path,reference_start,query_start,match_count\nq.wav,r.ogg,x,0,5\n") } throws: {
            "\($0)".contains("reference_start is not a number")
        }
    }

    /// audfprint's sentences through a regular expression; lines that do not match are left alone.
    @Test func regexAnswersIgnoreOtherLines() throws {
        let f = try format(#"{"format": "regex", "pattern": "^Matched (?<query>.+?) +[0-9.]+ sec .* as (?<reference>.+) at +(?<offset>-?[0-9.]+) s with +(?<score>[0-9]+) of", "query": "query", "reference": "reference", "offset": "offset", "score": "score", "scoreScale": {"kind": "count", "half": 10}}"#)
        let lines = try f.parse("""
            Tue Nov 24 11:18:31 2026 Analyzed #0 q1.wav of 9.427 s to 162 hashes
            Matched /tmp/q 1.wav 9.4 sec 162 raw hashes as /music/a b.ogg at   20.0 s with    40 of    48 common hashes at rank  0
            NOMATCH q2.wav 1.6 sec 120 raw hashes
            """)
        #expect(lines.count == 1)
        #expect(lines[0].query == "/tmp/q 1.wav" && lines[0].reference == "/music/a b.ogg" && lines[0].offset == 20 && lines[0].rawScore == 40)
    }

    /// JSON lines: a null reference is no match; a system without scores scores 1; a line that is not JSON is an error.
    @Test func jsonLinesWithAndWithoutScores() throws {
        let scored = try format(#"{"format": "json-lines", "query": "q", "reference": "r", "offset": "t", "score": "s", "scoreScale": {"kind": "distance"}}"#)
        #expect(try scored.parse(#"{"q": "a.wav", "r": "x", "t": 1.5, "s": 0.25}"# + "\n" + #"{"q": "b.wav", "r": null}"#).map(\.score) == [0.75, 0])
        let plain = try format(#"{"format": "json-lines", "query": "q", "reference": "r", "offset": "t"}"#)
        #expect(try plain.parse(#"{"q": "a.wav", "r": "x", "t": 2}"#)[0].score == 1)
        #expect { try plain.parse("Traceback (most recent call last):") } throws: { "\($0)".contains("line 1 cannot be read (not valid JSON)") }
        #expect { try plain.parse("[1, 2]") } throws: { "\($0)".contains("line 1 cannot be read (not a JSON object)") }
        #expect { try scored.parse(#"{"q": "a.wav", "r": "x", "t": 1.5, "s": NaN}"#) } throws: { "\($0)".contains("NaN and Infinity are not JSON numbers") }
        // A score outside the declared scale is an error, never clamped into it (7.0 counted as a sure match).
        let unit = try format(#"{"format": "json-lines", "query": "q", "reference": "r", "offset": "t", "score": "s", "scoreScale": {"kind": "unit"}}"#)
        #expect { try unit.parse(#"{"q": "a.wav", "r": "x", "t": 1.5, "s": 7.0}"#) } throws: { "\($0)".contains("s 7.0 is outside the declared unit scale of 0 to 1") }
        #expect(try unit.parse(#"{"q": "a.wav", "r": "x", "t": 1.5, "s": 1.0}"#)[0].score == 1)
    }

    /// A system file with a misspelt field, a missing placeholder or a wrong schema is refused, naming it.
    @Test func brokenSystemFilesAreRefusedWithTheReason() throws {
        let folder = temporaryFolder()
        let good = try String(contentsOfFile: example, encoding: .utf8)
        func refusal(_ text: String) -> String {
            let path = folder.appendingPathComponent("s-\(UUID().uuidString).json").path
            _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
            do { _ = try OutsideSystem(file: path); return "" } catch { return "\(error)" }
        }
        #expect(refusal(good).isEmpty)
        #expect(refusal(good.replacingOccurrences(of: "\"batch\"", with: "\"bacth\"")).contains("missing field 'batch' at .query"))
        #expect(refusal(good.replacingOccurrences(of: "\"parameters\"", with: "\"environmnet\": {\"HOME\": \"{state}\"}, \"parameters\""))
            .contains("environmnet: unknown field"))
        #expect(refusal(good.replacingOccurrences(of: "\"{catalogList}\"", with: "\"{catalog}\"")).contains("index.command must contain {catalogList}"))
        #expect(refusal(good.replacingOccurrences(of: "fpbench-system/1", with: "fpbench-system/9")).contains("this fpbench reads 'fpbench-system/1'"))
        #expect(refusal(good.replacingOccurrences(of: "\"{queries}\"", with: "\"{query}\"")).contains("query.batch must be 1 when the command takes {query}"))
        #expect(refusal("{").contains("broken system file: not valid JSON: it ends before it is complete (after line 1)"))
    }
}

/// Systems run by the benchmark beside a built-in algorithm on catalog-ci: the example system answers;
/// a system that crashes on one query, hangs, prints garbage, fails to index or is not installed is named
/// with the reason, and nothing else is lost.
@Suite(.serialized) struct SystemBenchmarkTests {
    /// A copy of the example system file with other commands (shell scripts standing in for broken systems).
    func variant(_ id: String, in folder: URL, edit: (inout [String: Any]) -> Void) throws -> OutsideSystem {
        var json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: example))) as! [String: Any]
        json["identifier"] = id
        // Commands keep finding the example's script: {systemFolder} is the example's folder, written out.
        let script = repositoryRoot.appendingPathComponent("Systems/envelope-example/envelope_example.py").path
        for step in ["version", "index", "query"] {
            var part = json[step] as! [String: Any]
            part["command"] = (part["command"] as! [String]).map { $0.replacingOccurrences(of: "{systemFolder}/envelope_example.py", with: script) }
            json[step] = part
        }
        edit(&json)
        let path = folder.appendingPathComponent("\(id).json").path
        try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: path))
        return try OutsideSystem(file: path)
    }

    func query(_ json: inout [String: Any], _ command: [String], timeout: Double? = nil) {
        var part = json["query"] as! [String: Any]
        part["command"] = command
        if let timeout {
            part["timeoutSecondsPerCall"] = timeout
            part["timeoutSecondsPerQuery"] = timeout
        }
        json["query"] = part
    }

    /// A system named like one of the run's algorithms is refused: their answers would share one row (the
    /// Panako release's system file was named "panako", like the built-in algorithm).
    @Test func aSystemNamedLikeAnAlgorithmIsRefused() throws {
        let twin = try variant("haitsma-kalker", in: temporaryFolder()) { _ in }
        var configuration = BenchmarkConfiguration(testSettings(try catalogCIDataset(), [try AlgorithmRegistry.algorithm("haitsma-kalker")], seed: 2013, missing: .borrow),
                                                   spec: BenchmarkSpec())
        configuration.systems = [twin]
        #expect { try Benchmark(configuration).run() } throws: { "\($0)".contains("'haitsma-kalker' names two of them") }
    }

    /// A system's documented shortest query: shorter queries are not asked, its cells there read "not supported"
    /// (not 0 %), and the skipped list gives the source; longer queries are asked as ever.
    @Test func queriesShorterThanASystemSupportsAreNotAskedAndSaidSo() throws {
        let folder = temporaryFolder()
        let limited = try variant("needs-5s", in: folder) { $0["shortestQuery"] = ["seconds": 5, "source": "its README"] }
        var spec = BenchmarkSpec()
        spec.queryLengths = [2, 10]
        spec.queriesPerLength = 3
        spec.negativesPerLength = 2
        spec.conditions = spec.conditions.filter { $0.id == "clean" }
        var configuration = BenchmarkConfiguration(testSettings(try catalogCIDataset(), [try AlgorithmRegistry.algorithm("haitsma-kalker")], seed: 2013, missing: .borrow),
                                                   spec: spec)
        configuration.systems = [limited]
        configuration.systemStateFolder = folder.appendingPathComponent("state")
        let (results, costs) = try Benchmark(configuration).run()
        let asked = results.answers.filter { $0.algorithm == "needs-5s" }.map(\.query)
        #expect(asked.count == 5 && asked.allSatisfy { $0.hasPrefix("10s-") })
        #expect(results.answers.filter { $0.algorithm == "haitsma-kalker" }.count == 10)
        #expect(results.skipped.contains { $0.item == "needs-5s: 2 s queries" && $0.reason.contains("not supported") && $0.reason.contains("its README") })
        let report = temporaryFolder()
        try BenchmarkReport.write(results, costs: costs, to: report)
        let summary = try String(contentsOf: report.appendingPathComponent("summary.md"), encoding: .utf8)
        #expect(summary.contains("| needs-5s | not supported | not supported | not supported |"))
        #expect(summary.contains("| needs-5s | 2 s | not supported |"))
        #expect(!summary.contains("| needs-5s | 10 s | not supported |"))
    }

    @Test func outsideSystemsAnswerBesideTheAlgorithmsAndTheirFailuresAreNamed() throws {
        let folder = temporaryFolder()
        let script = repositoryRoot.appendingPathComponent("Systems/envelope-example/envelope_example.py").path
        let systems = [
            try OutsideSystem(file: example),
            // Dies on one negative query (a batch fails, so every query is asked again alone).
            try variant("crashes-on-one", in: folder) { query(&$0, ["sh", "-c", "for f; do case $f in *neg-001*) echo \"cannot decode $f\" >&2; exit 9;; esac; done; exec python3 \(script) query \"$@\"", "sh", "{state}", "{queries}"]) },
            try variant("hangs", in: folder) { query(&$0, ["sh", "-c", "sleep 30", "sh", "{queries}"], timeout: 0.3) },
            // Prints 1 MB lines for ever: stopped at the output limit on every call, its queries erred with the reason.
            try variant("floods", in: folder) { query(&$0, ["sh", "-c", floodScript, "sh", "{queries}"], timeout: 60) },
            try variant("garbage", in: folder) { query(&$0, ["sh", "-c", "echo 'Segmentation fault (core dumped)'", "sh", "{queries}"]) },
            try variant("cannot-index", in: folder) { json in
                var part = json["index"] as! [String: Any]
                part["command"] = ["sh", "-c", "echo 'database is locked' >&2; exit 1", "sh", "{catalogList}"]
                json["index"] = part
            },
            try variant("not-installed", in: folder) { json in
                json["version"] = ["command": ["no-such-program-fpbench"], "pattern": "x"]
                json["install"] = "pip install no-such-system"
            },
        ]
        var spec = BenchmarkSpec()
        spec.queryLengths = [10]
        spec.queriesPerLength = 4
        spec.negativesPerLength = 3
        spec.conditions = spec.conditions.filter { $0.id == "clean" }
        var configuration = BenchmarkConfiguration(testSettings(try catalogCIDataset(), [try AlgorithmRegistry.algorithm("haitsma-kalker")], seed: 2013, missing: .borrow),
                                                   spec: spec)
        configuration.systems = systems
        configuration.systemStateFolder = folder.appendingPathComponent("state")
        let (results, costs) = try Benchmark(configuration).run()
        let metrics = BenchmarkMetrics(results)
        func answers(_ id: String) -> [BenchmarkAnswer] { results.answers.filter { $0.algorithm == id } }

        // Every system that ran answered every query (4 positives and 3 negatives, clean), in the same tables.
        #expect(results.algorithms.map(\.identifier) == ["haitsma-kalker", "envelope-example", "crashes-on-one", "hangs", "floods", "garbage"])
        #expect(["envelope-example", "crashes-on-one", "hangs", "floods", "garbage"].allSatisfy { answers($0).count == 7 })
        #expect(results.failures.isEmpty)
        // The example identifies clean 10 s queries (a toy, but a real one), and the crashing copy answers as it
        // does everywhere but on the query it dies on, which counts as no match with the system's own words.
        let correct = metrics.condition(BenchmarkCell(algorithm: "envelope-example", length: 10, condition: "clean"))!.outcomes[Outcome.correct.rawValue]!
        #expect(correct.total == 4 && correct.successes >= 3)
        let crashed = answers("crashes-on-one").filter { $0.note != nil }
        #expect(crashed.count == 1 && crashed[0].query == "10s-neg-001" && crashed[0].note!.contains("exit status 9: cannot decode"))
        #expect(zip(answers("crashes-on-one"), answers("envelope-example")).allSatisfy { $0.query == "10s-neg-001" || $0.top == $1.top })
        #expect(answers("hangs").allSatisfy { $0.top.isEmpty && $0.note!.contains("stopped after its time limit") })
        // The summary groups each system's errors by message with counts and marks a system that erred on more
        // than 5 % of its queries as "adapter suspect" (it listed the first 20 errors one by one).
        let report = temporaryFolder()
        try BenchmarkReport.write(results, costs: nil, to: report, includeResults: false)
        let summary = try String(contentsOf: report.appendingPathComponent("summary.md"), encoding: .utf8)
        #expect(summary.contains("**hangs**: 7 of 7 queries (100.0 %) — **adapter suspect**"), "\(summary)")
        #expect(summary.contains("**crashes-on-one**: 1 of 7 queries (14.3 %) — **adapter suspect**"))
        #expect(answers("floods").allSatisfy { $0.top.isEmpty && $0.note!.contains("stopped after printing more than 64 MiB") })
        #expect(answers("garbage").allSatisfy { $0.top.isEmpty && $0.note!.contains("line 1 cannot be read (not valid JSON): Segmentation fault") })
        // The two that could not run are skipped with the reason and, when not installed, the install line.
        #expect(results.skipped.contains { $0.item == "cannot-index" && $0.reason.contains("indexing failed (exit status 1): database is locked") })
        #expect(results.skipped.contains { $0.item == "not-installed" && $0.reason.contains("install: pip install no-such-system") })
        // Costs measured per process; the index is reused by the next run (and its costs kept).
        let example = try #require(costs.systems?.first { $0.identifier == "envelope-example" })
        #expect(example.index.cpuSeconds > 0 && example.index.bytesOnDisk > 0 && example.queries == 7 && example.aloneCPUSeconds != nil && !example.indexReused)
        // A half-built index left by a process that is gone is cleared when the system next indexes.
        let stateFolder = configuration.systemStateFolder
        let abandoned = try #require(try FileManager.default.contentsOfDirectory(atPath: stateFolder.path).first { $0.hasPrefix("envelope-example-") })
        let leftover = stateFolder.appendingPathComponent(".\(abandoned)-999999999-dead")
        try FileManager.default.createDirectory(at: leftover, withIntermediateDirectories: true)
        try FileManager.default.removeItem(at: stateFolder.appendingPathComponent(abandoned).appendingPathComponent(".fpbench-index.json"))
        configuration.systems = [systems[0]]
        let (rebuilt, rebuiltCosts) = try Benchmark(configuration).run()
        #expect(!FileManager.default.fileExists(atPath: leftover.path))
        #expect(rebuilt.answers.filter { $0.algorithm == "envelope-example" } == answers("envelope-example"))
        let (again, againCosts) = try Benchmark(configuration).run()
        #expect(againCosts.systems?.first?.indexReused == true && againCosts.systems?.first?.index == rebuiltCosts.systems?.first?.index)
        #expect(rebuiltCosts.systems?.first?.indexReused == false)
        #expect(again.answers.filter { $0.algorithm == "envelope-example" } == answers("envelope-example"))
        // The answers are remembered beside the index: the same queries again are not asked again...
        #expect(againCosts.systems?.first?.remembered == 7 && againCosts.systems?.first?.queries == 0, "\(String(describing: againCosts.systems))")
        // ...and count with the CPU measured when they were asked (each its share of its call).
        let asked = try #require(rebuiltCosts.systems?.first?.batchedQueryMilliseconds), recalled = try #require(againCosts.systems?.first?.batchedQueryMilliseconds)
        #expect(againCosts.systems?.first?.rememberedMeasured == 7 && abs(recalled - asked) <= 1e-9 * asked, "\(asked) ms asked, \(recalled) ms remembered")
        // ...and a run interrupted after three answers (the fourth line cut short) asks only the other four.
        let memory = stateFolder.appendingPathComponent(abandoned).appendingPathComponent("answers.jsonl")
        let lines = try String(contentsOf: memory, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 7)
        try (lines.prefix(3).joined(separator: "\n") + "\n" + lines[3].prefix(20)).write(to: memory, atomically: true, encoding: .utf8)
        let (resumed, resumedCosts) = try Benchmark(configuration).run()
        // The cut line stays; the answers kept after it start on a line of their own, so all seven are remembered.
        #expect(try String(contentsOf: memory, encoding: .utf8).split(separator: "\n").count == 8)
        #expect(resumedCosts.systems?.first?.remembered == 3 && resumedCosts.systems?.first?.queries == 4 && resumedCosts.systems?.first?.rememberedMeasured == 3)
        #expect(resumed.answers.filter { $0.algorithm == "envelope-example" } == answers("envelope-example"))
        // A memory written before costs were kept still answers; its answers count in no CPU figure, and the costs table says so.
        let costless = try String(contentsOf: memory, encoding: .utf8).split(separator: "\n").compactMap { line -> String? in
            guard var entry = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] else { return nil }
            #expect(entry.removeValue(forKey: "cost") != nil)
            return String(decoding: try JSONSerialization.data(withJSONObject: entry), as: UTF8.self)
        }
        #expect(costless.count == 7)
        try (costless.joined(separator: "\n") + "\n").write(to: memory, atomically: true, encoding: .utf8)
        let (_, oldCosts) = try Benchmark(configuration).run()
        let old = try #require(oldCosts.systems?.first)
        #expect(old.remembered == 7 && old.rememberedMeasured == nil && old.batchedQueryMilliseconds == nil, "\(old)")
        let table = BenchmarkReport.systemsCosts(oldCosts.systems ?? [])
        #expect(table.contains("7 answers remembered from an earlier run, 7 without a kept cost"), "\(table)")
    }
}

/// A child that misbehaves is stopped within stated limits and leaves nothing behind.
@Suite struct ChildRunLimitTests {
    /// A child printing 1 MB lines for ever is stopped once it has printed `outputLimit` bytes: its capture is
    /// bounded in memory and on disk, and its scratch folder is gone.
    @Test func aChildThatPrintsWithoutEndIsStoppedAtTheOutputLimit() throws {
        // The child names its own capture file first (its standard output), so this test checks its own scratch
        // folder, not another test's running in parallel.
        let run = try ChildRun.run("/bin/sh", ["-c", "readlink /proc/$$/fd/1; " + floodScript], timeout: 120, keepErrors: true)
        #expect(run.flooded && !run.timedOut && run.ending.contains("printing more than 64 MiB"))
        #expect(run.output.count <= ChildRun.outputLimit && run.wallSeconds < 60)
        let capture = String(decoding: run.output.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        let folder = URL(fileURLWithPath: capture).deletingLastPathComponent()
        #expect(folder.lastPathComponent.hasPrefix("fpbench-child-\(getpid())-"), "\(capture)")
        #expect(!FileManager.default.fileExists(atPath: folder.path), "scratch folder left: \(folder.path)")
    }

    /// A grandchild that calls setsid leaves the child's process group, so the group's kill misses it; it is
    /// killed all the same once the child is done.
    @Test func aDaemonTheChildLeavesBehindIsKilled() throws {
        let marker = "301.\(getpid())"
        let run = try ChildRun.run("/bin/sh", ["-c", "setsid sleep \(marker) > /dev/null 2>&1 < /dev/null & echo started"], timeout: 30)
        #expect(String(decoding: run.output, as: UTF8.self) == "started\n")
        func sleeping() -> Bool {
            ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).contains { pid in
                let command = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline").map { String(decoding: $0, as: UTF8.self) } ?? ""
                let state = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
                return command == "sleep\0\(marker)\0" && !state.contains(") Z ")
            }
        }
        var waited = 0
        while sleeping() && waited < 50 { usleep(100_000); waited += 1 }
        #expect(!sleeping(), "the setsid daemon survived its child")
    }

    /// A leftover scratch folder of a process that is gone is swept; one of a live process is kept, and so is
    /// any other folder: a test's `fpbench-test-UUID` whose UUID starts with eight digits once lost its report.
    @Test func scratchFoldersOfDeadProcessesAreSwept() throws {
        let parent = temporaryFolder(), uuid = UUID().uuidString
        let dead = parent.appendingPathComponent("fpbench-queries-999999999-\(uuid)"), live = parent.appendingPathComponent("fpbench-queries-\(getpid())-\(uuid)")
        let others = ["fpbench-test-79136064-6CA2-4496-8B97-978CBC6CDA4C", "fpbench-queries-999999999-abc"].map { parent.appendingPathComponent($0) }
        for folder in [dead, live] + others { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        ScratchFolder.sweepLeftovers(in: parent)
        #expect(!FileManager.default.fileExists(atPath: dead.path))
        #expect(([live] + others).allSatisfy { FileManager.default.fileExists(atPath: $0.path) })
    }

    /// A catalog file name with a line break would split {catalogList} in two: refused by name before indexing.
    @Test func aTrackNameWithALineBreakIsRefusedByName() throws {
        let system = try OutsideSystem(file: example)
        #expect { try system.catalogList(["/music/a\nb.wav"], in: temporaryFolder()) } throws: { "\($0)".contains(#""/music/a\nb.wav" has a line break"#) }
    }

    /// A command that exists without its execute bit is told apart from one that is not there.
    @Test func aCommandWithoutItsExecuteBitIsNamedSo() throws {
        let file = temporaryFolder().appendingPathComponent("system.sh")
        try Data("#!/bin/sh\n".utf8).write(to: file)
        #expect(notRunnable(file.path).contains("exists but is not executable"))
        #expect(notRunnable("/no/such/program-fpbench") == "not found")
    }
}

/// A system's settings (`--set SYSTEM.NAME=VALUE`): checked against the file's ranges, named in every
/// table, passed to the system's own commands, and kept apart in the index.
@Suite struct SystemSettingsTests {
    @Test func aSettingIsCheckedNamedAndReachesTheSystem() throws {
        let system = try OutsideSystem(file: example)
        #expect(system.settingValues == ["frame_ms": "100"] && system.identifier == "envelope-example")
        let slower = try system.variant([("frame_ms", "200")])
        #expect(slower.identifier == "envelope-example@frame_ms=200" && slower.settingsKey == "frame_ms=200")
        #expect(slower.environment([:])["ENVELOPE_FRAME_MS"] == "200" && system.environment([:])["ENVELOPE_FRAME_MS"] == "100")
        #expect { try system.variant([("frames", "200")]) } throws: { "\($0)".contains("no setting 'frames'; it takes frame_ms") }
        #expect { try system.variant([("frame_ms", "5")]) } throws: { "\($0)".contains("frame_ms: 5 is outside 20-1000") }
        #expect { try system.variant([("frame_ms", "150.5")]) } throws: { "\($0)".contains("takes whole numbers, not 150.5") }
        #expect { try system.variant([("frame_ms", "fast")]) } throws: { "\($0)".contains("'fast' is not a number") }

        // The script indexes a 3 s noise at the frame length it is given: 29 loudness changes at 100 ms, 14 at 200 ms.
        let folder = temporaryFolder(), track = folder.appendingPathComponent("noise.wav").path
        try AudioWriter.write(Audio(samples: (0..<24_000).map { _ in Float.random(in: -0.5...0.5) }, sampleRate: 8000), to: track)
        func changes(_ s: OutsideSystem) throws -> Int {
            let state = folder.appendingPathComponent(s.identifier)
            _ = try s.index(tracks: [track], audioSeconds: 3, state: state, version: "1")
            let index = try JSONSerialization.jsonObject(with: Data(contentsOf: state.appendingPathComponent("index.json"))) as! [String: [Double]]
            return index.values.first!.count
        }
        #expect(try changes(system) == 29 && changes(slower) == 14)

        // A named variant of the file (FILE@NAME): its values, its own name and index, its source in the profile.
        let coarse = try OutsideSystem(file: example + "@coarse")
        #expect(coarse.identifier == "envelope-example@coarse" && coarse.settingsKey == "frame_ms=200" && coarse.variant?.name == "coarse")
        #expect(try changes(coarse) == 14)
        #expect(try coarse.variant([("frame_ms", "100")]).identifier == "envelope-example@coarse@frame_ms=100")
        #expect { try OutsideSystem(file: example + "@fine") } throws: { "\($0)".contains("no variant 'fine'; its variants: coarse") }
    }

    @Test func brokenSettingsAreRefusedWithTheReason() throws {
        let folder = temporaryFolder()
        let good = try String(contentsOfFile: example, encoding: .utf8)
        func refusal(_ edit: (String) -> String) -> String {
            let path = folder.appendingPathComponent("s-\(UUID().uuidString).json").path
            _ = FileManager.default.createFile(atPath: path, contents: Data(edit(good).utf8))
            do { _ = try OutsideSystem(file: path); return "" } catch { return "\(error)" }
        }
        #expect(refusal { $0 }.isEmpty)
        #expect(refusal { $0.replacingOccurrences(of: "\"{frame_ms}\"", with: "\"100\"") }.contains("settings: frame_ms is used by no command nor environment variable"))
        #expect(refusal { $0.replacingOccurrences(of: "frame_ms", with: "state") }.contains("settings: 'state' is a placeholder fpbench fills itself"))
        #expect(refusal { $0.replacingOccurrences(of: "\"default\": 100", with: "\"default\": 10") }.contains("settings: frame_ms: its default 10.0 is outside 20-1000"))
        #expect(refusal { $0.replacingOccurrences(of: "\"default\": 100", with: "\"default\": 100.5") }.contains("settings: frame_ms: its default takes whole numbers, not 100.5"))
        #expect(refusal { $0.replacingOccurrences(of: "{\"frame_ms\": 200}", with: "{\"frame\": 200}") }.contains("variants: coarse: no setting 'frame'; the settings: frame_ms"))
        #expect(refusal { $0.replacingOccurrences(of: "{\"frame_ms\": 200}", with: "{\"frame_ms\": 2000}") }.contains("variants: coarse: frame_ms: 2000 is outside 20-1000"))
        #expect(refusal { $0.replacingOccurrences(of: "{\"frame_ms\": 200}", with: "{}") }.contains("variants: coarse changes no setting"))
    }
}

/// An external algorithm's command that hangs is stopped at its file's `timeoutSeconds` and named.
@Suite struct ExternalCommandLimitTests {
    @Test func aHangingCommandIsStoppedAtItsTimeLimit() throws {
        let configuration = ExternalCommand.Configuration(
            identifier: "sleeper", displayName: "sleeps", sampleRate: 8000, command: ["sh", "-c", "sleep 30", "{input}"], output: .words,
            compare: .bitErrorRate, wordDuration: 0.1, minimumDuration: 0, berThreshold: 0.35, search: nil, install: "sh", parameters: [], timeoutSeconds: 1)
        let algorithm = ExternalAlgorithm(command: try ExternalCommand(configuration: configuration))
        let started = Date()
        #expect { try algorithm.fingerprint(Audio(samples: [Float](repeating: 0.1, count: 8000), sampleRate: 8000), role: .query) } throws: {
            "\($0)".contains("stopped after its time limit")
        }
        #expect(Date().timeIntervalSince(started) < 10)
    }
}

/// A system's index is put in place in one step: renamed when there is none, exchanged with the old one
/// otherwise (the old left where the new was built, for its builder to remove), so no reader finds none.
@Suite struct SystemIndexPlacementTests {
    @Test func anIndexReplacesTheOldInOneStep() throws {
        let folder = temporaryFolder(), state = folder.appendingPathComponent("olaf-key"), building = folder.appendingPathComponent(".olaf-key-1")
        func make(_ url: URL, _ name: String) throws {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            try Data(name.utf8).write(to: url.appendingPathComponent("index"))
        }
        let read = { (url: URL) in try String(contentsOf: url.appendingPathComponent("index"), encoding: .utf8) }
        try make(building, "first")
        try OutsideSystem.putInPlace(building, as: state)
        #expect(try read(state) == "first" && !FileManager.default.fileExists(atPath: building.path))
        try make(building, "second")
        try OutsideSystem.putInPlace(building, as: state)
        #expect(try read(state) == "second" && read(building) == "first")
    }
}
