import CXXHash
import Foundation

/// The checksum fpbench seals what it writes and reads back with (index files' header and sections,
/// fingerprint cache entries, merge parts): XXH3, 64 bits (Debian's libxxhash), fast enough to verify a
/// whole index file every time it is opened. It guards against damage (a flipped bit, a truncated
/// copy, a hand edit), not against someone forging a file.
public enum Checksum {
    public static func of(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        XXH3_64bits(bytes.baseAddress, bytes.count)
    }

    public static func of(_ data: Data) -> UInt64 {
        data.withUnsafeBytes { of($0) }
    }

    /// 16 lowercase hex digits, as the JSON files hold it.
    public static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    public static func hex(_ data: Data) -> String { hex(of(data)) }
}
