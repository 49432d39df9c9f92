import Foundation

/// Everything fpbench says on standard error: errors, warnings, notes and the progress line, through one
/// lock, so lines from worker threads never interleave and a warning never lands in the middle of a
/// terminal's progress line (the line is cleared, the warning written, the line drawn again below it).
/// Standard output stays for what a command produces.
public enum Console {
    private static let lock = NSLock()
    /// The terminal's progress line while one is drawn in place (`progress(_:inPlace:)`).
    nonisolated(unsafe) private static var status: String?
    nonisolated(unsafe) private static var said: Set<String> = []

    /// "error: LINE": what stopped a command.
    public static func error(_ line: String) { say("error: " + line) }

    /// "warning: LINE": the run goes on, but a figure may not mean what it seems.
    public static func warning(_ line: String) { say("warning: " + line) }

    /// A warning said once per process for `key` (a file's decoding notice, an unwritable cache).
    public static func warning(once key: String, _ line: @autoclosure () -> String) {
        guard lock.withLock({ said.insert(key).inserted }) else { return }
        warning(line())
    }

    /// A line as it is: what a command did ("fpbench merge: 4 parts, ..."), a usage message.
    public static func note(_ line: String) { say(line) }

    /// A progress line: drawn in place on a terminal (the next one replaces it), else a line of a log.
    public static func progress(_ line: String, inPlace: Bool) {
        lock.withLock {
            if inPlace {
                status = line
                emit("\r\u{1B}[K" + line)
            } else {
                emit(line + "\n")
            }
        }
    }

    /// Leaves the progress line drawn in place standing, and what follows below it.
    public static func endProgress() {
        lock.withLock {
            if status != nil { emit("\n") }
            status = nil
        }
    }

    private static func say(_ line: String) {
        lock.withLock { emit(status.map { "\r\u{1B}[K" + line + "\n" + $0 } ?? line + "\n") }
    }

    /// Where the text goes: standard error (a test reads it here instead).
    nonisolated(unsafe) static var output: @Sendable (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) }

    private static func emit(_ text: String) { output(text) }
}
