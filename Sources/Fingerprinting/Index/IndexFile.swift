import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A catalog on disk, memory-mapped when read, so a catalog larger than memory still answers queries
/// (the operating system pages in the postings a query touches). The format, little-endian:
///
///     "FPBENCH-INDEX v4" (16 bytes) · header length (UInt64) · header checksum (UInt64) · header (JSON) · sections
///
/// The header names the algorithm (identifier, revision, profile), the references with their durations
/// and, where known, their audio files' SHA-256, and each section's place (offset from the body's start,
/// 8-byte aligned, length in bytes) and checksum. Sections hold raw arrays (an index's postings, its
/// directory, its layout) and the references' fingerprints (in the compact form the fingerprint cache
/// stores, `CompactCoding`), read only when a candidate is verified. A section an index reads piecemeal
/// (the postings' entries) also has a checksum per 512-byte block, in a section of its own (`NAME#blocks`).
///
/// What is read is verified first (`Reader`): the header when the file is opened, every other section
/// when it is first read, and a section of blocks block by block as queries touch it, so opening a large
/// file does not read all of it; `Reader.verifyAll` (`fpbench index verify`) checks every byte. Damage
/// is refused naming the file and the section. Older versions are refused with the reason.
public enum IndexFile {
    static let magic = Array("FPBENCH-INDEX v4".utf8)
    static let prefixLength = 32
    /// Bytes per checksummed block of a section read piecemeal. A lookup reads a cache line or two of a
    /// block and its verification all of it, so small blocks keep a query's verification cheap: one 10 s
    /// Haitsma-Kalker query on 13 h touches about half the postings' blocks; with 4 KiB blocks a query
    /// cost 5-9 ms more, with 1 KiB 7 ms more for Haitsma-Kalker, with 512 or 256 bytes 4 ms (measured
    /// with `identify --index`). 8 bytes of checksum per block: 1.6 % of the postings.
    static let blockSize = 512

    public struct Section: Codable, Sendable, Equatable {
        public var offset: Int
        public var length: Int
        public var checksum: String
    }

    public struct Header: Codable, Sendable {
        public var algorithm: String
        public var revision: Int
        public var profile: String
        public var references: [String]
        public var durations: [Double]
        /// Each reference's audio file's SHA-256 (empty where it was not known when the index was built).
        public var checksums: [String]
        /// Scalars an index keeps beside its arrays (a time step, a bucket shift).
        public var values: [String: Double]
        public var sections: [String: Section]
        /// The "no match" threshold calibrated on negatives (`index build --negatives`), or nil.
        public var calibration: Calibration?
    }

    /// Collects sections, then writes the file atomically.
    public struct Writer {
        var header: Header
        private var body = Data()

        init(algorithm: AnyAlgorithm, references: [String], durations: [Double], checksums: [String], calibration: Calibration?) {
            header = Header(algorithm: algorithm.identifier, revision: algorithm.revision, profile: algorithm.profile.key,
                            references: references, durations: durations, checksums: checksums, values: [:], sections: [:],
                            calibration: calibration)
        }

        mutating func add<T: BitwiseCopyable>(_ name: String, _ values: UnsafeBufferPointer<T>) {
            add(name, Data(buffer: values))
        }

        /// A section read piecemeal: its blocks' checksums go into `NAME#blocks`.
        mutating func addBlocks<T: BitwiseCopyable>(_ name: String, _ values: UnsafeBufferPointer<T>) {
            let data = Data(buffer: values)
            let sums = data.withUnsafeBytes { bytes in
                stride(from: 0, to: bytes.count, by: IndexFile.blockSize).map {
                    Checksum.of(UnsafeRawBufferPointer(rebasing: bytes[$0..<min($0 + IndexFile.blockSize, bytes.count)])).littleEndian
                }
            }
            add(name, data)
            sums.withUnsafeBufferPointer { add(name + "#blocks", $0) }
        }

        mutating func add(_ name: String, _ data: Data) {
            while body.count % 8 != 0 { body.append(0) }
            header.sections[name] = Section(offset: body.count, length: data.count, checksum: Checksum.hex(data))
            body.append(data)
        }

        mutating func set(_ name: String, _ value: Double) { header.values[name] = value }

        func write(to path: String) throws {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            var json = try encoder.encode(header)
            while (IndexFile.prefixLength + json.count) % 8 != 0 { json.append(0x20) }
            var file = Data(IndexFile.magic)
            withUnsafeBytes(of: UInt64(json.count).littleEndian) { file.append(contentsOf: $0) }
            withUnsafeBytes(of: Checksum.of(json).littleEndian) { file.append(contentsOf: $0) }
            file.append(json)
            file.append(body)
            try IndexFile.replace(path, with: file)
        }
    }

    /// Writes `data` through `.NAME.PID.part` beside `path` and renames it into place, so a reader sees the old
    /// file or the new one. A part left by a process that was killed (its PID gone) is removed first; a
    /// failure (a full disk) names the file and the system's reason, and leaves no part behind.
    static func replace(_ path: String, with data: Data) throws {
        let url = URL(fileURLWithPath: path), folder = url.deletingLastPathComponent(), name = url.lastPathComponent
        for leftover in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        where leftover.hasPrefix(".\(name).") && leftover.hasSuffix(".part") {
            guard let pid = pid_t(leftover.dropFirst(name.count + 2).dropLast(5)), kill(pid, 0) == -1, errno == ESRCH else { continue }
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(leftover))
        }
        let part = folder.appendingPathComponent(".\(name).\(getpid()).part")
        do {
            try data.write(to: part)
            guard rename(part.path, path) == 0 else { throw NSError(domain: NSPOSIXErrorDomain, code: Int(errno)) }
        } catch {
            try? FileManager.default.removeItem(at: part)
            let posix = (error as NSError).domain == NSPOSIXErrorDomain ? (error as NSError).code
                : ((error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError)?.code
            throw IndexFileError(path: path, reason: "cannot be written: " + (posix.map { String(cString: strerror(Int32($0))) } ?? "\(error)"))
        }
    }

    /// Every place in the header fits the body (overflow-safe), and the references' lists agree.
    static func check(_ header: Header, bodyLength: Int, path: String) throws {
        func fail(_ reason: String) -> Error { IndexFileError(path: path, reason: "damaged: " + reason) }
        for (name, section) in header.sections {
            guard section.offset >= 0, section.length >= 0, section.offset % 8 == 0,
                  section.offset <= bodyLength, section.length <= bodyLength - section.offset else {
                throw fail("section \(name) lies outside the file (truncated?)")
            }
        }
        // Nothing after the last section but its padding to 8 bytes: bytes appended to the file are damage too.
        let end = header.sections.values.map { $0.offset + $0.length }.max() ?? 0
        guard bodyLength - end < 8 else { throw fail("\(bodyLength - end) bytes after its last section (appended to?)") }
        guard header.references.count == header.durations.count, header.references.count == header.checksums.count else {
            throw fail("its references, durations and checksums differ in number")
        }
        // A week per track is beyond any recording; larger is a damaged or forged header, not audio.
        guard header.durations.allSatisfy({ $0.isFinite && $0 >= 0 && $0 <= 604_800 }) else {
            throw fail("a reference's duration is not a number of seconds up to a week")
        }
        if let problem = header.calibration?.inconsistency { throw fail("its calibration: \(problem)") }
    }
}

public struct IndexFileError: Error, CustomStringConvertible {
    public var path: String
    public var reason: String
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }
    public var description: String { "\(path): \(reason)" }
}
