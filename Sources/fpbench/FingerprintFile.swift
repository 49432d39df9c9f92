import ArgumentParser
import AudioIO
import Fingerprinting
import Foundation

struct FingerprintFile: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fingerprint",
        abstract: "Fingerprint one audio file: size, bytes per second, and speed.",
        discussion: """
        Decodes the file, resamples it to the algorithm's rate and fingerprints it, then prints the number \
        of sub-fingerprints, the fingerprint's size, its size per second of audio, and how many seconds of \
        audio were fingerprinted per CPU second (decode + resample + fingerprint).

        Example: fpbench fingerprint -a afa-thesis Datasets/ci/audio/finch-348.wav --output finch.json
        """)

    @OptionGroup var algorithm: AlgorithmOption
    @Argument(help: "The audio file.") var file: String
    @Option(help: "Start of the window to fingerprint, in seconds.") var start: Double?
    @Option(help: "Length of the window to fingerprint, in seconds (with --start).") var duration: Double?
    @Option(name: .shortAndLong, help: "Write the fingerprint as JSON to this file.") var output: String?

    func run() throws {
        let algorithm = try algorithm.resolve()
        let window = try timeWindow(start: start, duration: duration)
        let clock = CPUClock()
        let fingerprint = try reportingFailure(file) { try algorithm.fingerprint(file: file, window: window) }
        let cpu = clock.elapsed
        print("\(file): \(algorithm.identifier)")
        print("  audio:             \(String(format: "%.3f", fingerprint.duration)) s")
        print("  sub-fingerprints:  \(fingerprint.subFingerprintCount)")
        print("  size:              \(fingerprint.byteCount) bytes, \(String(format: "%.1f", Double(fingerprint.byteCount) / fingerprint.duration)) bytes per second of audio")
        print("  speed:             \(String(format: "%.0f", fingerprint.duration / cpu)) s of audio per CPU second (\(String(format: "%.3f", cpu)) CPU s)")
        if let output {
            try writeAtomically(algorithm.encode(fingerprint), to: output)
            print("  written:           \(output)")
        }
    }
}

/// A window from --start/--duration, or nil for the whole file.
func timeWindow(start: Double?, duration: Double?) throws -> TimeWindow? {
    switch (start, duration) {
    case (nil, nil): return nil
    case (let s?, let d?): return TimeWindow(start: s, duration: d)
    default: throw ValidationError("--start and --duration go together")
    }
}

/// Runs `body`, turning any error into one line naming `file` and a failing exit code.
func reportingFailure<T>(_ file: String, _ body: () throws -> T) throws -> T {
    do { return try body() } catch {
        printError(describe(error, file: file))
        throw ExitCode.failure
    }
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

/// Writes to a temporary file beside `path`, then renames it into place.
func writeAtomically(_ data: Data, to path: String) throws {
    try data.write(to: URL(fileURLWithPath: path), options: .atomic)
}
