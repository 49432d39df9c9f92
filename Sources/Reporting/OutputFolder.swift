import AudioIO
import Evaluation
import Foundation

/// A report folder written as a unit. While a command writes it, the folder holds `.fpbench-lock`
/// (the writer's process id: a second writer is refused while that process lives) and a
/// `RUN-INCOMPLETE` marker, removed last; a folder killed half-way keeps the marker, so its mix of old
/// and new files is never mistaken for a finished report. Every file inside is written atomically.
/// A writer takes a `Held` folder, which only `write` makes: the lock is taken in one place, once, by
/// whoever holds the folder longest (a command for its whole run, else the writer's `to:` form).
public enum OutputFolder {
    public static let marker = "RUN-INCOMPLETE"
    static let lock = ".fpbench-lock"

    public struct Busy: Error, CustomStringConvertible {
        public var folder: String
        public var process: Int32
        public var description: String { "\(folder) is being written by process \(process); wait for it, or choose another --out" }
    }

    /// A report folder this process holds: created, locked, marked incomplete until `write`'s body returns.
    /// Every SVG put is a figure, drawn again as PDF (`PDFFigures`) before the folder is finished.
    public struct Held {
        public let url: URL
        fileprivate let figures = PDFFigures.Pending()
        fileprivate init(_ url: URL) { self.url = url }

        /// Writes a file of the folder atomically; a name with a folder in it ("tables/x.tex") makes the folder.
        public func put(_ data: Data, _ name: String) throws {
            let file = url.appendingPathComponent(name)
            if name.contains("/") { try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true) }
            try data.write(to: file, options: .atomic)
            if name.hasSuffix(".svg") { figures.add(file) }
        }
        public func put(_ text: String, _ name: String) throws { try put(Data(text.utf8), name) }
    }

    /// Holds `folder` while `body` writes into it; refused while another living process holds it.
    public static func write<T>(_ folder: URL, _ body: (Held) throws -> T) throws -> T {
        let fm = FileManager.default
        try fm.createDirectory(at: folder, withIntermediateDirectories: true)
        let lockFile = folder.appendingPathComponent(lock)
        try acquire(lockFile, folder: folder.path)
        defer { try? fm.removeItem(at: lockFile) }
        try refuseForeignReports(in: folder)
        removeStaleTemporaries(in: folder, olderThan: 0)
        let marker = folder.appendingPathComponent(Self.marker)
        try Data("Written by fpbench (process \(getpid())) and not finished; the files beside this one may mix two runs.\n".utf8)
            .write(to: marker, options: .atomic)
        let held = Held(folder)
        let result = try body(held)
        try PDFFigures.write(held.figures.files)
        try fm.removeItem(at: marker)
        return result
    }

    /// A report file of the names fpbench writes that fpbench did not write (every summary, sweep page and report
    /// page it writes names it): a user's own notes in a folder given as --out are never written over.
    public struct Foreign: Error, CustomStringConvertible {
        public var file: String
        public var description: String { "\(file) was not written by fpbench and would be replaced: choose another --out, or move it" }
    }

    static let reportNames = ["summary.md", "sweep.md", "report.html", "reproduce.md"]

    private static func refuseForeignReports(in folder: URL) throws {
        for name in reportNames {
            let file = folder.appendingPathComponent(name).path
            guard FileManager.default.fileExists(atPath: file) else { continue }
            if (RegularFile.contents(file) ?? Data()).range(of: Data("fpbench".utf8)) == nil { throw Foreign(file: file) }
        }
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
            // This process's own lock is held too: a second writer must write into the `Held` folder instead.
            if let owner, owner == getpid() || kill(owner, 0) == 0 { throw Busy(folder: folder, process: owner) }
            try? FileManager.default.removeItem(at: lockFile)  // stale: its writer is gone
        }
        throw Busy(folder: folder, process: -1)
    }
}
