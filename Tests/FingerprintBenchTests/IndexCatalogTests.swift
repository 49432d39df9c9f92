import AudioIO
import Fingerprinting
import Foundation
import Testing

/// Index files of any folder: a threshold calibrated on negatives travels with the index and decides
/// "no match"; an index grows to exactly what a fresh build of all its tracks is; silence is an answer.
@Suite struct IndexCatalogTests {
    let tracks = "Datasets/catalog-ci/audio/drascula", negatives = "Datasets/catalog-ci/audio/birds"

    /// `seconds` of `file` from `start` as a WAV in `folder`.
    func excerpt(_ file: String, start: Double, seconds: Double, in folder: URL, name: String) throws -> String {
        let audio = try AudioReader.read(repositoryRoot.appendingPathComponent(file).path, window: TimeWindow(start: start, duration: seconds))
        let path = folder.appendingPathComponent(name).path
        try AudioWriter.write(audio, to: path)
        return path
    }

    @Test func calibratedThresholdTravelsWithTheIndexAndDecidesNoMatch() throws {
        let folder = temporaryFolder(), index = folder.appendingPathComponent("c.fpindex").path
        let build = try runFPBench(["index", "build", "-a", "constellation", "--catalog", tracks, "--negatives", negatives,
                                    "--lengths", "5", "--negatives-per-length", "40", "--quiet", "--out", index])
        #expect(build.status == 0, "\(build.errors)")
        let info = try runFPBench(["index", "info", index])
        // 4 bird recordings of 14-23 s hold 13 windows of 5 s that do not overlap: 6 calibrate (2 recordings), 7 are held out (the other 2).
        #expect(info.output.contains("7 tracks") && info.output.contains("5 s queries: score > ") && info.output.contains("calibrated on 6 negatives")
                      && info.output.contains("negatives from 4 recordings, 2 held out") && info.output.contains("held out: 0 of 7"), "\(info.output)")
        #expect(info.output.contains("warning: calibrated on 2 negative recordings and held out on 2 (fewer than 20)"), "\(info.output)")
        #expect(build.errors.contains("warning: 5 s: the negative recordings hold 13 windows that do not overlap, not the 40 asked"), "\(build.errors)")
        let positive = try excerpt("\(tracks)/track12.ogg", start: 3, seconds: 5, in: folder, name: "positive.wav")
        let negative = try excerpt("\(negatives)/finch-348.wav", start: 1, seconds: 5, in: folder, name: "negative.wav")
        try AudioWriter.write(Audio(samples: [Float](repeating: 0, count: 44_100 * 5), sampleRate: 44_100), to: folder.appendingPathComponent("silent.wav").path)
        let silent = folder.appendingPathComponent("silent.wav").path
        let answer = try runFPBench(["identify", "-a", "constellation", "--index", index, "--quiet", "--", positive, negative, silent])
        #expect(answer.status == 0, "a silent query is an answer, not an error: \(answer.errors)")
        let blocks = answer.output.components(separatedBy: "\(folder.path)/")
        let said = { (name: String) in blocks.first { $0.hasPrefix(name) } ?? "" }
        #expect(said("positive.wav").contains("1. \(tracks)/track12.ogg"), "\(answer.output)")
        #expect(said("positive.wav").contains("calibrated for 5 s queries on 6 negatives"), "\(answer.output)")
        #expect(said("negative.wav").contains("no match"), "\(answer.output)")
        #expect(said("silent.wav").contains("no match (silent"), "\(answer.output)")
        #expect(!answer.errors.contains("not calibrated"), "\(answer.errors)")
        // The documented threshold says so once; a given threshold overrides the calibrated one.
        let documented = try runFPBench(["identify", "-a", "constellation", "--catalog", tracks, "--quiet", "--", positive])
        #expect(documented.errors.components(separatedBy: "not calibrated").count - 1 == 1, "\(documented.errors)")
        let strict = try runFPBench(["identify", "-a", "constellation", "--index", index, "--threshold", "0.99", "--quiet", "--", positive])
        #expect(strict.output.contains("no match (best: \(tracks)/track12.ogg") && strict.output.contains("(--threshold)"), "\(strict.output)")
        // For scripts (and Systems/fpbench): a header, one row per match above the threshold, none for "no match".
        let csv = try runFPBench(["identify", "-a", "constellation", "--index", index, "--format", "csv", "--quiet", "--", positive, negative, silent])
        #expect(csv.status == 0, "\(csv.errors)")
        let rows = csv.output.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        #expect(rows.first == ["query", "rank", "reference", "score", "offset_s", "raw_figure"])
        #expect(rows.dropFirst().first.map { Array($0.prefix(3)) } == [positive, "1", "\(tracks)/track12.ogg"], "\(csv.output)")
        #expect(abs((Double(rows[1][4]) ?? -1) - 3) <= 0.1, "the excerpt starts 3 s in")
        #expect(!rows.dropFirst().contains { $0[0] != positive }, "the negative and the silent query: no rows")
    }

    /// `benchmark --index` with an index of other audio, or of an algorithm it does not run, is refused before
    /// anything runs or is written, naming the index and the first track that differs.
    @Test func aBenchmarkRefusesAnIndexOfOtherAudio() throws {
        let folder = temporaryFolder(), other = folder.appendingPathComponent("other.fpindex").path, constellation = folder.appendingPathComponent("c.fpindex").path
        try #expect(runFPBench(["index", "build", "-a", "haitsma-kalker", "--catalog", "Datasets/ci/audio", "--quiet", "--out", other]).status == 0)
        try #expect(runFPBench(["index", "build", "-a", "constellation", "--dataset", "catalog-ci", "--quiet", "--out", constellation]).status == 0)
        for (index, reason) in [(other, "indexes other tracks than the dataset's catalog (4 against 7; its track 1 is Datasets/ci/audio/birds/finch-348.wav, the catalog's drascula/track10.ogg)"),
                                (constellation, "indexes constellation, which this benchmark does not run (haitsma-kalker)")] {
            let out = folder.appendingPathComponent(UUID().uuidString)
            let run = try runFPBench(["benchmark", "--dataset", "catalog-ci", "--index", index, "--algorithms", "haitsma-kalker", "--queries", "2",
                                      "--negatives", "2", "--lengths", "5", "--conditions", "clean", "--quiet", "--out", out.path])
            #expect(run.status != 0)
            #expect(run.errors.contains(index) && run.errors.contains(reason), "\(run.errors)")
            #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("results.json").path))
        }
    }

    @Test func addingTracksEqualsAFreshBuildOfAll() throws {
        let folder = temporaryFolder()
        let first = ["10", "11", "12", "13", "14"].map { "\(tracks)/track\($0).ogg" }, later = ["20", "21"].map { "\(tracks)/track\($0).ogg" }
        for algorithm in ["panako"] {  // its index caps keys common across the whole catalog (TimeLineIndex)
            let grown = folder.appendingPathComponent("\(algorithm)-grown.fpindex").path, fresh = folder.appendingPathComponent("\(algorithm)-fresh.fpindex").path
            let calibrate = ["--negatives", negatives, "--lengths", "2", "--negatives-per-length", "10", "--quiet"]
            try #expect(runFPBench(["index", "build", "-a", algorithm, "--catalog"] + first + calibrate + ["--out", grown]).status == 0)
            let add = try runFPBench(["index", "add", grown] + later + ["--quiet"])
            #expect(add.status == 0, "\(add.errors)")
            try #expect(runFPBench(["index", "build", "-a", algorithm, "--catalog", tracks] + calibrate + ["--out", fresh]).status == 0)
            try #expect(Data(contentsOf: URL(fileURLWithPath: grown)) == Data(contentsOf: URL(fileURLWithPath: fresh)), "\(algorithm): grown ≠ fresh")
            let again = try runFPBench(["index", "add", grown, later[0]])
            #expect(again.status != 0)
            #expect(again.errors.contains("is already in"), "\(again.errors)")
        }
    }

    /// Two `index add` on one file at once: the second waits for the first and then adds to what it wrote, so
    /// the file holds both additions (without the lock, one was lost and both said "6 tracks").
    @Test func twoAdditionsAtOnceKeepBoth() throws {
        let folder = temporaryFolder(), index = folder.appendingPathComponent("c.fpindex").path
        let first = ["10", "11", "12", "13", "14"].map { "\(tracks)/track\($0).ogg" }
        try #expect(runFPBench(["index", "build", "-a", "haitsma-kalker", "--catalog"] + first + ["--out", index, "--quiet"]).status == 0)
        let group = DispatchGroup()
        final class Box: @unchecked Sendable { var statuses: [Int32] = [] ; let lock = NSLock() }
        let box = Box()
        for track in ["20", "21"].map({ "\(tracks)/track\($0).ogg" }) {
            DispatchQueue.global().async(group: group) {
                let status = (try? runFPBench(["index", "add", index, track, "--quiet"]).status) ?? -1
                box.lock.withLock { box.statuses.append(status) }
            }
        }
        group.wait()
        #expect(box.statuses == [0, 0])
        let info = try runFPBench(["index", "info", index])
        #expect(info.output.contains("7 tracks"), "\(info.output)")
    }

    /// An unreadable negative is named and left out; the index is written, calibrated on the others, and the
    /// command ends with exit status 2 (it aborted the whole build, nothing written, as a usage error).
    @Test func anUnreadableNegativeIsLeftOutAndTheIndexWritten() throws {
        let folder = temporaryFolder(), index = folder.appendingPathComponent("c.fpindex").path
        let negativesFolder = folder.appendingPathComponent("negatives")
        try FileManager.default.createDirectory(at: negativesFolder, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: repositoryRoot.appendingPathComponent(negatives).path) {
            try FileManager.default.copyItem(at: repositoryRoot.appendingPathComponent(negatives).appendingPathComponent(name), to: negativesFolder.appendingPathComponent(name))
        }
        try Data("RIFF not really a wave file".utf8).write(to: negativesFolder.appendingPathComponent("broken.wav"))
        let build = try runFPBench(["index", "build", "-a", "haitsma-kalker", "--catalog", "\(tracks)/track10.ogg", "\(tracks)/track11.ogg",
                                    "--negatives", negativesFolder.path, "--lengths", "2", "--negatives-per-length", "10", "--out", index, "--quiet"])
        #expect(build.status == 2, "\(build.errors)")
        #expect(build.errors.contains("broken.wav: left out of the calibration"), "\(build.errors)")
        let info = try runFPBench(["index", "info", index])
        #expect(info.output.contains("negatives from 4 recordings"), "\(info.output)")
    }

    /// The holdout case of #41: one short, very quiet negative file (10.1 s) once gave 33 of 500 nearly identical
    /// 10 s windows and set the threshold. Windows of one recording no longer overlap, so it gives at most one
    /// per length, and the build warns, naming it.
    @Test func aShortQuietNegativeGivesOneWindowAndIsNamed() throws {
        let folder = temporaryFolder(), index = folder.appendingPathComponent("c.fpindex").path
        let negativesFolder = folder.appendingPathComponent("negatives")
        try FileManager.default.createDirectory(at: negativesFolder, withIntermediateDirectories: true)
        let birds = try FileManager.default.contentsOfDirectory(atPath: repositoryRoot.appendingPathComponent(negatives).path)
        for name in birds {
            try FileManager.default.copyItem(at: repositoryRoot.appendingPathComponent(negatives).appendingPathComponent(name), to: negativesFolder.appendingPathComponent(name))
        }
        var quiet = try AudioReader.read(repositoryRoot.appendingPathComponent("\(negatives)/\(birds.sorted()[0])").path, window: TimeWindow(start: 0, duration: 10.1))
        quiet.samples = quiet.samples.map { $0 * 0.01 }  // -40 dB
        try AudioWriter.write(quiet, to: negativesFolder.appendingPathComponent("quiet.wav").path)
        let build = try runFPBench(["index", "build", "-a", "constellation", "--catalog", tracks, "--negatives", negativesFolder.path,
                                    "--lengths", "5", "10", "--negatives-per-length", "100", "--out", index, "--quiet"])
        #expect(build.status == 0, "\(build.errors)")
        #expect(build.errors.contains("10 s: ") && build.errors.contains("barely longer than the query") && build.errors.contains("quiet.wav (10.1 s)"), "\(build.errors)")
        let calibration = try #require(IndexFile.Reader(path: index).header.calibration)
        let file = try #require(calibration.negativeFiles.firstIndex { $0.hasSuffix("quiet.wav") })
        for (length, most) in [(5.0, 2), (10.0, 1)] {
            let counts = try #require(calibration.lengths.first { $0.length == length }?.windowsPerFile)
            #expect(counts.count == calibration.negativeFiles.count)
            #expect(counts[file] >= 1 && counts[file] <= most, "\(length) s: \(counts)")
            #expect(counts[file] * 4 < counts.reduce(0, +), "\(length) s: \(counts)")  // far from dominating
        }
    }

    /// Bytes appended to an index file are damage: `index verify` said "ok" for 4,096 of them.
    @Test func bytesAppendedToAnIndexAreDamage() throws {
        let folder = temporaryFolder()
        for algorithm in ["haitsma-kalker", "constellation", "panako@dense", "waveprint"] {
            let index = folder.appendingPathComponent("\(algorithm).fpindex").path
            try #expect(runFPBench(["index", "build", "-a", algorithm, "--catalog", "\(tracks)/track10.ogg", "--out", index, "--quiet"]).status == 0)
            try #expect(runFPBench(["index", "verify", index]).status == 0, "\(algorithm)")
            let handle = try #require(FileHandle(forWritingAtPath: index))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(count: 4096))
            try handle.close()
            let verify = try runFPBench(["index", "verify", index])
            #expect(verify.status != 0, "\(algorithm)")
            #expect(verify.errors.contains("4096 bytes after its last section"), "\(verify.errors)")
        }
    }

    /// A query longer than two minutes is searched on its first two, and says so (an hour-long query kept
    /// panako@dense busy for 900 s and more); the answer is still the right track.
    @Test func aLongQueryIsSearchedOnItsFirstTwoMinutes() throws {
        let folder = temporaryFolder()
        let query = try excerpt("\(tracks)/track11.ogg", start: 0, seconds: 125, in: folder, name: "long.wav")
        let run = try runFPBench(["identify", "-a", "haitsma-kalker", "--catalog", tracks, "--quiet", "--", query])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.contains("(searched on its first 120 s of 125.0 s)"), "\(run.output)")
        #expect(run.output.contains("1. \(tracks)/track11.ogg"), "\(run.output)")
    }

    /// A track the algorithm cannot fingerprint (silence here) is named with the algorithm that could not, so it
    /// does not read as if the file were gone for every algorithm.
    @Test func aTrackAnAlgorithmCannotUseNamesTheAlgorithm() throws {
        let folder = temporaryFolder(), silent = folder.appendingPathComponent("silent.wav").path
        try AudioWriter.write(Audio(samples: [Float](repeating: 0, count: 44_100 * 5), sampleRate: 44_100), to: silent)
        let build = try runFPBench(["index", "build", "-a", "haitsma-kalker", "--catalog", "\(tracks)/track10.ogg", silent,
                                    "--out", folder.appendingPathComponent("i.fpindex").path, "--quiet"])
        #expect(build.status == 2, "\(build.errors)")
        #expect(build.errors.contains("silent.wav: haitsma-kalker: silent"), "\(build.errors)")
    }

    /// An index is written through a part named by its process and renamed into place: a part a killed build
    /// left is removed by the next write, and a finished write leaves nothing beside the index.
    @Test func aKilledBuildsPartIsRemovedByTheNextWrite() throws {
        let folder = temporaryFolder(), index = folder.appendingPathComponent("i.fpindex").path
        let leftover = folder.appendingPathComponent(".i.fpindex.999999999.part")
        try Data(count: 100).write(to: leftover)
        try #expect(runFPBench(["index", "build", "-a", "haitsma-kalker", "--catalog", "\(tracks)/track10.ogg", "--out", index, "--quiet"]).status == 0)
        try #expect(FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasSuffix(".lock") } == ["i.fpindex"])
    }

    /// `dataset init --catalog` decodes each file as it checksums it: one no library can read is named and left
    /// out of the manifest (exit status 2), not met by a run later.
    @Test func datasetInitLeavesOutAFileNoLibraryReads() throws {
        let folder = temporaryFolder(), music = folder.appendingPathComponent("music"), others = folder.appendingPathComponent("others")
        for sub in [music, others] { try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true) }
        for name in ["track10.ogg", "track11.ogg"] {
            try FileManager.default.copyItem(at: repositoryRoot.appendingPathComponent("\(tracks)/\(name)"), to: music.appendingPathComponent(name))
        }
        try FileManager.default.copyItem(at: repositoryRoot.appendingPathComponent("\(negatives)/finch-348.wav"), to: others.appendingPathComponent("finch.wav"))
        try Data("OggS but nothing after".utf8).write(to: music.appendingPathComponent("broken.ogg"))
        let made = try runFPBench(["dataset", "init", "--catalog", music.path, "--negatives", others.path])
        #expect(made.status == 2, "\(made.errors)")
        #expect(made.errors.contains("broken.ogg: left out of the manifest"), "\(made.errors)")
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: music.appendingPathComponent("manifest.json"))) as! [String: Any]
        #expect((manifest["catalog"] as! [String: Any])["tracks"] as! [String] == ["music/track10.ogg", "music/track11.ogg"])
    }
}
