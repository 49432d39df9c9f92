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

    /// The conditions whose recordings (noises, impulse responses) the dataset has, or else the
    /// project's own (`recordingsFallback`, checked against its manifest's checksums); others are
    /// skipped, by name. Returns them, the recordings, and those taken from the project's set.
    func usableConditions(_ skipped: inout [Problem], _ failures: inout [Problem])
        -> (conditions: [BenchmarkCondition], recordings: [String: Audio], borrowed: [BenchmarkResults.BorrowedRecording]) {
        let dataset = configuration.dataset, fallback = configuration.recordingsFallback
        func entry(_ id: String, in set: Dataset) -> NamedRecording? { (set.manifest.noises + set.manifest.impulseResponses).first { $0.id == id } }
        var recordings: [String: Audio] = [:], borrowed: [BenchmarkResults.BorrowedRecording] = []
        var conditions: [BenchmarkCondition] = []
        for condition in configuration.spec.conditions {
            var missing: [String] = []
            for id in condition.recordings where recordings[id] == nil {
                do {
                    if let own = entry(id, in: dataset) {
                        recordings[id] = try AudioReader.read(dataset.path(own.file), sampleRate: workingRate)
                    } else if let fallback, let theirs = entry(id, in: fallback) {
                        let path = fallback.path(theirs.file), checksum = try sha256Hex(file: path)
                        guard checksum == fallback.recordedSHA256(theirs.file) else {
                            missing.append("\(id) (the project's \(path) does not match its manifest's checksum)")
                            continue
                        }
                        recordings[id] = try AudioReader.read(path, sampleRate: workingRate)
                        borrowed.append(.init(id: id, dataset: fallback.manifest.name, file: theirs.file, sha256: checksum))
                    } else {
                        missing.append("\(id) (not in the dataset" + (fallback.map { ", nor in the project's \($0.manifest.name)" } ?? "") + ")")
                    }
                } catch { missing.append("\(id) (\(error))") }
            }
            if missing.isEmpty { conditions.append(condition) } else {
                skipped.append(.init(item: "condition \(condition.id)", reason: "needs \(missing.joined(separator: ", "))"))
            }
        }
        return (conditions, recordings, borrowed)
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
