import Crypto
import Foundation

/// SHA-256 as lowercase hex.
public func sha256Hex(_ data: Data) -> String {
    SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
}

/// SHA-256 of a file, streamed.
public func sha256Hex(file path: String) throws -> String {
    guard let handle = FileHandle(forReadingAtPath: path) else { throw CocoaError(.fileReadNoSuchFile) }
    defer { try? handle.close() }
    var hasher = SHA256()
    while let block = try handle.read(upToCount: 1 << 20), !block.isEmpty { hasher.update(data: block) }
    return hasher.finalize().map { String(format: "%02x", $0) }.joined()
}

/// A seed derived from a run seed and a path of names ("7/test3-noise/storm-petrel"): the first
/// 8 bytes of its SHA-256. Each query gets its own stream, whatever order the work runs in.
public func derivedSeed(_ seed: UInt64, _ names: String...) -> UInt64 {
    let digest = SHA256.hash(data: Data(([String(seed)] + names).joined(separator: "/").utf8))
    return digest.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
}
