import Fingerprinting
import Foundation

/// A catalog made from files (`index build`, `index add`, `identify`): each file fingerprinted, in parallel.
extension AudioFiles {
    /// One track of a catalog made from files: its fingerprint, named by its path, with its SHA-256.
    public struct Track {
        public var name: String
        public var fingerprint: AnyFingerprint
        public var checksum: String
    }

    /// `files` fingerprinted on `threads` workers, in order; those that could not be are returned with the reason.
    public static func tracks(_ algorithm: AnyAlgorithm, files: [String], threads: Int, progress: ProgressReporter) -> ([Track], [Problem]) {
        progress.start("fingerprinting tracks", total: files.count)
        let made = parallelMap(files.count, threads: threads) { i -> Result<Track, Error> in
            defer { progress.advance() }
            return Result { Track(name: files[i], fingerprint: try algorithm.fingerprint(file: files[i]), checksum: try sha256Hex(file: files[i])) }
        }
        progress.finish()
        var tracks: [Track] = [], failures: [Problem] = []
        for (file, result) in zip(files, made) {
            switch result {
            case .success(let track): tracks.append(track)
            case .failure(let error as FingerprintError):  // the audio is fine, this algorithm cannot use it: say which
                failures.append(.init(item: file, reason: "\(algorithm.identifier): \(error); left out of the index", file: file))
            case .failure(let error): failures.append(.init(item: file, reason: "\(error)", file: file))
            }
        }
        return (tracks, failures)
    }
}

extension Catalog {
    public func add(_ tracks: [AudioFiles.Track]) {
        for track in tracks { add(track.fingerprint, name: track.name, checksum: track.checksum) }
    }
}
