import AudioIO
import Fingerprinting
import Foundation

/// Fingerprints on disk, keyed by what determines them (the audio's content, or a file's checksum),
/// the algorithm, its revision, its profile and the role, so a second identical run (or a resumed one) reuses them.
/// Files are written atomically and sealed with a checksum (`Checksum`, 8 bytes after the compact
/// fingerprint): a damaged entry is discarded with a warning and recomputed, never trusted. A cache that
/// cannot be written costs speed, never a result.
package struct FingerprintCache: Sendable {
    /// Seconds after which a killed writer's temporary file is swept when a cache is opened: no write
    /// of one entry takes an hour, so a younger one may belong to a run still going.
    static let staleTemporaryAge = 3600.0
    package let folder: URL?

    /// Opens the cache, removing temporary files that writers killed more than an hour ago left behind
    /// (younger ones may belong to a run sharing the cache). A cache holds tens of thousands of files, so
    /// it is swept at most once an hour (the time of the last sweep is the `.swept` file's).
    package init(folder: URL?) {
        self.folder = folder
        guard let folder else { return }
        let marker = folder.appendingPathComponent(".swept")
        let swept = (try? FileManager.default.attributesOfItem(atPath: marker.path))?[.modificationDate] as? Date
        if swept.map({ Date().timeIntervalSince($0) >= 3600 }) ?? true {
            removeStaleTemporaries(in: folder, olderThan: Self.staleTemporaryAge)
            try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try? Data().write(to: marker)
        }
    }

    package func key(_ algorithm: AnyAlgorithm, role: FingerprintRole, contentKey: String) -> String {
        sha256Hex(Data("\(algorithm.identifier)|r\(algorithm.revision)|\(algorithm.profile.key)|\(role.rawValue)|\(contentKey)|\(DecoderLibrary.policy)|sealed".utf8))
    }

    private func file(_ algorithm: AnyAlgorithm, role: FingerprintRole, contentKey: String) -> URL? {
        folder?.appendingPathComponent(algorithm.identifier).appendingPathComponent(key(algorithm, role: role, contentKey: contentKey) + ".fpc")
    }

    package func load(_ algorithm: AnyAlgorithm, role: FingerprintRole, contentKey: String) -> AnyFingerprint? {
        guard let file = file(algorithm, role: role, contentKey: contentKey),
              let data = RegularFile.contents(file.path) else { return nil }
        let payload = data.prefix(max(0, data.count - 8))
        guard data.count >= 8, Checksum.of(payload) == UInt64(littleEndian: data.suffix(8).withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }),
              let print = try? algorithm.decode(Data(payload), as: .compact) else {
            Console.warning("fingerprint cache entry \(file.path) is damaged (its checksum does not match); discarded, the fingerprint is made again")
            try? FileManager.default.removeItem(at: file)
            return nil
        }
        return print
    }

    /// Stores a fingerprint; a failure (a full disk, a read-only folder) is reported once, not thrown.
    package func store(_ print: AnyFingerprint, _ algorithm: AnyAlgorithm, role: FingerprintRole, contentKey: String) {
        guard let file = file(algorithm, role: role, contentKey: contentKey) else { return }
        do {
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            var sealed = try algorithm.encode(print, as: .compact)
            withUnsafeBytes(of: Checksum.of(sealed).littleEndian) { sealed.append(contentsOf: $0) }
            try Self.replace(file, with: sealed)
        } catch {
            Console.warning(once: "cache unwritable", "fingerprint cache \(folder!.path) cannot be written (\(error.localizedDescription)); going on without it")
        }
    }

    /// Writes `data` to a temporary file beside `file`, then renames it over `file`: a reader sees the old entry
    /// or the new one, never part of one. Not synced to the disk (Foundation's `.atomic` syncs every file,
    /// which held a cold benchmark's threads on the disk tens of thousands of times): an entry a crash cuts
    /// short fails its checksum and is made again. The temporary's name is the one the sweep removes.
    static func replace(_ file: URL, with data: Data) throws {
        let temporary = file.deletingLastPathComponent().appendingPathComponent(".dat.nosync.\(UUID().uuidString)")
        try data.write(to: temporary)
        guard rename(temporary.path, file.path) == 0 else {
            let error = POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
    }

    /// The cached fingerprint, or one made from `audio()` (called only on a miss) and stored.
    package func fingerprint(_ algorithm: AnyAlgorithm, role: FingerprintRole, contentKey: String, audio: () throws -> Audio) throws -> AnyFingerprint {
        if let cached = load(algorithm, role: role, contentKey: contentKey) { return cached }
        let print = try algorithm.fingerprint(audio().resampled(to: algorithm.sampleRate), role: role)
        store(print, algorithm, role: role, contentKey: contentKey)
        return print
    }
}

/// Removes, below `folder`, the temporary files Foundation's atomic writes leave when their process is
/// killed (".dat.nosync…") that are older than `age` seconds.
public func removeStaleTemporaries(in folder: URL, olderThan age: TimeInterval) {
    let fm = FileManager.default
    guard let files = fm.enumerator(at: folder, includingPropertiesForKeys: [.contentModificationDateKey]) else { return }
    let now = Date()
    for case let file as URL in files where file.lastPathComponent.hasPrefix(".dat.nosync") {
        let modified = (try? file.resourceValues(forKeys: [.contentModificationDateKey]))?.contentModificationDate ?? now
        if now.timeIntervalSince(modified) >= age { try? fm.removeItem(at: file) }
    }
}
