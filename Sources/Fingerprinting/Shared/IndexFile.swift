import Foundation

/// A catalog on disk, memory-mapped when read, so a catalog larger than memory still answers queries
/// (the operating system pages in the postings a query touches). The format, little-endian:
///
///     "FPBENCH-INDEX v3" (16 bytes) · header length (UInt64) · header checksum (UInt64) · header (JSON) · sections
///
/// The header names the algorithm (identifier, revision, profile), the references with their durations
/// and, where known, their audio files' SHA-256, and each section's place (offset from the body's start,
/// 8-byte aligned, length in bytes) and checksum. Sections hold raw arrays (an index's postings, its
/// directory, its layout) and the references' fingerprints (in the compact form the fingerprint cache
/// stores, `CompactCoding`), read only when a candidate is verified. Opening a file verifies the header's
/// and every section's checksum (`Checksum`), so a damaged file is refused naming the section, never
/// read. Older versions are refused with the reason.
public enum IndexFile {
    static let magic = Array("FPBENCH-INDEX v3".utf8)
    static let prefixLength = 32

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
            try file.write(to: URL(fileURLWithPath: path), options: .atomic)
        }
    }

    /// A mapped index file; sections are views of the mapping, valid while the reader lives.
    public final class Reader: @unchecked Sendable {
        public let header: Header
        public let path: String
        public let byteCount: Int
        private let base: UnsafeRawPointer
        private let bodyStart: Int

        public init(path: String) throws {
            self.path = path
            func fail(_ reason: String) -> Error { IndexFileError(path: path, reason: reason) }
            let fd = open(path, O_RDONLY)
            guard fd >= 0 else { throw fail(String(cString: strerror(errno))) }
            defer { close(fd) }
            var status = stat()
            guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { throw fail("not a regular file") }
            byteCount = Int(status.st_size)
            guard byteCount >= IndexFile.prefixLength else { throw fail("too short to be an index file (\(byteCount) bytes)") }
            // Every byte is read to verify its checksum, so the mapping is filled in one call (MAP_POPULATE),
            // not page fault by page fault: that is most of what opening costs.
            guard let mapped = mmap(nil, byteCount, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0), mapped != MAP_FAILED else {
                throw fail("cannot be mapped: \(String(cString: strerror(errno)))")
            }
            base = UnsafeRawPointer(mapped)
            do {
                let mark = Array(UnsafeRawBufferPointer(start: base, count: 16))
                guard mark == IndexFile.magic else {
                    guard mark.starts(with: IndexFile.magic.prefix(14)) else { throw fail("not an fpbench index file (no FPBENCH-INDEX mark)") }
                    // A version is "v" and digits; anything else in its place is damage.
                    guard mark[14] == UInt8(ascii: "v"), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(mark[15]) else {
                        throw fail("damaged: its FPBENCH-INDEX mark is broken (\(String(decoding: mark, as: UTF8.self))); rebuild it with `fpbench index build`")
                    }
                    throw fail("written by another version of fpbench (\(String(decoding: mark, as: UTF8.self)), this one reads v3); rebuild it with `fpbench index build`")
                }
                let stored = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
                guard let length = Int(exactly: stored), length > 0, length <= byteCount - IndexFile.prefixLength else {
                    throw fail("damaged: its header length \(stored) does not fit the file (\(byteCount) bytes)")
                }
                let json = UnsafeRawBufferPointer(start: base + IndexFile.prefixLength, count: length)
                guard Checksum.of(json) == UInt64(littleEndian: base.loadUnaligned(fromByteOffset: 24, as: UInt64.self)) else {
                    throw fail("damaged: the header's checksum does not match; rebuild it with `fpbench index build`")
                }
                do { header = try JSONDecoder().decode(Header.self, from: Data(json)) } catch { throw fail("damaged header: \(error)") }
                bodyStart = IndexFile.prefixLength + length
                try IndexFile.check(header, bodyLength: byteCount - bodyStart, path: path)
                for (name, section) in header.sections.sorted(by: { $0.key < $1.key }) {
                    let bytes = UnsafeRawBufferPointer(start: base + bodyStart + section.offset, count: section.length)
                    guard Checksum.hex(Checksum.of(bytes)) == section.checksum else {
                        throw fail("damaged: section \(name) does not match its checksum; rebuild it with `fpbench index build`")
                    }
                }
            } catch {
                munmap(UnsafeMutableRawPointer(mutating: base), byteCount)
                throw error
            }
        }

        deinit { munmap(UnsafeMutableRawPointer(mutating: base), byteCount) }

        /// The raw bytes of a section.
        public func bytes(_ name: String) throws -> UnsafeRawBufferPointer {
            guard let section = header.sections[name] else { throw IndexFileError(path: path, reason: "damaged: no section \(name)") }
            return UnsafeRawBufferPointer(start: base + bodyStart + section.offset, count: section.length)
        }

        /// A section as an array of `T` viewed in place (no copy).
        func array<T: BitwiseCopyable>(_ name: String, of type: T.Type) throws -> UnsafeBufferPointer<T> {
            let raw = try bytes(name)
            guard raw.count % MemoryLayout<T>.stride == 0 else { throw IndexFileError(path: path, reason: "damaged: section \(name) has a partial element") }
            return raw.count == 0 ? UnsafeBufferPointer(start: nil, count: 0) : raw.bindMemory(to: T.self)
        }

        /// A header value, refused unless it lies in `range` (and is whole, for `integer`).
        func value(_ name: String, in range: ClosedRange<Double>) throws -> Double {
            guard let value = header.values[name] else { throw IndexFileError(path: path, reason: "damaged: no value \(name)") }
            guard range.contains(value) else { throw IndexFileError(path: path, reason: "damaged: value \(name) = \(value) outside \(range)") }
            return value
        }

        func integer(_ name: String, in range: ClosedRange<Int>) throws -> Int {
            let value = try value(name, in: Double(range.lowerBound)...Double(range.upperBound))
            guard value == value.rounded() else { throw IndexFileError(path: path, reason: "damaged: value \(name) = \(value) is not whole") }
            return Int(value)
        }

        /// Seconds one index position stands for: positive and at most a minute.
        func step(_ name: String) throws -> Double { try value(name, in: 1e-6...60) }
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
        guard header.references.count == header.durations.count, header.references.count == header.checksums.count else {
            throw fail("its references, durations and checksums differ in number")
        }
        guard header.durations.allSatisfy({ $0.isFinite && $0 >= 0 }) else { throw fail("a reference's duration is not a number of seconds") }
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
