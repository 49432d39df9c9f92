import AudioIO
import Degradation
import Foundation
import Sweeps
import Testing

/// End to end through the built `fpbench` executable, as a user runs it.
@Suite struct CommandLineTests {

    func fpbench(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) { try runFPBench(arguments) }

    @Test func infoPrintsGoodFilesAndNamesBadOnes() throws {
        let good = "Datasets/ci/audio/birds/petrel-XC663885.wav"
        let result = try fpbench(["info", good, "no/such/file.flac"])
        #expect(result.status == 1)
        #expect(result.output.contains("\(good): WAV (Microsoft) / Signed 16 bit PCM, 2 ch, 44100 Hz, 15.381 s"), "\(result.output)")
        #expect(result.errors.contains("no/such/file.flac: no such file"), "\(result.errors)")
    }

    @Test func runWritesTheReportAndReportRegeneratesIt() throws {
        let out = Scratch.path("fpbench-cli")
        let run = try fpbench(["run", "--dataset", "ci", "--algorithms", "haitsma-kalker", "--tests", "test1-cropping",
                               "--out", out.path, "--no-cache"])
        #expect(run.status == 0, "\(run.errors)")
        let summary = try String(contentsOf: out.appendingPathComponent("summary.md"), encoding: .utf8)
        #expect(summary.contains("| haitsma-kalker | [2/2 · "), "\(summary)")
        // The card names the command as typed, the checkout the binary was built in, the manifest and the seed.
        let card = try String(contentsOf: out.appendingPathComponent("reproduce.md"), encoding: .utf8)
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("results.json"))) as? [String: Any]
        let sha = try #require((manifest?["dataset"] as? [String: Any])?["manifestSHA256"] as? String)
        for part in ["run --dataset ci --algorithms haitsma-kalker --tests test1-cropping --out \(out.path) --no-cache", "manifest SHA-256 `\(sha)`",
                     "- seed ", "commit `", "| `haitsma-kalker` | sampleRate="] {
            #expect(card.contains(part), "reproduce.md lacks \(part):\n\(card)")
        }
        try FileManager.default.removeItem(at: out.appendingPathComponent("summary.md"))
        try #expect(fpbench(["report", out.appendingPathComponent("results.json").path]).status == 0)
        try #expect(String(contentsOf: out.appendingPathComponent("summary.md"), encoding: .utf8) == summary)
    }

    /// A suite whose playback test names a room the dataset lacks (a misspelt id) is refused before the run,
    /// naming the test, the id and what the dataset has, and nothing is written; with --missing-recordings
    /// leave-out it runs without that stage, marked in the tables (--allow-missing-stages, its older name, with borrow is refused).
    @Test func aMissingStageRecordingIsRefusedUnlessAllowed() throws {
        let folder = Scratch.path("fpbench-cli")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let suite = folder.appendingPathComponent("suite.json"), out = folder.appendingPathComponent("run")
        try Data("""
            {"name": "mine", "tests": [{"id": "street", "title": "playback in the street", "kind": "rerecorded-playback",
             "playback": {"room": "street-2", "loudspeakerBand": [150, 12000], "background": {"kind": "pink", "level": {"snr": {"dB": 30}}},
                          "microphoneBand": [100, 7000], "maximumDrift": 0, "maximumDelay": 0}}]}
            """.utf8).write(to: suite)
        let arguments = ["run", "--dataset", "ci", "--algorithms", "haitsma-kalker", "--suite", suite.path, "--out", out.path, "--no-cache"]
        let refused = try fpbench(arguments)
        #expect(refused.status == 1, "\(refused.errors)")
        #expect(refused.errors.contains("test 'street' names 'street-2': not in dataset 'ci', nor an audio file's path"), "\(refused.errors)")
        #expect(refused.errors.contains("its impulse responses: none"), "\(refused.errors)")
        #expect(!FileManager.default.fileExists(atPath: out.path))

        let both = try fpbench(arguments + ["--allow-missing-stages", "--missing-recordings", "borrow"])
        #expect(both.status == 64, "\(both.errors)")
        #expect(both.errors.contains("--allow-missing-stages is --missing-recordings leave-out"), "\(both.errors)")
        let allowed = try fpbench(arguments + ["--missing-recordings", "leave-out"])
        #expect(allowed.status == 0, "\(allowed.errors)")
        let summary = try String(contentsOf: out.appendingPathComponent("summary.md"), encoding: .utf8)
        #expect(summary.contains("| algorithm | street † |"), "\(summary)")
        #expect(summary.contains("† street ran without the stages that use 'street-2': not in the dataset"), "\(summary)")
        let matrix = try String(contentsOf: out.appendingPathComponent("matrices/haitsma-kalker/street.md"), encoding: .utf8)
        #expect(matrix.hasPrefix("# haitsma-kalker · playback in the street † (without the stages that use street-2"), "\(matrix)")
    }

    /// An operating-point sweep: an algorithm and an outside system each at two settings in one benchmark;
    /// the summary gets the operating section, operating.csv a row per point, the system its own index per
    /// setting; a --point that names nothing run, or one value, is refused before anything runs.
    @Test func anOperatingSweepRunsAlgorithmAndSystemSettingsSideBySide() throws {
        let out = Scratch.path("fpbench-cli")
        defer { try? FileManager.default.removeItem(at: out) }
        let base = ["sweep", "operating", "--dataset", "catalog-ci", "--lengths", "5", "--conditions", "clean", "--queries", "3", "--negatives", "10",
                    "--system", "Systems/envelope-example/envelope-example.json", "--out", out.path, "--no-cache", "--progress", "none"]
        let run = try fpbench(base + ["--point", "haitsma-kalker.hop=64,128", "--point", "envelope-example.frame_ms=100,200"])
        #expect(run.status == 0, "\(run.errors)")
        let summary = try String(contentsOf: out.appendingPathComponent("summary.md"), encoding: .utf8)
        #expect(summary.contains("## Operating points"), "\(summary)")
        #expect(summary.contains("| ≤ 16 MiB |"), "\(summary)")
        let rows = try String(contentsOf: out.appendingPathComponent("operating.csv"), encoding: .utf8).split(separator: "\n").dropFirst()
        #expect(rows.map { $0.split(separator: ",")[4] }.sorted() == ["envelope-example@frame_ms=100", "envelope-example@frame_ms=200", "haitsma-kalker@hop=128", "haitsma-kalker@hop=64"])
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("operating-size-5s-clean.svg").path))
        try #expect(FileManager.default.contentsOfDirectory(atPath: out.appendingPathComponent("systems").path).filter { $0.hasPrefix("envelope-example@") }.count == 2)

        let stray = try fpbench(base + ["--point", "olaf.filter_size_time=12,24"])
        #expect(stray.status == 64, "\(stray.errors)")
        #expect(stray.errors.contains("'olaf' is neither an algorithm (`fpbench algorithms`) nor a system given with --system (envelope-example)"), "\(stray.errors)")
        let misspelt = try fpbench(["benchmark", "--dataset", "catalog-ci", "--system", "Systems/envelope-example/envelope-example.json",
                                    "--set", "envelope-example.frames=200", "--out", out.appendingPathComponent("b").path])
        #expect(misspelt.errors.contains("envelope-example: no setting 'frames'; it takes frame_ms"), "\(misspelt.errors)")
        let single = try fpbench(base + ["--point", "haitsma-kalker.hop=64"])
        #expect(single.errors.contains("--point haitsma-kalker.hop=64: give at least two different values"), "\(single.errors)")
    }

    /// A skew sweep: haitsma-kalker's queries start on its 64-sample grid, then half a hop and a hop later;
    /// the answers expect exactly that offset, and skew.md has its row; a system without a hop is refused.
    @Test func aSkewSweepMovesQueriesByPartsOfAHop() throws {
        let out = Scratch.path("fpbench-cli")
        defer { try? FileManager.default.removeItem(at: out) }
        let run = try fpbench(["sweep", "skew", "--dataset", "catalog-ci", "--algorithms", "haitsma-kalker", "--steps", "2", "--lengths", "5",
                               "--conditions", "clean", "--queries", "4", "--negatives", "10", "--out", out.path, "--no-cache", "--progress", "none"])
        #expect(run.status == 0, "\(run.errors)")
        let skew = try String(contentsOf: out.appendingPathComponent("skew.md"), encoding: .utf8)
        #expect(skew.contains("| haitsma-kalker | 11.6 | "), "\(skew)")
        let rows = csvRows(try String(contentsOf: out.appendingPathComponent("haitsma-kalker/answers.csv"), encoding: .utf8))
        let header = rows[0], column = { (name: String) in header.firstIndex(of: name)! }
        let hop = 64.0 / 5512
        for (condition, share) in [("clean-skew-0of2", 0.0), ("clean-skew-1of2", 0.5), ("clean-skew-2of2", 1.0)] {
            let mine = rows.dropFirst().filter { $0[column("condition")] == condition }
            #expect(mine.count == 4, "\(condition)")
            for row in mine {
                let start = Double(row[column("truth_start_s")])!, expected = Double(row[column("expected_offset_s")])!
                // answers.csv writes six significant digits: within 2e-5 s, a small part of a 11.6 ms hop.
                #expect(abs((start / hop).rounded() * hop - start) <= 2e-5)
                #expect(abs(expected - start - (share * hop)) <= 2e-5, "\(condition)")
            }
        }
        let blind = try fpbench(["sweep", "skew", "--dataset", "catalog-ci", "--system", "Systems/envelope-example/envelope-example.json", "--out", out.path])
        #expect(blind.errors.contains("envelope-example has no hop to put queries on (its system file gives no frameHopSeconds)"), "\(blind.errors)")
    }

    /// A benchmark sweep refuses the suite sweep's options instead of ignoring them (each Slurm part of a
    /// `--shard`ed benchmark sweep used to do the whole sweep).
    @Test func aBenchmarkSweepRefusesTheSuitesOptions() throws {
        let refused = try fpbench(["sweep", "stage", "--unit", "speed", "--parameter", "factor", "--from", "0.9", "--to", "1.1", "--step", "0.1",
                                   "--benchmark", "--shard", "0/2", "--queries-per-source", "3"])
        #expect(refused.status == 64, "\(refused.errors)")
        #expect(refused.errors.contains("--shard, --queries-per-source are for the thesis suite's sweep"), "\(refused.errors)")
    }

    /// RFC 4180 read back: the rows of a CSV file as fields (quoted fields may hold commas and doubled quotes).
    func csvRows(_ text: String) -> [[String]] {
        var rows: [[String]] = [], row: [String] = [], field = "", quoted = false, previous: Character = " "
        for c in text {
            if quoted {
                if c == "\"" { quoted = false } else { field.append(c) }
            } else if c == "\"" {
                if previous == "\"" { field.append("\"") }
                quoted = true
            } else if c == "," { row.append(field); field = "" }
            else if c == "\n" { row.append(field); rows.append(row); row = []; field = "" }
            else { field.append(c) }
            previous = c
        }
        return rows
    }

    /// A variant with two changed parameters is one field of every CSV the benchmark writes; a benchmark
    /// whose every condition needs a recording the dataset lacks is refused with the reason, not a trap.
    @Test func benchmarkVariantsStayOneCSVFieldAndAllSkippedConditionsAreRefused() throws {
        let out = Scratch.path("fpbench-cli")
        defer { try? FileManager.default.removeItem(at: out) }
        let common = ["benchmark", "--dataset", "catalog-ci", "--algorithms", "haitsma-kalker", "--lengths", "5", "--queries", "2",
                      "--negatives", "2", "--no-cache", "--own-recordings-only", "--out", out.path]
        let run = try fpbench(common + ["--conditions", "clean", "--set", "haitsma-kalker.berThreshold=0.3", "--set", "haitsma-kalker.sampleRate=5000"])
        #expect(run.status == 0, "\(run.errors)")
        for name in ["answers.csv", "metrics.csv"] {
            let rows = csvRows(try String(contentsOf: out.appendingPathComponent(name), encoding: .utf8))
            #expect(rows.count > 2, "\(name)")
            #expect(Set(rows.map(\.count)) == [rows[0].count], "\(name): every row has the header's \(rows[0].count) fields")
            #expect(Set(rows.dropFirst().map { $0[0] }) == ["haitsma-kalker@berThreshold=0.3,sampleRate=5000"], "\(name)")
        }
        let card = try String(contentsOf: out.appendingPathComponent("reproduce.md"), encoding: .utf8)
        #expect(card.contains("--set haitsma-kalker.berThreshold=0.3") && card.contains("dataset `catalog-ci`"), "\(card)")
        for condition in ["babble-5dB", "playback"] {
            let refused = try fpbench(common + ["--conditions", condition])
            #expect(refused.status == 64, "\(condition): \(refused.errors)")  // a usage error, as any unusable dataset; before: 132, a trap
            #expect(refused.errors.contains("no condition can be run: condition \(condition) needs"), "\(refused.errors)")
            #expect(refused.errors.contains("(not in dataset 'catalog-ci', nor an audio file's path)"), "\(refused.errors)")
        }
    }

    @Test func unknownAlgorithmIsAClearUsageError() throws {
        let result = try fpbench(["compare", "-a", "nope", "a.wav", "b.wav"])
        #expect(result.status != 0)
        #expect(result.errors.contains("unknown algorithm 'nope'"), "\(result.errors)")
    }

    /// `bench -a A FILE` reads FILE as a second algorithm name: the error says so and how to write it.
    @Test func filesReadAsAlgorithmNamesAreNamed() throws {
        let file = repositoryRoot.appendingPathComponent("Datasets/ci/audio/birds/finch-348.wav").path
        let result = try fpbench(["bench", "--no-peer", "-a", "maa-thesis", file])
        #expect(result.status != 0)
        #expect(result.errors.contains("\(file) was read as an algorithm name"), "\(result.errors)")
    }

    /// A stage sweep over a two-sided unit takes negative levels, finds breaking points on both sides of
    /// the neutral level, and refuses a level the unit cannot take; a parameter sweep runs each variant.
    @Test func stageAndParameterSweeps() throws {
        let out = Scratch.path("fpbench-cli")
        let pitch = try fpbench(["sweep", "stage", "--unit", "pitch", "--parameter", "semitones", "--from", "-2", "--to", "2", "--step", "2",
                                 "--dataset", "ci", "--algorithms", "haitsma-kalker", "--out", out.path, "--no-cache"])
        #expect(pitch.status == 0, "\(pitch.errors)")
        let csv = try String(contentsOf: out.appendingPathComponent("sweep.csv"), encoding: .utf8)
        #expect(csv.split(separator: "\n").map { $0.split(separator: ",")[1] }.dropFirst() == ["-2", "0", "2"], "\(csv)")
        let md = try String(contentsOf: out.appendingPathComponent("sweep.md"), encoding: .utf8)
        #expect(md.contains("| haitsma-kalker | below |") && md.contains("| haitsma-kalker | above |"), "\(md)")

        let bad = try fpbench(["sweep", "stage", "--unit", "speed", "--parameter", "factor", "--from", "0.1", "--to", "1", "--step", "0.3",
                               "--dataset", "ci", "--out", out.path])
        #expect(bad.status != 0)
        #expect(bad.errors.contains("factor: must be within 0.25...4.0"), "\(bad.errors)")

        let variants = try fpbench(["sweep", "parameter", "--algorithm-parameter", "constellation.fanOut", "--values", "1", "5",
                                    "--dataset", "ci", "--test", "test1-cropping", "--out", out.path, "--no-cache"])
        #expect(variants.status == 0, "\(variants.errors)")
        let levels = try String(contentsOf: out.appendingPathComponent("sweep.csv"), encoding: .utf8).split(separator: "\n").dropFirst()
        #expect(levels.map { $0.split(separator: ",")[0...1].joined(separator: ",") } == ["constellation,1", "constellation,5"])
        let refused = try fpbench(["sweep", "parameter", "--algorithm-parameter", "constellation.fanOut", "--values", "0", "--dataset", "ci"])
        #expect(refused.errors.contains("fanOut=0: must be within"), "\(refused.errors)")

        let benchmark = try fpbench(["sweep", "stage", "--unit", "codec", "--parameter", "kbps", "--from", "32", "--to", "128", "--step", "96",
                                     "--benchmark", "--dataset", "catalog-ci", "--algorithms", "haitsma-kalker", "--queries", "4", "--negatives", "4",
                                     "--length", "5", "--out", out.path, "--no-cache"])
        #expect(benchmark.status == 0, "\(benchmark.errors)")
        let rows = try String(contentsOf: out.appendingPathComponent("sweep.csv"), encoding: .utf8).split(separator: "\n").dropFirst()
        #expect(rows.map { $0.split(separator: ",")[1] } == ["32", "128"])
        #expect(rows.allSatisfy { $0.split(separator: ",")[3] == "4" }, "four queries per level")
    }

    /// A sweep in two parts (algorithm i in part i mod 2), merged, is the whole sweep byte for byte.
    @Test func shardedSweepMergesIntoTheWholeSweep() throws {
        let out = Scratch.path("fpbench-cli")
        let sweep = ["sweep", "noise", "--dataset", "ci", "--algorithms", "haitsma-kalker", "chroma-baseline", "constellation",
                     "--from", "-30", "--to", "-10", "--step", "10", "--no-cache"]
        for part in 0..<2 {
            let run = try fpbench(sweep + ["--shard", "\(part)/2", "--out", out.appendingPathComponent("part-\(part)").path])
            #expect(run.status == 0, "\(run.errors)")
        }
        try #expect(fpbench(sweep + ["--out", out.appendingPathComponent("whole").path]).status == 0)
        let merge = try fpbench(["merge", out.appendingPathComponent("part-1/sweep.json").path, out.appendingPathComponent("part-0/sweep.json").path,
                                 "--out", out.appendingPathComponent("merged").path])
        #expect(merge.status == 0, "\(merge.errors)")
        for file in ["sweep.json", "sweep.md", "sweep.csv", "accuracy.svg"] {
            try #expect(Data(contentsOf: out.appendingPathComponent("whole/\(file)")) == Data(contentsOf: out.appendingPathComponent("merged/\(file)")), "\(file)")
        }
        let missing = try fpbench(["merge", out.appendingPathComponent("part-0/sweep.json").path, "--out", out.appendingPathComponent("m2").path])
        #expect(missing.errors.contains("part 1 of 2 missing"), "\(missing.errors)")
        // Folders name their parts; parts of different kinds are named as such.
        let folders = try fpbench(["merge", out.appendingPathComponent("part-0").path, out.appendingPathComponent("part-1").path,
                                   "--out", out.appendingPathComponent("m3").path])
        #expect(folders.status == 0, "\(folders.errors)")
        try #expect(Data(contentsOf: out.appendingPathComponent("whole/sweep.json")) == Data(contentsOf: out.appendingPathComponent("m3/sweep.json")))
        let results = out.appendingPathComponent("results.json")
        try Data(#"{"kind": "benchmark"}"#.utf8).write(to: results)
        let mixed = try fpbench(["merge", out.appendingPathComponent("part-0").path, results.path, "--out", out.appendingPathComponent("m4").path])
        #expect(mixed.errors.contains("is a sweep's sweep.json but \(results.path) is a benchmark's results.json"), "\(mixed.errors)")
        let empty = try fpbench(["merge", repositoryRoot.appendingPathComponent("Sources").path, "--out", out.appendingPathComponent("m5").path])
        #expect(empty.errors.contains("a folder with neither results.json nor sweep.json"), "\(empty.errors)")
    }

    /// A noise that is not audio is refused before the sweep runs; `datasets` counts a file a section
    /// uses but the file list leaves out.
    @Test func inputsThatWouldChangeTheExperimentAreRefused() throws {
        let folder = Scratch.path("fpbench-cli")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let text = folder.appendingPathComponent("noise.wav")
        try Data(String(repeating: "not audio ", count: 100).utf8).write(to: text)
        let sweep = try fpbench(["sweep", "noise", "--dataset", "ci", "--algorithms", "haitsma-kalker", "--kind", text.path,
                                 "--out", folder.appendingPathComponent("sweep").path, "--no-cache"])
        #expect(sweep.status != 0)
        #expect(sweep.errors.contains("cannot be read as audio"), "\(sweep.errors)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("sweep").path))

        var manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: repositoryRoot.appendingPathComponent("Datasets/ci/manifest.json"))) as! [String: Any]
        var sources = manifest["sources"] as! [[String: Any]]
        var reference = sources[0]["reference"] as! [String: Any]
        reference["file"] = "birds/gone.wav"
        sources[0]["reference"] = reference
        manifest["sources"] = sources
        manifest["audioRoot"] = repositoryRoot.appendingPathComponent("Datasets/ci/audio").path
        try JSONSerialization.data(withJSONObject: manifest).write(to: folder.appendingPathComponent("manifest.json"))
        let check = try fpbench(["datasets", folder.appendingPathComponent("manifest.json").path, "--quick"])
        #expect(check.status == 1, "\(check.output)")
        #expect(check.errors.contains("birds/gone.wav: missing (used by the manifest, not in its file list)"), "\(check.errors)")
    }

    @Test func sweepTakesNegativeLevelsAndRefusesBadGrids() throws {
        let out = Scratch.path("fpbench-cli")
        let sweep = try fpbench(["sweep", "noise", "--dataset", "ci", "--algorithms", "chroma-baseline", "--from", "-40", "--to", "-30",
                                 "--step", "10", "--out", out.path, "--no-cache"])
        #expect(sweep.status == 0, "\(sweep.errors)")
        try #expect(String(contentsOf: out.appendingPathComponent("sweep.md"), encoding: .utf8).contains("-40"))
        for (arguments, message) in [(["--step", "1e-300"], "at most 1000"), (["--from", "nan"], "finite"), (["--to", "inf"], "finite"),
                                     (["--tolerance", "0"], "--tolerance must be a positive number"), (["--kind", "nothing"], "--kind nothing"),
                                     (["--unit", "db"], "'dbfs' and 'snr'")] {
            let result = try fpbench(["sweep", "noise", "--dataset", "ci"] + arguments)
            #expect(result.status != 0, "\(arguments)")
            #expect(result.errors.contains(message), "\(arguments): \(result.errors)")
            #expect(!result.errors.contains("Backtrac"), "\(arguments) crashed")
        }
    }

    /// `sweep stage` takes a unit and its number from the registered units: help lists them, a unit without a
    /// number or a number the unit does not have is refused by name before any work.
    @Test func stageSweepsNameTheirUnitsAndNumbersFromTheRegistry() throws {
        let help = try fpbench(["sweep", "stage", "--help"])
        #expect(help.output.contains("bitcrush: bits") && help.output.contains("codec: kbps, compression"), "\(help.output)")
        for unit in StageUnits.all { #expect(help.output.contains(unit.name), "\(unit.name)") }
        for (arguments, message) in [(["--unit", "nope", "--parameter", "x"], "'nope' is invalid for '--unit <unit>'"),
                                     (["--unit", "codec", "--parameter", "hz"], "--unit codec sweeps kbps or compression, not 'hz'"),
                                     (["--unit", "preset", "--parameter", "hz"], "--unit preset has no number to sweep"),
                                     (["--unit", "codec", "--parameter", "kbps", "--format", "wma"], "'wma' is invalid for '--format <format>'")] {
            let result = try fpbench(["sweep", "stage", "--from", "1", "--to", "2", "--step", "1"] + arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.errors.contains(message), "\(arguments): \(result.errors)")
        }
    }

    /// Values that used to be taken and acted on silently are refused by name, with exit status 64 (usage).
    @Test func silentlyAcceptedValuesAreRefused() throws {
        let bird = "Datasets/ci/audio/birds/finch-348.wav"
        for (arguments, said) in [
            (["fingerprint", "-a", "constellation@fanOut=5,fanOut=6", bird], "fanOut is set twice"),
            (["benchmark", "--dataset", "catalog-ci", "--peer-tracks=-1"], "--peer-tracks must be 0 (off) or more, got -1"),
            (["benchmark", "--dataset", "catalog-ci", "--negatives", "0"], "negativesPerLength: 2 to 100,000"),
            // A negative number after an option is its value, refused for its own reason (the parser said "Missing value").
            (["benchmark", "--dataset", "catalog-ci", "--queries", "-3"], "queriesPerLength: 1 to 100,000"),
            (["benchmark", "--dataset", "catalog-ci", "--peer-tracks", "-1"], "--peer-tracks must be 0 (off) or more, got -1"),
            // ... and after other numbers of a list, a value of the same list (the parser said "Unknown option '-1'").
            (["benchmark", "--dataset", "catalog-ci", "--lengths", "5", "-1"], "queryLengths: each must be at least 0.1 s"),
        ] {
            let run = try fpbench(arguments)
            #expect(run.status == 64, "\(arguments): \(run.errors)")
            #expect(run.errors.contains(said), "\(arguments): \(run.errors)")
        }
        // A usage error shows the usage of the subcommand that refused it, not the top level's.
        let index = try fpbench(["index", "build", "-a", "haitsma-kalker", "--catalog", "/no/such/folder-fpbench", "--out", temporaryFolder().appendingPathComponent("x.fpindex").path])
        #expect(index.status == 64, "\(index.errors)")
        #expect(index.errors.contains("Usage: fpbench index build [<options>]") && index.errors.contains("See 'fpbench index build --help'"), "\(index.errors)")
        // A results file written by a later fpbench is refused, not read as if its fields meant the same.
        let newer = temporaryFolder().appendingPathComponent("sweep.json")
        var record = try JSONSerialization.jsonObject(with: Data(contentsOf: repositoryRoot.appendingPathComponent("Reports/sweep-noise/sweep.json"))) as! [String: Any]
        record["tool"] = "99.0.0"
        try JSONSerialization.data(withJSONObject: record).write(to: newer)
        let report = try fpbench(["report", newer.path])
        #expect(report.status == 64, "\(report.errors)")
        #expect(report.errors.contains("written by fpbench 99.0.0, newer than this fpbench"), "\(report.errors)")
        // Levels no query can be made at are named, not counted as measured (it said 100 levels and wrote 9).
        let sweep = try fpbench(["sweep", "length", "--dataset", "ci", "--algorithms", "haitsma-kalker", "--from", "8", "--to", "11", "--step", "1",
                                 "--out", temporaryFolder().path])
        #expect(sweep.status == 0, "\(sweep.errors)")
        #expect(sweep.errors.contains("no query could be made at 2 of the 4 levels (10, 11)") && sweep.errors.contains("2 levels measured"), "\(sweep.errors)")
    }

    /// Every results file is sealed: one whose scores were edited is refused by `report` and
    /// `compare-algorithms` (they printed the changed tables); one without a seal is read with a warning.
    @Test func anEditedResultsFileIsRefused() throws {
        let folder = temporaryFolder()
        let run = try fpbench(["run", "--dataset", "ci", "--algorithms", "haitsma-kalker", "constellation", "--tests", "test1-cropping", "test3-noise-3.16", "--out", folder.path, "--no-cache"])
        #expect(run.status == 0, "\(run.errors)")
        let file = folder.appendingPathComponent("results.json")
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.contains("\"seal\""))
        try #expect(fpbench(["report", file.path, "--out", temporaryFolder().path]).status == 0)
        // One score changed in its last digits: still valid JSON, still a results file, no longer what was written.
        let edited = temporaryFolder().appendingPathComponent("results.json")
        let range = try #require(text.range(of: #"0\.[0-9]{6}"#, options: .regularExpression))
        try text.replacingCharacters(in: range, with: "0.999999").write(to: edited, atomically: true, encoding: .utf8)
        for arguments in [["report", edited.path], ["compare-algorithms", "--baseline", "haitsma-kalker", "--candidate", "constellation", "--results", edited.path]] {
            let refused = try fpbench(arguments)
            #expect(refused.status == 64, "\(arguments): \(refused.errors)")
            #expect(refused.errors.contains("does not match its seal"), "\(refused.errors)")
        }
        var object = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as! [String: Any]
        object["seal"] = nil
        let unsealed = temporaryFolder().appendingPathComponent("results.json")
        try JSONSerialization.data(withJSONObject: object).write(to: unsealed)
        // A deleted seal is refused (an edited file would pass otherwise); an old file is read when asked for.
        let refused = try fpbench(["report", unsealed.path])
        #expect(refused.status == 64, "\(refused.errors)")
        #expect(refused.errors.contains("carries no seal") && refused.errors.contains("--unsealed"), "\(refused.errors)")
        let old = try fpbench(["report", unsealed.path, "--unsealed"])
        #expect(old.status == 0, "\(old.errors)")
        #expect(old.errors.contains("carries no seal"), "\(old.errors)")
    }
}

