import AudioIO
@testable import BenchmarkEvaluation
import Degradation
import Evaluation
import Fingerprinting
import Foundation
@testable import OutsidePrograms
import SuiteEvaluation
import Testing

/// The fifth retest's reproductions (issue 58), each failing on 7119f01: a number a file admits never traps,
/// a named pipe never blocks, every admitted stage and parameter is bounded, a system's children never outlive
/// the run, settings keep every digit, placeholders expand the same way every run.
@Suite struct ReliabilityFifthPassTests {
    /// A system file of the envelope example with `settings` as given.
    func systemFile(settings: String, command: String = "{frame_ms}") throws -> String {
        let example = repositoryRoot.appendingPathComponent("Systems/envelope-example/envelope-example.json")
        var object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: example)) as? [String: Any])
        object["settings"] = try JSONSerialization.jsonObject(with: Data(settings.utf8))
        var query = try #require(object["query"] as? [String: Any])
        query["command"] = (query["command"] as? [String] ?? []) + [command]
        object["query"] = query
        let file = temporaryFolder().appendingPathComponent("system.json")
        try JSONSerialization.data(withJSONObject: object).write(to: file)
        return file.path
    }

    /// 5: an integer setting of 2^63 or more (a default, a maximum, a value) is text, never a trap.
    @Test func hugeIntegerSettingsAreRefusedOrWrittenNeverATrap() throws {
        let huge = try systemFile(settings: #"[{"name": "frame_ms", "default": 100, "minimum": 20, "maximum": 1e20, "integer": true, "source": "test"}]"#)
        let system = try OutsideSystem(file: huge)
        #expect { try system.variant([("frame_ms", "1e20")]) } throws: { "\($0)".contains("whole numbers below 10^15") }
        #expect(try system.variant([("frame_ms", "9007199254740")]).identifier.hasSuffix("frame_ms=9007199254740"))
        #expect { try system.variant([("frame_ms", "1e30")]) } throws: { "\($0)".contains("is outside 20-1e+20") }
        let badDefault = try systemFile(settings: #"[{"name": "frame_ms", "default": 1e19, "minimum": 20, "maximum": 1e20, "integer": true, "source": "test"}]"#)
        #expect { try OutsideSystem(file: badDefault) } throws: { "\($0)".contains("its default takes whole numbers below 10^15") }
    }

    /// 12: a real-valued setting keeps every digit, in the value the system is given and in the row's name,
    /// and two values that differ past the sixth digit are two points; 15: one setting set twice is refused.
    @Test func realSettingsKeepEveryDigitAndASettingSetTwiceIsRefused() throws {
        let file = try systemFile(settings: #"[{"name": "frame_ms", "default": 100, "minimum": 20, "maximum": 1000, "integer": true, "source": "test"}, "#
                                  + #"{"name": "ratio", "default": 0.5, "minimum": 0, "maximum": 1e7, "integer": false, "source": "test"}]"#, command: "--ratio={ratio}")
        let system = try OutsideSystem(file: file)
        let a = try system.variant([("ratio", "1234567")]), b = try system.variant([("ratio", "1234568")])
        #expect(a.settingValues["ratio"] == "1234567" && a.identifier.hasSuffix("@ratio=1234567"))
        #expect(a.identifier != b.identifier)
        #expect(try system.variant([("ratio", "0.123456789")]).settingValues["ratio"] == "0.123456789")
        #expect { try system.variant([("ratio", "1"), ("ratio", "2")]) } throws: { "\($0)".contains("ratio is set twice") }
        #expect(exactText(1e20) == "1e+20" && exactText(-3) == "-3" && exactText(2.5) == "2.5")
    }

    /// 13: a value that holds `{NAME}` is never expanded again, whatever the dictionary's order; 15: a
    /// misspelt placeholder is refused when the file is read, naming it.
    @Test func placeholdersExpandInOnePassAndAMisspeltOneIsRefused() throws {
        let values = ["a": "{b}", "b": "B", "state": "/s"]
        for _ in 0..<20 { #expect(SystemDescription.fill("x{a}y{b}{state}/{c}", values) == "x{b}yB/s/{c}") }
        #expect(SystemDescription.expand(["{queries}", "-o{state}"], values, queries: ["q1", "q2"]) == ["q1", "q2", "-o/s"])
        let misspelt = try systemFile(settings: #"[{"name": "frame_ms", "default": 100, "minimum": 20, "maximum": 1000, "integer": true, "source": "test"}]"#,
                                      command: "{frame_ms}{stat}")
        #expect { try OutsideSystem(file: misspelt) } throws: { "\($0)".contains("{stat} is no placeholder") }
    }

    /// 6: a vanishing false-positive target asks for more calibration scores than any run has, without a trap.
    @Test func aTinyFalsePositiveTargetIsNoTrap() {
        #expect(Calibration.fewestToBeSure(target: 1e-30, confidence: 0.9) == Int.max / 2)
        #expect(Calibration.fewestToBeSure(target: 0.01, confidence: 0.9) == 230)
        #expect(Calibration.tooFewToBeSure(1000, length: 10, target: 1e-30, confidence: 0.9) != nil)
    }

    /// 7: a query length no algorithm can use is refused with the reason, in a spec and on the command line.
    @Test(arguments: [1e-9, 1e-7, 1e-6, 0.05]) func aTinyQueryLengthIsRefused(length: Double) throws {
        var spec = BenchmarkSpec()
        spec.queryLengths = [length]
        #expect { try spec.validate(path: "spec.json") } throws: { "\($0)".contains("at least 0.1 s (no algorithm fingerprints less)") }
        let cli = try runFPBench(["identify", "-a", "constellation", "--catalog", "/nonexistent", "--negatives", "/nonexistent", "--lengths", "\(length)", "--", "q.wav"])
        #expect(cli.status != 0 && cli.errors.contains("at least 0.1 s"), "\(cli.errors)")
    }

    /// 8: a room whose image sources would not fit in memory is refused with the count and the way out, at once.
    @Test func aRoomTooLargeForMemoryIsRefusedWithTheReason() throws {
        let clock = ContinuousClock.now
        #expect { try SimulatedRoom(RoomStage(rt60: 5)) } throws: { "\($0)".contains("million image sources") && "\($0)".contains("larger or the time shorter") }
        #expect { try SimulatedRoom(RoomStage(rt60: 3, distance: 0.5, size: [2, 2, 2])) } throws: { "\($0)".contains("million image sources") }
        #expect(ContinuousClock.now - clock < .seconds(5))
        #expect(try #require(ShoeboxRoom(size: [5, 4, 2.6], rt60: 2.6)).imageCount < ShoeboxRoom.imageLimit)  // the documented sweep's last level
    }

    /// 8: the response is every arrival summed at its sample, and the octave bands part the spectrum.
    @Test func theResponseIsEveryArrivalSummed() throws {
        let room = try #require(ShoeboxRoom(size: [6, 5, 3], rt60: 0.6))
        let source = SIMD3(1.5, 2.0, 1.2), microphone = SIMD3(3.7, 2.9, 1.6)
        let arrivals = room.arrivals(source: source, microphone: microphone, sampleRate: 16_000)
        var sorted = [Double](repeating: 0, count: arrivals.last!.sample + 1)
        for a in arrivals { sorted[a.sample] += a.amplitude }
        let ours = room.impulseResponse(source: source, microphone: microphone, sampleRate: 16_000)
        #expect(ours.count == sorted.count && zip(ours, sorted).allSatisfy { abs(Double($0) - $1) <= 1e-6 * abs($1) + 1e-12 })
        #expect(Double(arrivals.count) == room.imageCount)
        // The octave bands split every frequency from 125 Hz to the Nyquist without loss or overlap, and nothing
        // below half the lowest centre (as pyroomacoustics splits them).
        for rate in [16_000.0, 44_100] {
            let bands = OctaveBands(sampleRate: rate)
            let total = { (f: Double) in (0..<bands.count).map { bands.gain($0, at: f) }.reduce(0, +) }
            #expect(stride(from: 125.0, through: rate / 2, by: 7).allSatisfy { abs(total($0) - 1) < 1e-12 } && total(60) == 0 && total(90) > 0.1)
        }
    }

    /// 9: a named pipe given where a file is read is refused at once, never opened for reading.
    @Test func aNamedPipeIsRefusedNotWaitedFor() throws {
        let folder = temporaryFolder()
        let pipe = folder.appendingPathComponent("p.wav").path
        #expect(mkfifo(pipe, 0o600) == 0)
        for arguments in [["info", pipe], ["fingerprint", "-a", "constellation", pipe], ["index", "info", pipe], ["index", "verify", pipe],
                          ["dataset", "init", folder.path, "--out", folder.appendingPathComponent("m.json").path],
                          ["run", "--dataset", pipe], ["benchmark", "--spec", pipe]] {
            let run = try ChildRun.run(builtFPBench.path, arguments, timeout: 30, keepErrors: true)
            #expect(!run.timedOut && run.status != 0, "\(arguments) \(run.ending)")
            #expect(run.errors.contains("p.wav"), "\(arguments): \(run.errors)")
        }
        #expect(throws: (any Error).self) { try sha256Hex(file: pipe) }
        #expect(RegularFile.contents(pipe) == nil && RegularFile.openForReading(pipe) == -1)
    }

    /// 10, 11: parameters whose search or memory grows without bound are refused with the reason.
    @Test(arguments: [("panako", "maximumTimeFactor", "65536"), ("quads", "maximumTimeFactor", "3"), ("panako", "minimumTimeFactor", "0.01"),
                      ("panako", "lowestFrequency", "1e-10")])
    func unboundedParametersAreRefused(algorithm: String, parameter: String, value: String) throws {
        let base = try AlgorithmRegistry.algorithm(algorithm)
        #expect { try base.variant([(parameter, value)], identifier: "\(algorithm)@\(parameter)=\(value)") } throws: { "\($0)".contains(parameter) || "\($0)".contains("at least") }
    }

    /// 10: `compare` bounds a long query as `identify` does: its first two minutes, said.
    @Test func compareBoundsALongQuery() throws {
        let folder = temporaryFolder()
        var noise = SeededGenerator(seed: 3)
        let long = Audio(samples: (0..<(130 * 8000)).map { _ in Float.random(in: -0.3...0.3, using: &noise) }, sampleRate: 8000)
        try AudioWriter.write(long, to: folder.appendingPathComponent("long.wav").path)
        let run = try runFPBench(["compare", "-a", "constellation", folder.appendingPathComponent("long.wav").path, folder.appendingPathComponent("long.wav").path])
        #expect(run.status == 0 && run.errors.contains("compared on its first 120 s of 130.0 s") && run.output.contains("offset:     0.000 s"), "\(run.errors)")
    }

    /// 14: a grandchild that leaves the group and clears its environment is killed once the call is done, and
    /// a call still running when fpbench is killed dies with it.
    @Test func childrenNeverOutliveTheRun() throws {
        let marker = "302.\(getpid())", folder = temporaryFolder()
        func running(_ marker: String) -> Bool {
            ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).contains { pid in
                let command = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline").map { String(decoding: $0, as: UTF8.self) } ?? ""
                let state = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
                return command == "sleep\0\(marker)\0" && !state.contains(") Z ")
            }
        }
        func external(_ command: [String]) throws -> String {
            let file = folder.appendingPathComponent("\(command.count).json")
            let object: [String: Any] = ["identifier": "escapee", "displayName": "escapee", "sampleRate": 8000, "command": command, "output": "words",
                                         "compare": "bit-error-rate", "wordDuration": 0.1, "minimumDuration": 1, "berThreshold": 0.35, "install": "-", "parameters": []]
            try JSONSerialization.data(withJSONObject: object).write(to: file)
            return file.path
        }
        let audio = folder.appendingPathComponent("a.wav").path
        try AudioWriter.write(sine(frequency: 440, duration: 3, sampleRate: 8000), to: audio)
        let escapee = try external(["/bin/sh", "-c", "setsid env -i sleep \(marker) > /dev/null 2>&1 < /dev/null & sleep 0.2; echo 1 2 3 4 5 6 7 8 9 10", "{input}"])
        let done = try runFPBench(["fingerprint", "--external", escapee, "-a", "escapee", audio])
        #expect(done.status == 0 && done.output.contains("sub-fingerprints:  10"), "\(done.errors)")
        var waited = 0
        while running(marker) && waited < 50 { usleep(100_000); waited += 1 }
        #expect(!running(marker), "the daemon that cleared its environment survived the run")

        let slow = "303.\(getpid())"
        let process = Process()
        process.executableURL = builtFPBench
        process.arguments = ["fingerprint", "--external", try external(["/bin/sh", "-c", "exec sleep \(slow)", "{input}"]), "-a", "escapee", audio]
        process.standardError = FileHandle.nullDevice
        try start(process)
        waited = 0
        while !running(slow) && waited < 100 { usleep(100_000); waited += 1 }
        #expect(running(slow))
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        waited = 0
        while running(slow) && waited < 50 { usleep(100_000); waited += 1 }
        #expect(!running(slow), "the call outlived a killed fpbench")
    }

    /// 16: a degraded query's cache key holds the degradations' revision.
    @Test func aDegradedQuerysKeyHoldsTheDegradationRevision() throws {
        let dataset = try Dataset.load(repositoryRoot.appendingPathComponent("Datasets/catalog-ci/manifest.json").path)
        let keys = ContentKeys(dataset: dataset, seed: 1)
        let query = BenchmarkQuery(id: "q", length: 1, file: "a.wav", start: 0, negative: false)
        #expect(keys.benchmarkQuery(query, condition: BenchmarkSpec.standardConditions[1], seed: 1).hasSuffix("|degradations \(degradationRevision)"))
    }

    /// 2: a benchmark condition's id names files, so it is a safe name as a suite test's is; 11: a suite holds a
    /// bounded number of tests.
    @Test func conditionIdsAreSafeNamesAndSuitesAreBounded() throws {
        var spec = BenchmarkSpec()
        for id in ["../../../../../ESCAPED-cond", "../../evil", "-x", ".hidden", "a/b"] {
            spec.conditions = [BenchmarkCondition(id: id, title: "x")]
            #expect { try spec.validate(path: "spec.json") } throws: { "\($0)".contains("is not a safe file name") }
        }
        let file = temporaryFolder().appendingPathComponent("suite.json")
        let tests = (0...SuiteEvaluation.Suite.maximumTests).map { #"{"id": "t\#($0)", "title": "t", "kind": "cropping"}"# }.joined(separator: ",")
        try Data(#"{"name": "big", "tests": [\#(tests)]}"#.utf8).write(to: file)
        #expect { try SuiteEvaluation.Suite.load(file.path) } throws: { "\($0)".contains("a suite holds at most \(SuiteEvaluation.Suite.maximumTests)") }
    }

    /// 15: the smaller cases, each named: a huge whole number in a file, a seed that is not whole, a named
    /// variant changed as `--set` names it, one byte appended to an index file, a user's own summary.md in --out,
    /// and query lengths no track is long enough for.
    @Test func theSmallerCasesAreNamed() throws {
        let folder = temporaryFolder()
        let suite = folder.appendingPathComponent("s.json")
        try Data(#"{"name": "x", "tests": [{"id": "t2", "title": "t", "kind": "different-recording", "alternate": 1e30}]}"#.utf8).write(to: suite)
        #expect { try SuiteEvaluation.Suite.load(suite.path) } throws: { "\($0)".contains("tests[0].alternate: 1e+30 is too large for a whole number") }
        #expect { try JSONDecoder().decode(StageSpec.self, from: Data(#"{"room": {"seed": 1.5}}"#.utf8)) } throws: { "\($0)".contains("whole number") }
        let twice = try runFPBench(["fingerprint", "-a", "constellation", "--set", "constellation.fanOut=3", "--set", "constellation.fanOut=5",
                                    repositoryRoot.appendingPathComponent("Datasets/ci/audio/birds/finch-348.wav").path])
        #expect(twice.status != 0 && twice.errors.contains("--set constellation.fanOut is given twice"), "\(twice.errors)")
        let changed = try AlgorithmRegistry.algorithm("constellation@large@fanOut=5")
        #expect(changed.identifier == "constellation@large@fanOut=5")

        let index = folder.appendingPathComponent("t.fpindex").path, drascula = repositoryRoot.appendingPathComponent("Datasets/catalog-ci/audio/drascula").path
        #expect(try runFPBench(["index", "build", "-a", "constellation", "--catalog", drascula, "--out", index]).status == 0)
        #expect(try runFPBench(["index", "verify", index]).status == 0)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: index))
        try handle.seekToEnd(); try handle.write(contentsOf: Data([0x78])); try handle.close()
        let verify = try runFPBench(["index", "verify", index])
        #expect(verify.status != 0 && verify.errors.contains("1 bytes after its last section"), "\(verify.errors)")

        let out = folder.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        try Data("my own notes\n".utf8).write(to: out.appendingPathComponent("summary.md"))
        let run = try runFPBench(["benchmark", "--dataset", "catalog-ci", "--algorithms", "constellation", "--lengths", "5", "--queries", "2",
                                  "--negatives", "4", "--conditions", "clean", "--no-cache", "--out", out.path])
        #expect(run.status != 0 && run.errors.contains("was not written by fpbench"), "\(run.errors)")
        #expect(try String(contentsOf: out.appendingPathComponent("summary.md"), encoding: .utf8) == "my own notes\n")
        let long = try runFPBench(["benchmark", "--dataset", "catalog-ci", "--algorithms", "constellation", "--lengths", "500", "--no-cache",
                                   "--out", folder.appendingPathComponent("long").path])
        #expect(long.status != 0 && long.errors.contains("no query or no negative query of 500 s can be cut"), "\(long.errors)")
    }
}
