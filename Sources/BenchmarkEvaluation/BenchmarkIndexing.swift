import AudioIO
import Degradation
import DSP
import Evaluation
import Fingerprinting
import Foundation

/// The benchmark's first phases: the readable files, the usable conditions, the index (files or built).
extension Benchmark {
    // MARK: Drawing the queries: the conditions they can run under

    /// The conditions whose recordings (noises, impulse responses) the run can have by its policy
    /// (`RunRecordings`: the dataset's, or the project's when borrowing); the others are left out, by name,
    /// or, when the policy refuses, the run is. Returns them and the recordings.
    func usableConditions(_ skipped: inout [Problem]) throws -> (conditions: [BenchmarkCondition], recordings: RunRecordings) {
        let c = configuration
        let recordings = RunRecordings(c.spec.conditions.flatMap(\.recordings), dataset: c.dataset, policy: c.missingRecordings,
                                       projectSet: c.projectSet)
        var conditions: [BenchmarkCondition] = [], refused: [String] = []
        for condition in c.spec.conditions {
            let missing = condition.recordings.compactMap { id in recordings.missing[id].map { "\(id) (\($0))" } }
            if missing.isEmpty { conditions.append(condition); continue }
            let reason = "needs " + missing.joined(separator: ", ")
            if c.missingRecordings == .refuse { refused.append("condition \(condition.id) \(reason)") }
            skipped.append(.init(item: "condition \(condition.id)", reason: reason))
        }
        guard refused.isEmpty else {
            throw DatasetError(path: c.dataset.manifestPath, reason: refused.joined(separator: "; ")
                               + ". Leave those conditions out (--conditions), or pass --missing-recordings leave-out or borrow")
        }
        return (conditions, recordings)
    }

    // MARK: Indexing

    /// Every catalog file loaded, by algorithm: each checked against its algorithm (identifier,
    /// revision, parameters) and this catalog's tracks, in order.
    func loadIndexFiles(algorithms: [AnyAlgorithm], tracks: [String]) throws -> [Int: (catalog: Catalog, loadSeconds: Double, fileBytes: Int)] {
        var loaded: [Int: (catalog: Catalog, loadSeconds: Double, fileBytes: Int)] = [:]
        for path in configuration.indexFiles {
            let header = try IndexFile.Reader(path: path).header
            guard let a = algorithms.firstIndex(where: { $0.identifier == header.algorithm }) else {
                throw IndexFileError(path: path, reason: "indexes \(header.algorithm), which this benchmark does not run (\(algorithms.map(\.identifier).joined(separator: ", ")))")
            }
            guard loaded[a] == nil else { throw IndexFileError(path: path, reason: "a second index file for \(header.algorithm)") }
            let clock = ContinuousClock.now
            let catalog = try Catalog(algorithm: algorithms[a], indexFile: path)
            guard catalog.names == tracks else {
                let first = zip(catalog.names, tracks).enumerated().first { $0.element.0 != $0.element.1 }
                let which = first.map { "; its track \($0.offset + 1) is \($0.element.0), the catalog's \($0.element.1)" } ?? ""
                throw IndexFileError(path: path, reason: "indexes other tracks than the dataset's catalog (\(catalog.names.count) against \(tracks.count)\(which)); rebuild it with `fpbench index build`")
            }
            for (track, checksum) in zip(tracks, catalog.checksums) where !checksum.isEmpty {
                if let recorded = configuration.dataset.recordedSHA256(track), recorded != checksum {
                    throw IndexFileError(path: path, reason: "indexes another version of \(track) (SHA-256 \(checksum.prefix(12)), the dataset records \(recorded.prefix(12))); rebuild it with `fpbench index build`")
                }
            }
            let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            loaded[a] = (catalog, (ContinuousClock.now - clock).seconds, bytes)
        }
        return loaded
    }
}