/// A fuzz target that stays: 50 seeded mutants of a small real file in each of nine containers (WAV,
/// AIFF, FLAC, Ogg Vorbis, Ogg Opus, MP3, AAC in M4A, Opus in WebM, FLAC in Matroska; bytes flipped, cut,
/// inserted), read by `info` and fingerprinted and searched by `identify`, each over every mutant
/// in one process. Both must end with status 0 or 1 (named errors), never a trap or a signal, within a
/// time bound; a crash is narrowed down to the files that cause it.
@Suite struct FuzzTests {

    /// Runs fpbench; nil status when it was killed for running past `seconds`.
    func run(_ arguments: [String], seconds: Double) throws -> (code: Int32?, signalled: Bool, errors: String) {
        let process = Process()
        process.executableURL = builtFPBench
        process.arguments = arguments
        let errors = Scratch.path("fuzz", ".txt")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: errors)
        try start(process)
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        let hung = process.isRunning
        if hung { process.terminate() }
        process.waitUntilExit()
        let text = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
        return (hung ? nil : process.terminationStatus, process.terminationReason == .uncaughtSignal, text)
    }

    @Test func mutatedAudioFilesNeverCrashOrHang() throws {
        let folder = Scratch.path("fpbench-fuzz")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let audio = try AudioReader.read(repositoryRoot.appendingPathComponent("Datasets/ci/audio/birds/finch-348.wav").path,
                                         window: TimeWindow(start: 1, duration: 3))
        var originals: [String: Data] = [:]
        for ext in ["wav", "ogg", "flac", "mp3"] {
            let path = folder.appendingPathComponent("original.\(ext)").path
            try AudioWriter.write(audio, to: path)
            originals[ext] = try Data(contentsOf: URL(fileURLWithPath: path))
        }
        // The containers libsndfile does not write, made by ffmpeg (scripts/test.sh installs it).
        let ffmpeg = try #require(DecodingTests.ffmpeg, "ffmpeg is not installed (scripts/setup.sh ffmpeg)")
        for (ext, codec) in [("aiff", "pcm_s16be"), ("opus", "libopus"), ("m4a", "aac"), ("webm", "libopus"), ("mkv", "flac")] {
            let path = folder.appendingPathComponent("original.\(ext)").path
            _ = try DecodingTests.run(ffmpeg, ["-v", "error", "-y", "-i", folder.appendingPathComponent("original.wav").path, "-c:a", codec, path])
            originals[ext] = try Data(contentsOf: URL(fileURLWithPath: path))
        }
        let kinds = originals.keys.sorted()
        // FPBENCH_FUZZ_SEED=N draws another campaign (a fresh seed finds what the pinned one cannot).
        var random = SeededGenerator(seed: UInt64(ProcessInfo.processInfo.environment["FPBENCH_FUZZ_SEED"] ?? "") ?? 2013)
        var mutants: [String] = []
        for index in 0..<(50 * kinds.count) {
            let ext = kinds[index % kinds.count]
            var data = originals[ext]!
            switch random.next(3) {
            case 0: for _ in 0...random.next(8) { data[random.next(data.count)] ^= UInt8(1 << random.next(8)) }
            case 1: data = data.prefix(random.next(data.count))
            default: data.insert(contentsOf: (0..<(1 + random.next(64))).map { _ in UInt8(random.next(256)) }, at: random.next(data.count))
            }
            let path = folder.appendingPathComponent("mutant-\(index).\(ext)").path
            try data.write(to: URL(fileURLWithPath: path))
            mutants.append(path)
        }
        let catalog = folder.appendingPathComponent("original.wav").path
        for command in [["info"], ["identify", "-a", "haitsma-kalker", "--catalog", catalog, "--"]] {
            let all = try run(command + mutants, seconds: 120)
            if all.code.map({ $0 == 0 || $0 == 1 }) == true, !all.signalled, !all.errors.contains("Backtrac") { continue }
            // Narrow it down: the mutants that crash or hang on their own.
            let culprits = try mutants.filter { path in
                let one = try run(command + [path], seconds: 20)
                return one.code.map { !($0 == 0 || $0 == 1) } ?? true || one.signalled || one.errors.contains("Backtrac")
            }
            Issue.record("\(command[0]) crashed or hung on: \(culprits.joined(separator: ", "))\n\(all.errors.suffix(2000))")
        }
    }
}

