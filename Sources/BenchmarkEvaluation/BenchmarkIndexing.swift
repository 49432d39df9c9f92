import AudioIO
import Degradation
import DSP
import Evaluation
import Fingerprinting
import Foundation

/// The benchmark's first phases: the readable files, the usable conditions, the index (files or built).
extension Benchmark {
    // MARK: Phase 1

    /// The files whose header can be read, with their durations; the others become failures.
    func readable(_ files: [String], failures: inout [Problem]) -> ([String], [Double]) {
        var kept: [String] = [], durations: [Double] = []
        for file in files {
            do {
                durations.append(try AudioReader.duration(configuration.dataset.path(file)))
                kept.append(file)
            } catch { failures.append(.init(item: file, reason: "\(error); left out of the benchmark", file: file)) }
        }
        return (kept, durations)
    }

    // MARK: Phase 2

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

    // MARK: Phase 3

    struct Indexed {
        var prints: [[AnyFingerprint?]]
        /// CPU seconds per algorithm and track (0 when it came from the cache), and decoding per track.
        var cpu: [[Double]]
        var decode: [Double]
        var fromCache: [Int]
        var failures: [(Int, String)]
        /// Each track's SHA-256 ("" where it could not be read).
        var checksums: [String]
    }

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

    /// Every track through every algorithm: from the cache (keyed by the file's checksum) or from one
    /// decoding of the track, resampled once per distinct rate and streamed into every algorithm that
    /// lacks it (no track is held whole). Decoding's CPU time is the call's less the algorithms' own.
    func indexCatalog(_ tracks: [String], algorithms all: [AnyAlgorithm], skipping: Set<Int> = [], progress: ProgressReporter) -> Indexed {
        let algorithms = all.enumerated().map { skipping.contains($0.offset) ? nil : $0.element }
        let c = configuration, cache = FingerprintCache(folder: c.cacheFolder)
        let perTrack = parallelMap(tracks.count, threads: c.threads) { t -> (prints: [Result<AnyFingerprint, Error>], cpu: [Double], decode: Double, cached: [Bool], checksum: String) in
            defer { progress.advance() }
            let path = c.dataset.path(tracks[t])
            let checksum: String
            do { checksum = try c.dataset.recordedSHA256(tracks[t]) ?? sha256Hex(file: path) } catch {
                return (algorithms.map { _ in .failure(error) }, algorithms.map { _ in 0 }, 0, algorithms.map { _ in false }, "")
            }
            let contentKey = "file:" + checksum
            let cached = algorithms.map { $0.flatMap { cache.load($0, role: .reference, contentKey: contentKey) } }
            // The algorithms without a cached fingerprint, from one decoding of the track.
            let missing = algorithms.indices.filter { algorithms[$0] != nil && cached[$0] == nil }
            var cpu = algorithms.map { _ in 0.0 }, decode = 0.0
            var made: [Int: Result<AnyFingerprint, Error>] = [:]
            if !missing.isEmpty {
                let start = threadCPUSeconds()
                do {
                    let results = try AnyAlgorithm.fingerprints(file: path, algorithms: missing.map { algorithms[$0]! }, clock: threadCPUSeconds)
                    for (a, result) in zip(missing, results) {
                        made[a] = result.print
                        cpu[a] = result.seconds
                        if case .success(let print) = result.print { cache.store(print, algorithms[a]!, role: .reference, contentKey: contentKey) }
                    }
                } catch { for a in missing { made[a] = .failure(error) } }
                decode = max(0, threadCPUSeconds() - start - cpu.reduce(0, +))
            }
            let prints = algorithms.indices.map { a -> Result<AnyFingerprint, Error> in
                guard algorithms[a] != nil else { return .failure(IndexFileError(path: tracks[t], reason: "indexed by a file")) }
                return cached[a].map { .success($0) } ?? made[a]!
            }
            return (prints, cpu, decode, cached.map { $0 != nil }, checksum)
        }
        var failures: [(Int, String)] = []
        for (t, track) in perTrack.enumerated() {
            // Which algorithms could not fingerprint it, and why: one reason when all failed alike (an unreadable
            // file), else each algorithm's (a track too quiet for one algorithm is not gone for the others).
            let failed = track.prints.indices.filter { algorithms[$0] != nil }.compactMap { a -> (String, String)? in
                if case .failure(let e) = track.prints[a] { return (algorithms[a]!.identifier, "\(e)") } else { return nil }
            }
            guard let first = failed.first else { continue }
            let everyOne = failed.count == algorithms.compactMap({ $0 }).count && failed.allSatisfy { $0.1 == first.1 }
            failures.append((t, everyOne ? first.1 : failed.map { "\($0.0): \($0.1)" }.joined(separator: "; ")))
        }
        return Indexed(prints: algorithms.indices.map { a in perTrack.map { try? $0.prints[a].get() } },
                       cpu: algorithms.indices.map { a in perTrack.map { $0.cpu[a] } }, decode: perTrack.map(\.decode),
                       fromCache: algorithms.indices.map { a in perTrack.filter { $0.cached[a] }.count },
                       failures: failures, checksums: perTrack.map(\.checksum))
    }
}
