import Foundation

/// A catalog on disk, memory-mapped when read, so a catalog larger than memory still answers queries
/// (the operating system pages in the postings a query touches). The format, little-endian:
///
///     "FPBENCH-INDEX v2" (16 bytes) · header length (UInt64) · header (JSON) · sections
///
/// The header names the algorithm (identifier, revision, profile), the references and their durations,
/// and each section's place (offset from the file's start, 8-byte aligned, and length in bytes). Sections
/// hold raw arrays (an index's postings, its directory, its layout) and the references' fingerprints
/// (in the compact form the fingerprint cache stores, `CompactCoding`), read only when a candidate is
/// verified. v1 files held the fingerprints as JSON and are refused with the reason.
public enum IndexFile {
    static let magic = Array("FPBENCH-INDEX v2".utf8)

    public struct Header: Codable, Sendable {
        public var algorithm: String
        public var revision: Int
        public var profile: String
        public var references: [String]
        public var durations: [Double]
        /// Scalars an index keeps beside its arrays (a time step, a bucket shift).
        public var values: [String: Double]
        public var sections: [String: [Int]]
    }

    /// Collects sections, then writes the file atomically.
    public struct Writer {
        var header: Header
        private var body = Data()

        init(algorithm: AnyAlgorithm, references: [String], durations: [Double]) {
            header = Header(algorithm: algorithm.identifier, revision: algorithm.revision, profile: algorithm.profile.key,
                            references: references, durations: durations, values: [:], sections: [:])
        }

        mutating func add<T: BitwiseCopyable>(_ name: String, _ values: UnsafeBufferPointer<T>) {
            add(name, Data(buffer: values))
        }

        mutating func add(_ name: String, _ data: Data) {
            while body.count % 8 != 0 { body.append(0) }
            header.sections[name] = [body.count, data.count]
            body.append(data)
        }

        mutating func set(_ name: String, _ value: Double) { header.values[name] = value }

        func write(to path: String) throws {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            var json = try encoder.encode(header)
            while (16 + 8 + json.count) % 8 != 0 { json.append(0x20) }
            let start = 16 + 8 + json.count
            // Section offsets are stored relative to the body; the reader adds `start`.
            var file = Data(IndexFile.magic)
            withUnsafeBytes(of: UInt64(json.count).littleEndian) { file.append(contentsOf: $0) }
            file.append(json)
            precondition(file.count == start)
            file.append(body)
            try file.write(to: URL(fileURLWithPath: path), options: .atomic)
        }
    }

    /// A mapped index file; sections are views of the mapping, valid while the reader lives.
    public final class Reader: @unchecked Sendable {
        public let header: Header
        public let byteCount: Int
        private let base: UnsafeRawPointer
        private let bodyStart: Int

        public init(path: String) throws {
            func fail(_ reason: String) -> Error { IndexFileError(path: path, reason: reason) }
            let fd = open(path, O_RDONLY)
            guard fd >= 0 else { throw fail(String(cString: strerror(errno))) }
            defer { close(fd) }
            var status = stat()
            guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { throw fail("not a regular file") }
            byteCount = Int(status.st_size)
            guard byteCount >= 24 else { throw fail("too short to be an index file (\(byteCount) bytes)") }
            guard let mapped = mmap(nil, byteCount, PROT_READ, MAP_PRIVATE, fd, 0), mapped != MAP_FAILED else {
                throw fail("cannot be mapped: \(String(cString: strerror(errno)))")
            }
            base = UnsafeRawPointer(mapped)
            do {
                let mark = Array(UnsafeRawBufferPointer(start: base, count: 16))
                guard mark == IndexFile.magic else {
                    guard mark.starts(with: IndexFile.magic.prefix(14)) else { throw fail("not an fpbench index file (no FPBENCH-INDEX mark)") }
                    throw fail("written by another version of fpbench (\(String(decoding: mark, as: UTF8.self)), this one reads v2); rebuild it with `fpbench index build`")
                }
                let length = Int(UInt64(littleEndian: base.loadUnaligned(fromByteOffset: 16, as: UInt64.self)))
                guard length > 0, length <= byteCount - 24 else { throw fail("damaged: its header length \(length) does not fit the file") }
                let json = Data(bytes: base + 24, count: length)
                do { header = try JSONDecoder().decode(Header.self, from: json) } catch { throw fail("damaged header: \(error)") }
                bodyStart = 24 + length
                guard header.references.count == header.durations.count else { throw fail("damaged: references and durations differ in number") }
                for (name, place) in header.sections {
                    guard place.count == 2, place[0] >= 0, place[1] >= 0, place[0] % 8 == 0, bodyStart + place[0] + place[1] <= byteCount else {
                        throw fail("damaged: section \(name) lies outside the file (truncated?)")
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
            guard let place = header.sections[name] else { throw IndexFileError(path: header.algorithm, reason: "no section \(name)") }
            return UnsafeRawBufferPointer(start: base + bodyStart + place[0], count: place[1])
        }

        /// A section as an array of `T` viewed in place (no copy).
        func array<T: BitwiseCopyable>(_ name: String, of type: T.Type) throws -> UnsafeBufferPointer<T> {
            let raw = try bytes(name)
            guard raw.count % MemoryLayout<T>.stride == 0 else { throw IndexFileError(path: header.algorithm, reason: "section \(name) has a partial element") }
            return raw.count == 0 ? UnsafeBufferPointer(start: nil, count: 0) : raw.bindMemory(to: T.self)
        }

        func value(_ name: String) throws -> Double {
            guard let value = header.values[name] else { throw IndexFileError(path: header.algorithm, reason: "no value \(name)") }
            return value
        }
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
