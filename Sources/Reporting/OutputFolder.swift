import Evaluation
import Foundation

/// A report folder written as a unit. While a command writes it, the folder holds `.fpbench-lock`
/// (the writer's process id: a second writer is refused while that process lives) and a
/// `RUN-INCOMPLETE` marker, removed last; a folder killed half-way keeps the marker, so its mix of old
/// and new files is never mistaken for a finished report. Every file inside is written atomically.
public enum OutputFolder {
    public static let marker = "RUN-INCOMPLETE"
    static let lock = ".fpbench-lock"

    public struct Busy: Error, CustomStringConvertible {
        public var folder: String
        public var process: Int32
        public var description: String { "\(folder) is being written by process \(process); wait for it, or choose another --out" }
    }

    /// Folders this process holds (a command that wraps its whole run holds the folder its report
    /// writer then writes into).
    nonisolated(unsafe) private static var held: Set<String> = []
    private static let heldLock = NSLock()

    public static func write(_ folder: URL, _ body: () throws -> Void) throws {
        let path = folder.standardizedFileURL.path
        if heldLock.withLock({ held.contains(path) }) { return try body() }
        heldLock.withLock { _ = held.insert(path) }
        defer { heldLock.withLock { _ = held.remove(path) } }
        let fm = FileManager.default
        try fm.createDirectory(at: folder, withIntermediateDirectories: true)
        let lockFile = folder.appendingPathComponent(lock)
        try acquire(lockFile, folder: folder.path)
        defer { try? fm.removeItem(at: lockFile) }
        removeStaleTemporaries(in: folder, olderThan: 0)
        let marker = folder.appendingPathComponent(Self.marker)
        try Data("Written by fpbench (process \(getpid())) and not finished; the files beside this one may mix two runs.\n".utf8)
            .write(to: marker, options: .atomic)
        try body()
        try fm.removeItem(at: marker)
    }

    /// Creates the lock file exclusively; a lock whose process is gone is stale and taken over.
    private static func acquire(_ lockFile: URL, folder: String) throws {
        for _ in 0..<2 {
            let fd = open(lockFile.path, O_CREAT | O_EXCL | O_WRONLY, 0o644)
            if fd >= 0 {
                let text = "\(getpid())\n"
                _ = text.withCString { Glibc.write(fd, $0, strlen($0)) }
                close(fd)
                return
            }
            let owner = (try? String(contentsOf: lockFile, encoding: .utf8)).flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            if let owner, owner != getpid(), kill(owner, 0) == 0 { throw Busy(folder: folder, process: owner) }
            try? FileManager.default.removeItem(at: lockFile)  // stale: its writer is gone
        }
        throw Busy(folder: folder, process: -1)
    }
}
