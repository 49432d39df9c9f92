import CCrypto
import AudioIO
import Foundation

/// An incremental SHA-256 (OpenSSL's EVP interface).
package struct SHA256Hasher {
    private let context: OpaquePointer

    package init() {
        context = EVP_MD_CTX_new()
        EVP_DigestInit_ex(context, EVP_sha256(), nil)
    }

    package func update(_ data: Data) {
        data.withUnsafeBytes { _ = EVP_DigestUpdate(context, $0.baseAddress, $0.count) }
    }

    /// The digest as lowercase hex; the hasher cannot be used afterwards.
    package func finalize() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        EVP_DigestFinal_ex(context, &digest, &length)
        EVP_MD_CTX_free(context)
        return digest
    }
}

private func hex(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    return String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
}

/// SHA-256 as lowercase hex.
public func sha256Hex(_ data: Data) -> String {
    let hasher = SHA256Hasher()
    hasher.update(data)
    return hex(hasher.finalize())
}

/// SHA-256 of a file, streamed.
public func sha256Hex(file path: String) throws -> String {
    guard let handle = RegularFile.handle(path) else {
        if FileManager.default.fileExists(atPath: path) { throw AudioError.unreadable(path: path, reason: "not a regular file (a pipe, a device or a folder)") }
        throw CocoaError(.fileReadNoSuchFile)
    }
    defer { try? handle.close() }
    let hasher = SHA256Hasher()
    while let block = try handle.read(upToCount: 1 << 20), !block.isEmpty { hasher.update(block) }
    return hex(hasher.finalize())
}

/// A seed derived from a run seed and a path of names ("7/test3-noise/storm-petrel"): the first
/// 8 bytes of its SHA-256. Each query gets its own stream, whatever order the work runs in.
public func derivedSeed(_ seed: UInt64, _ names: String...) -> UInt64 { derivedSeed(seed, names) }

public func derivedSeed(_ seed: UInt64, _ names: [String]) -> UInt64 {
    let hasher = SHA256Hasher()
    hasher.update(Data(([String(seed)] + names).joined(separator: "/").utf8))
    return hasher.finalize().prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
}
