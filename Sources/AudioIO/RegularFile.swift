import Foundation

/// Files a user names, read only when they are regular files: opening a named pipe for reading blocks until a
/// writer comes, for ever if none does, so a pipe, a device or a folder is refused before it is opened.
public enum RegularFile {
    /// Whether `path` (links followed) is a regular file.
    public static func isRegular(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
    }

    /// The file's bytes, or nil when it is missing, unreadable or not a regular file.
    public static func contents(_ path: String) -> Data? {
        isRegular(path) ? FileManager.default.contents(atPath: path) : nil
    }

    /// A descriptor open for reading on a regular file, never blocking on a pipe (opened without waiting for a
    /// writer, then checked), or -1 with `errno` set.
    public static func openForReading(_ path: String) -> Int32 {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return -1 }
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            errno = EINVAL
            return -1
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return fd
    }

    /// A handle for reading a regular file, or nil (see `openForReading`).
    public static func handle(_ path: String) -> FileHandle? {
        let fd = openForReading(path)
        return fd < 0 ? nil : FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }
}
