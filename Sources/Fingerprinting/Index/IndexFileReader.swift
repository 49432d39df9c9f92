import AudioIO
import Foundation

extension IndexFile {
    /// A mapped index file; sections are views of the mapping, valid while the reader lives. Opening
    /// verifies the prefix and the header; each section is verified when first read (`bytes`, `array`),
    /// and a section of blocks one block at a time (`blocks`), so a query pays for the pages it touches.
    public final class Reader: @unchecked Sendable {
        public let header: Header
        public let path: String
        public let byteCount: Int
        private let base: UnsafeRawPointer
        private let bodyStart: Int
        /// What has been verified, and the first damage found after opening; guarded by `lock`.
        private let lock = NSLock()
        private var verifiedSections: Set<String> = []
        private var verifiers: [BlockVerifier] = []
        private var damage: String?
        /// What every damage message tells the user to do: rebuild the file with the command that writes it.
        public let remedy: String

        /// `remedy`: the command that writes this kind of file again (an index file's by default).
        public init(path: String, remedy: String = "rebuild it with `fpbench index build`") throws {
            self.path = path
            self.remedy = remedy
            func fail(_ reason: String) -> Error { IndexFileError(path: path, reason: reason) }
            let fd = RegularFile.openForReading(path)
            guard fd >= 0 else { throw fail(errno == EINVAL ? "not a regular file" : String(cString: strerror(errno))) }
            defer { close(fd) }
            var status = stat()
            guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { throw fail("not a regular file") }
            byteCount = Int(status.st_size)
            guard byteCount >= IndexFile.prefixLength else { throw fail("too short to be an index file (\(byteCount) bytes)") }
            guard let mapped = mmap(nil, byteCount, PROT_READ, MAP_PRIVATE, fd, 0), mapped != MAP_FAILED else {
                throw fail("cannot be mapped: \(String(cString: strerror(errno)))")
            }
            base = UnsafeRawPointer(mapped)
            do {
                let mark = Array(UnsafeRawBufferPointer(start: base, count: 16))
                guard mark == IndexFile.magic else {
                    guard mark.starts(with: IndexFile.magic.prefix(14)) else { throw fail("not an fpbench index file (no FPBENCH-INDEX mark)") }
                    // A version is "v" and digits; anything else in its place is damage.
                    guard mark[14] == UInt8(ascii: "v"), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(mark[15]) else {
                        throw fail("damaged: its FPBENCH-INDEX mark is broken (\(String(decoding: mark, as: UTF8.self))); \(remedy)")
                    }
                    throw fail("written by another version of fpbench (\(String(decoding: mark, as: UTF8.self)), this one reads v4); \(remedy)")
                }
                let stored = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
                guard let length = Int(exactly: stored), length > 0, length <= byteCount - IndexFile.prefixLength else {
                    throw fail("damaged: its header length \(stored) does not fit the file (\(byteCount) bytes)")
                }
                let json = UnsafeRawBufferPointer(start: base + IndexFile.prefixLength, count: length)
                guard Checksum.of(json) == UInt64(littleEndian: base.loadUnaligned(fromByteOffset: 24, as: UInt64.self)) else {
                    throw fail("damaged: the header's checksum does not match; \(remedy)")
                }
                do { header = try JSONDecoder().decode(Header.self, from: Data(json)) } catch { throw fail("damaged header: \(error)") }
                bodyStart = IndexFile.prefixLength + length
                try IndexFile.check(header, bodyLength: byteCount - bodyStart, path: path)
            } catch {
                munmap(UnsafeMutableRawPointer(mutating: base), byteCount)
                throw error
            }
        }

        deinit { munmap(UnsafeMutableRawPointer(mutating: base), byteCount) }

        fileprivate func damaged(_ name: String) -> IndexFileError {
            IndexFileError(path: path, reason: "damaged: section \(name) does not match its checksum; \(remedy)")
        }

        private func mapped(_ name: String) throws -> UnsafeRawBufferPointer {
            guard let section = header.sections[name] else { throw IndexFileError(path: path, reason: "damaged: no section \(name)") }
            return UnsafeRawBufferPointer(start: base + bodyStart + section.offset, count: section.length)
        }

        /// The raw bytes of a section, its checksum verified on first use.
        public func bytes(_ name: String) throws -> UnsafeRawBufferPointer {
            let raw = try mapped(name)
            try lock.withLock {
                guard !verifiedSections.contains(name) else { return }
                guard Checksum.hex(Checksum.of(raw)) == header.sections[name]!.checksum else { throw damaged(name) }
                verifiedSections.insert(name)
            }
            return raw
        }

        /// A section as an array of `T` viewed in place (no copy), verified whole on first use.
        func array<T: BitwiseCopyable>(_ name: String, of type: T.Type) throws -> UnsafeBufferPointer<T> {
            try view(try bytes(name), name, as: type)
        }

