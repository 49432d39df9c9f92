import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One writer at a time for a file that is read, changed and replaced (`index add`): an advisory lock on a
/// sibling `.NAME.lock` file (the file itself is replaced by a rename, so its own inode cannot carry the lock).
/// A second writer waits, saying so, and then reads what the first wrote; no addition is lost.
public final class WriterLock {
    private let descriptor: Int32

    public init(for path: String, waiting: (String) -> Void) throws {
        let url = URL(fileURLWithPath: path)
        let lockPath = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).lock").path
        descriptor = open(lockPath, O_CREAT | O_RDWR | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: lockPath, NSLocalizedDescriptionKey: "\(lockPath): cannot be opened to lock \(path): \(String(cString: strerror(errno)))"])
        }
        if flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            waiting("\(path): another fpbench is writing it; waiting until it has finished")
            flock(descriptor, LOCK_EX)
        }
    }

    deinit { close(descriptor) }  // closing releases the lock
}
