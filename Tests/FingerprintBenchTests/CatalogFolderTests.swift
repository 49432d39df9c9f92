import AudioIO
@testable import BenchmarkEvaluation
@testable import Evaluation
import Fingerprinting
import Foundation
@testable import SuiteEvaluation
import Testing

/// A user's own music as a benchmark's catalog: a folder of tracks with negatives (no manifest), or a
/// manifest written by `dataset init --catalog`; the noises and impulse responses it lacks come from the
/// project's set, named in the results, or the conditions are skipped with the reason.
@Suite(.serialized) struct CatalogFolderTests {
    /// catalog-ci's tracks nested a folder deep, its negatives in negatives/.
    private func musicFolder() throws -> URL {
        let source = try catalogCIDataset(), folder = temporaryFolder()
        let album = folder.appendingPathComponent("album"), negatives = folder.appendingPathComponent("negatives")
        for sub in [album, negatives] { try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true) }
        let section = source.manifest.catalog!
        for (i, track) in section.tracks.enumerated() {
            let target = (i % 2 == 0 ? album : folder).appendingPathComponent((track as NSString).lastPathComponent)
            try FileManager.default.copyItem(atPath: source.path(track), toPath: target.path)
        }
        for negative in section.negatives {
            try FileManager.default.copyItem(atPath: source.path(negative), toPath: negatives.appendingPathComponent((negative as NSString).lastPathComponent).path)
        }
        return folder
    }

    private func benchmark(_ dataset: Dataset, fallback: Dataset?, policy: MissingRecordingPolicy? = nil) throws -> BenchmarkResults {
        var spec = BenchmarkSpec()
        spec.queryLengths = [5]
        spec.queriesPerLength = 4
        spec.negativesPerLength = 4
        spec.conditions = spec.conditions.filter { ["clean", "babble-5dB"].contains($0.id) }
        var configuration = BenchmarkConfiguration(testSettings(dataset, [try AlgorithmRegistry.algorithm("constellation")], seed: 3, missing: .borrow),
                                                   spec: spec)
        configuration.missingRecordings = policy ?? (fallback == nil ? .leaveOut : .borrow)
        configuration.projectSet = { fallback }
        return try Benchmark(configuration).run().0
    }

    @Test func aFolderWithNegativesIsACatalogAndBorrowsWhatItLacks() throws {
        let folder = try musicFolder()
        let dataset = try Dataset.load(folder.path)
        let catalog = try #require(dataset.manifest.catalog)
        #expect(catalog.tracks.count == 7 && catalog.tracks.filter { $0.hasPrefix("album/") }.count == 4)
        #expect(catalog.negatives.count == 4 && catalog.negatives.allSatisfy { $0.hasPrefix("negatives/") })
        #expect(dataset.manifest.files.count == 11 && dataset.manifest.sources.isEmpty)
        for file in dataset.manifest.files { #expect(file.sha256 == (try sha256Hex(file: dataset.path(file.path)))) }

        let project = try projectSetStandIn(noise: "babble")
        let borrowing = try benchmark(dataset, fallback: project)
        #expect(borrowing.spec.conditions.map(\.id) == ["clean", "babble-5dB"] && borrowing.skipped.isEmpty)
        #expect(borrowing.catalog.borrowed == [.init(id: "babble", dataset: project.manifest.name, file: "noises/babble.wav",
                                                     sha256: try sha256Hex(file: project.path("noises/babble.wav")))])
        #expect(borrowing.answers.contains { $0.condition == "babble-5dB" && !$0.top.isEmpty })

        let alone = try benchmark(dataset, fallback: nil)
        #expect(alone.spec.conditions.map(\.id) == ["clean"] && alone.catalog.borrowed == nil)
        #expect(alone.skipped.map(\.reason) == ["needs babble (not in dataset '\(dataset.manifest.name)', nor an audio file's path)"])
        // The clean answers do not depend on where babble came from.
        #expect(alone.answers == borrowing.answers.filter { $0.condition == "clean" })

        // Refused: the run stops before it starts, naming the condition and the recording.
        #expect { try benchmark(dataset, fallback: nil, policy: .refuse) } throws: { "\($0)".contains("condition babble-5dB needs babble (not in dataset") }

        // A project recording that no longer matches its manifest is not used.
        try Data(repeating: 0, count: 64).write(to: URL(fileURLWithPath: project.path("noises/babble.wav")))
        let changed = try benchmark(dataset, fallback: project)
        #expect(changed.catalog.borrowed == nil && changed.skipped.first?.reason.contains("does not match its manifest's checksum") == true)
    }

    /// `dataset init --catalog TRACKS --negatives OTHERS` with the two in different places: paths relative
    /// to their common parent, and the same benchmark as the folder itself.
    @Test func aCatalogManifestFromTwoFoldersEqualsTheFolder() throws {
        let folder = try musicFolder()
        let elsewhere = temporaryFolder().appendingPathComponent("others")
        try FileManager.default.moveItem(at: folder.appendingPathComponent("negatives"), to: elsewhere)
        let target = temporaryFolder().appendingPathComponent("manifest.json")
        let manifest = try DatasetFolder.catalogManifest(tracks: folder, negatives: elsewhere, manifestFolder: target.deletingLastPathComponent())
        let root = try #require(manifest.audioRoot)
        #expect(root == Scratch.root.standardizedFileURL.path)  // the two folders' common parent
        #expect(manifest.catalog!.negatives.allSatisfy { $0.hasPrefix(elsewhere.deletingLastPathComponent().lastPathComponent + "/others/") })
        try JSONEncoder().encode(manifest).write(to: target)
        let written = try Dataset.load(target.path)
        #expect(written.manifest.catalog == manifest.catalog)
        #expect { try DatasetFolder.catalogManifest(tracks: folder, negatives: temporaryFolder()) } throws: { "\($0)".contains("no audio files") }
    }
}

/// `fpbench datasets`' checks, in the library: the ci dataset as fetched is healthy; a changed checksum, a
/// window past its file's end and a file gone are each named, in the order found, and a run refuses on the same files.
@Suite struct DatasetHealthTests {
    @Test func eachProblemIsNamedAndCounted() throws {
        let dataset = try ciDataset()
        #expect(DatasetHealth(dataset, quick: false).problems.isEmpty)
        var damaged = dataset
        damaged.manifest.files[0].sha256 = String(repeating: "0", count: 64)
        damaged.manifest.sources[0].reference.duration = 10_000
        damaged.manifest.files.append(DatasetFile(path: "birds/gone.wav", sha256: nil))
        let health = DatasetHealth(damaged, quick: false)
        #expect((health.count(.corrupt), health.count(.misfit), health.count(.missing)) == (1, 1, 1), "\(health.problems.map(\.message))")
        #expect(health.problems.map(\.kind) == [.corrupt, .missing, .misfit])
        #expect(health.problems[1].message.hasSuffix("birds/gone.wav: missing"))
        // Quick: existence only.
        #expect(DatasetHealth(damaged, quick: true).problems.map(\.kind) == [.missing])
        // One set of rules: a run refuses on the same files (the windows are the run's own to measure).
        let refused = ChecksumCheck(dataset: damaged, cacheFolder: nil).problems()
        #expect(refused.map(\.item) == [damaged.manifest.files[0].path, "birds/gone.wav"])
        #expect(refused[0].reason.hasPrefix("SHA-256 differs") && refused[1].reason.hasPrefix("missing"))
    }
}