        private func view<T: BitwiseCopyable>(_ raw: UnsafeRawBufferPointer, _ name: String, as: T.Type) throws -> UnsafeBufferPointer<T> {
            guard raw.count % MemoryLayout<T>.stride == 0 else { throw IndexFileError(path: path, reason: "damaged: section \(name) has a partial element") }
            return raw.count == 0 ? UnsafeBufferPointer(start: nil, count: 0) : raw.bindMemory(to: T.self)
        }

        /// A section written with `Writer.addBlocks`, viewed in place and NOT yet verified: its verifier
        /// checks a range's blocks before they are read. `check` is what each block's elements must also
        /// satisfy (values that will index memory), tested when the block is verified.
        func blocks<T: BitwiseCopyable>(_ name: String, of type: T.Type,
                                        check: @escaping (UnsafeBufferPointer<T>) -> Bool) throws -> (elements: UnsafeBufferPointer<T>, verifier: BlockVerifier) {
            let raw = try mapped(name), elements = try view(raw, name, as: type)
            let sums = try array(name + "#blocks", of: UInt64.self)
            guard IndexFile.blockSize % MemoryLayout<T>.stride == 0, sums.count == (raw.count + IndexFile.blockSize - 1) / IndexFile.blockSize else {
                throw IndexFileError(path: path, reason: "damaged: section \(name)#blocks has \(sums.count) checksums for \(raw.count) bytes")
            }
            let verifier = BlockVerifier(file: self, section: name, bytes: raw, sums: sums, stride: MemoryLayout<T>.stride) { check($0.bindMemory(to: T.self)) }
            lock.withLock { verifiers.append(verifier) }
            return (elements, verifier)
        }

        /// Records damage found where a search cannot throw (a fingerprint that does not decode).
        func report(damage reason: String) { lock.withLock { if damage == nil { damage = reason } } }

        /// Throws the first damage found since the file was opened.
        public func throwIfDamaged() throws {
            if let reason = lock.withLock({ damage }) { throw IndexFileError(path: path, reason: reason) }
        }

        /// Verifies every byte the header places: each section's checksum and, for sections of blocks
        /// opened with `blocks`, every block and its values (`fpbench index verify`).
        public func verifyAll() throws {
            let end = header.sections.values.map { $0.offset + $0.length }.max() ?? 0
            guard end == byteCount - bodyStart else {
                throw IndexFileError(path: path, reason: "damaged: \(byteCount - bodyStart - end) bytes after its last section (appended, or a file written over it); \(remedy)")
            }
            for name in header.sections.keys.sorted() { _ = try bytes(name) }
            for verifier in lock.withLock({ verifiers }) { _ = verifier.verify(blocks: 0..<verifier.blockCount) }
            try throwIfDamaged()
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
}

/// Verifies a section of blocks (`IndexFile.Writer.addBlocks`) block by block as it is read: each block's
/// checksum and values once, the first time a read reaches it; a damaged block is reported to the file
/// (`Reader.throwIfDamaged`) and never read.
final class BlockVerifier: @unchecked Sendable {
    private unowned let file: IndexFile.Reader
    private let section: String
    private let bytes: UnsafeRawBufferPointer
    private let sums: UnsafeBufferPointer<UInt64>
    private let stride: Int
    private let check: (UnsafeRawBufferPointer) -> Bool
    /// Guarded by `lock`; `failed` once a block is damaged (nothing more is read).
    private let lock = NSLock()
    private var verified: [Bool]
    private var failed = false

    fileprivate init(file: IndexFile.Reader, section: String, bytes: UnsafeRawBufferPointer, sums: UnsafeBufferPointer<UInt64>, stride: Int,
                     check: @escaping (UnsafeRawBufferPointer) -> Bool) {
        self.file = file
        self.section = section
        self.bytes = bytes
        self.sums = sums
        self.stride = stride
        self.check = check
        verified = Array(repeating: false, count: sums.count)
    }

    var blockCount: Int { sums.count }

    /// Verifies the blocks holding `elements` (each at most once); false if one is damaged.
    func verify(elements: Range<Int>) -> Bool {
        guard !elements.isEmpty else { return true }
        return verify(blocks: elements.lowerBound * stride / IndexFile.blockSize..<((elements.upperBound * stride - 1) / IndexFile.blockSize + 1))
    }

    func verify(blocks: Range<Int>) -> Bool {
        lock.withLock {
            for block in blocks where !verified[block] {
                guard !failed else { return false }
                let start = block * IndexFile.blockSize
                let piece = UnsafeRawBufferPointer(rebasing: bytes[start..<min(start + IndexFile.blockSize, bytes.count)])
                if UInt64(littleEndian: sums[block]) != Checksum.of(piece) {
                    file.report(damage: file.damaged(section).reason + " (block \(block))")
                } else if !check(piece) {
                    file.report(damage: "damaged: section \(section) holds a value out of range (block \(block)); \(file.remedy)")
                } else {
                    verified[block] = true
                    continue
                }
                failed = true
                return false
            }
            return !failed
        }
    }
}
