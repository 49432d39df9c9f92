import ArgumentParser
import AudioIO
import Foundation

// Small helpers every command shares.

/// One line on standard error.
func printError(_ line: String) {
    FileHandle.standardError.write(Data(("error: " + line + "\n").utf8))
}

/// One line naming the file and the reason (audio errors name their file themselves).
func describe(_ error: Error, file: String) -> String {
    error is AudioError ? "\(error)" : "\(file): \(error)"
}

/// Runs `body`, turning any error into one line naming `file` and a failing exit code.
func reportingFailure<T>(_ file: String, _ body: () throws -> T) throws -> T {
    do { return try body() } catch {
        printError(describe(error, file: file))
        throw ExitCode.failure
    }
}

/// Runs `body`, turning its error into a one-line usage error.
func validated<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch { throw ValidationError("\(error)") }
}

/// A window from --start/--duration, or nil for the whole file.
func timeWindow(start: Double?, duration: Double?) throws -> TimeWindow? {
    switch (start, duration) {
    case (nil, nil): return nil
    case (let s?, let d?): return TimeWindow(start: s, duration: d)
    default: throw ValidationError("--start and --duration go together")
    }
}

/// Writes to a temporary file beside `path`, then renames it into place.
func writeAtomically(_ data: Data, to path: String) throws {
    try data.write(to: URL(fileURLWithPath: path), options: .atomic)
}

/// CPU time (user + system) of this process and its finished child processes since creation, in seconds.
struct CPUClock {
    private let start = CPUClock.now()
    static func now() -> Double {
        func seconds(_ who: __rusage_who) -> Double {
            var usage = rusage()
            getrusage(who.rawValue, &usage)
            return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        }
        return seconds(RUSAGE_SELF) + seconds(RUSAGE_CHILDREN)
    }
    var elapsed: Double { CPUClock.now() - start }
}
