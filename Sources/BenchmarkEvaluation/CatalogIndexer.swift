import AudioIO
import Evaluation
import Fingerprinting
import Foundation

/// A dataset's catalog through algorithms: each track fingerprinted once (or read from the cache), every
/// algorithm's catalog filled. What the benchmark, its catalog slices, the synthetic scale test and
/// `fpbench index build` share; it needs only the dataset, the threads and the cache.
public struct CatalogIndexer: Sendable {
    public var dataset: Dataset
    public var threads: Int
    public var cacheFolder: URL?

    public init(dataset: Dataset, threads: Int, cacheFolder: URL?) {
        self.dataset = dataset
        self.threads = threads
        self.cacheFolder = cacheFolder
    }

    /// One pass over tracks: each algorithm's fingerprints and CPU seconds, decoding per track, cache hits, failures.
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

    /// The dataset's catalog section indexed by every algorithm: each catalog names its references by their
    /// files; tracks that could not be read are listed.
    public func buildCatalogs(_ algorithms: [AnyAlgorithm], progress: ProgressReporter) throws -> (catalogs: [Catalog], failures: [Problem]) {
        var failures: [Problem] = []
        guard let section = dataset.manifest.catalog, !section.tracks.isEmpty else {
            throw DatasetError(path: dataset.manifestPath, reason: "no catalog section: an index needs whole tracks. " + Dataset.catalogHelp)
        }
        let (tracks, _) = readable(section.tracks, failures: &failures)
        progress.start("indexing", total: tracks.count)
        let indexed = index(tracks, algorithms: algorithms, progress: progress)
        progress.finish()
        for (t, failure) in indexed.failures { failures.append(.init(item: "catalog \(tracks[t])", reason: failure, file: tracks[t])) }
        let catalogs = algorithms.indices.map { a in
            Catalog(algorithm: algorithms[a], sealing: tracks.indices.lazy.map { (indexed.prints[a][$0], tracks[$0], indexed.checksums[$0]) })
        }
        return (catalogs, failures)
    }

    /// The files whose header can be read, with their durations; the others become failures.
    func readable(_ files: [String], failures: inout [Problem]) -> ([String], [Double]) {
        var kept: [String] = [], durations: [Double] = []
        for file in files {
            do {
                durations.append(try AudioReader.duration(dataset.path(file)))
                kept.append(file)
            } catch { failures.append(.init(item: file, reason: "\(error); left out", file: file)) }
        }
        return (kept, durations)
    }

    /// Every track through every algorithm: from the cache (keyed by the file's checksum) or from one
    /// decoding of the track, resampled once per distinct rate and streamed into every algorithm that
    /// lacks it (no track is held whole). Decoding's CPU time is the call's less the algorithms' own.
    func index(_ tracks: [String], algorithms all: [AnyAlgorithm], skipping: Set<Int> = [], progress: ProgressReporter) -> Indexed {
        let algorithms = all.enumerated().map { skipping.contains($0.offset) ? nil : $0.element }
        let cache = FingerprintCache(folder: cacheFolder)
        // The largest files first, so that no long track is left to one thread at the end.
        let sizes = tracks.map { (try? FileManager.default.attributesOfItem(atPath: dataset.path($0))[.size] as? Int) ?? 0 }
        let order = tracks.indices.sorted { sizes[$0] != sizes[$1] ? sizes[$0] > sizes[$1] : $0 < $1 }
        let perTrack = parallelMap(tracks.count, threads: threads, order: order) { t -> (prints: [Result<AnyFingerprint, Error>], cpu: [Double], decode: Double, cached: [Bool], checksum: String) in
            defer { progress.advance() }
            let path = dataset.path(tracks[t])
            let checksum: String
            do { checksum = try dataset.recordedSHA256(tracks[t]) ?? sha256Hex(file: path) } catch {
                return (algorithms.map { _ in .failure(error) }, algorithms.map { _ in 0 }, 0, algorithms.map { _ in false }, "")
            }
            let contentKey = "file:" + checksum
            let cached = algorithms.map { $0.flatMap { cache.load($0, role: .reference, contentKey: contentKey) } }
            // The algorithms without a cached fingerprint, from one decoding of the track.
            let missing = algorithms.indices.filter { algorithms[$0] != nil && cached[$0] == nil }
            var cpu = algorithms.map { _ in 0.0 }, decode = 0.0, shared = 0.0
            var made: [Int: Result<AnyFingerprint, Error>] = [:]
            if !missing.isEmpty {
                let start = threadCPUSeconds()
                do {
                    let fingerprinted = try AnyAlgorithm.fingerprints(file: path, algorithms: missing.map { algorithms[$0]! }, clock: threadCPUSeconds)
                    shared = fingerprinted.shared
                    for (a, result) in zip(missing, fingerprinted.results) {
                        made[a] = result.print
                        cpu[a] = result.seconds
                        if case .success(let print) = result.print { cache.store(print, algorithms[a]!, role: .reference, contentKey: contentKey) }
                    }
                } catch { for a in missing { made[a] = .failure(error) } }
                decode = max(0, threadCPUSeconds() - start - (cpu.reduce(0, +) - shared))
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
