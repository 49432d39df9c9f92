import AudioIO
import Fingerprinting
import Foundation

/// Fingerprints on disk, keyed by the audio's content, the algorithm, its profile and the role, so a
/// second identical run (or a resumed one) reuses them. Files are written atomically.
struct FingerprintCache: Sendable {
    let folder: URL?

    func key(_ algorithm: AnyAlgorithm, role: FingerprintRole, audioDigest: String) -> String {
        sha256Hex(Data("\(algorithm.identifier)|\(algorithm.profile.key)|\(role.rawValue)|\(audioDigest)".utf8))
    }

    func fingerprint(_ algorithm: AnyAlgorithm, role: FingerprintRole, audio: Audio, audioDigest: String) throws -> AnyFingerprint {
        guard let folder else { return try algorithm.fingerprint(audio.resampled(to: algorithm.sampleRate), role: role) }
        let file = folder.appendingPathComponent(algorithm.identifier)
            .appendingPathComponent(key(algorithm, role: role, audioDigest: audioDigest) + ".json")
        if let data = FileManager.default.contents(atPath: file.path), let cached = try? algorithm.decode(data) {
            return cached
        }
        let print = try algorithm.fingerprint(audio.resampled(to: algorithm.sampleRate), role: role)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try algorithm.encode(print).write(to: file, options: .atomic)
        return print
    }
}

/// SHA-256 of the samples and rate: the audio's identity for the cache.
func digest(_ audio: Audio) -> String {
    var data = Data("\(audio.sampleRate)|".utf8)
    audio.samples.withUnsafeBytes { data.append(contentsOf: $0) }
    return sha256Hex(data)
}