/// The real scheduler: scripts/slurm/local-cluster.sh starts a one-node Slurm cluster, runs a 4-part
/// benchmark and its merge as jobs, and compares the merged tables with an unsharded run. It needs
/// root and Debian (it installs slurm-wlm and munge); elsewhere the test says why it skips.
@Suite struct SlurmTests {
    @Test func fourPartsMergedBySlurmEqualTheUnshardedRun() throws {
        guard getuid() == 0 else { try unavailable("needs root: the script installs slurm-wlm and munge and starts their daemons") }
        guard FileManager.default.fileExists(atPath: "/etc/debian_version") else { try unavailable("needs Debian (slurm-wlm and munge from apt)") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [repositoryRoot.appendingPathComponent("scripts/slurm/local-cluster.sh").path]
        process.currentDirectoryURL = repositoryRoot
        process.environment = ProcessInfo.processInfo.environment.merging(["FPBENCH": builtFPBench.path]) { _, new in new }
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try start(process)
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        if process.terminationStatus == 77 { try unavailable(text.trimmingCharacters(in: .whitespacesAndNewlines)) }
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.contains("4 parts merged by Slurm equal the unsharded run"), "\(text)")
        #expect(text.contains("2 catalog slices x 2 query shards merged by Slurm equal the unsharded run"), "\(text)")
    }
}
