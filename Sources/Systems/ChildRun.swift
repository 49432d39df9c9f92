import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process run to completion, with what the kernel measured of it alone: its CPU time (wait4's
/// rusage) and its peak resident memory (VmHWM of its own address space, read while it runs: rusage's
/// maxrss would carry over this process's own peak, which a spawned child inherits until it execs),
/// so a peer or one algorithm can be measured apart from this process.
public struct ChildRun: Sendable {
    public var status: Int32
    public var cpuSeconds: Double
    public var peakResidentBytes: Int
    public var output: Data

    /// Runs `executable` with `arguments`; standard output is captured, standard error discarded.
    public static func run(_ executable: String, _ arguments: [String]) throws -> ChildRun {
        var pipe: [Int32] = [0, 0]
        guard Glibc.pipe(&pipe) == 0 else { throw CocoaError(.fileWriteUnknown) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addclose(&actions, pipe[0])
        var pid: pid_t = 0
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        close(pipe[1])
        guard spawned == 0 else {
            close(pipe[0])
            throw NSError(domain: NSPOSIXErrorDomain, code: Int(spawned), userInfo: [NSLocalizedDescriptionKey: "cannot start \(executable): \(String(cString: strerror(spawned)))"])
        }
        let peak = PeakWatch(pid: pid)
        let output = FileHandle(fileDescriptor: pipe[0], closeOnDealloc: true).readDataToEndOfFile()
        var status: Int32 = 0, usage = rusage()
        while wait4(pid, &status, WNOHANG, &usage) == 0 { peak.sample(); usleep(1000) }
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        let exited = status & 0x7f == 0
        return ChildRun(status: exited ? (status >> 8) & 0xff : 128 + (status & 0x7f), cpuSeconds: seconds(usage.ru_utime) + seconds(usage.ru_stime),
                        peakResidentBytes: peak.bytes, output: output)
    }
}

/// The high-water mark of a process's resident memory, from /proc/PID/status (VmHWM), sampled on a
/// background thread every millisecond until the process is gone; its last reading is the peak.
final class PeakWatch: @unchecked Sendable {
    private let path: String
    private let lock = NSLock()
    private var peak = 0
    private var done = false

    init(pid: pid_t) {
        path = "/proc/\(pid)/status"
        Thread.detachNewThread { [self] in
            while !lock.withLock({ done }) { sample(); usleep(1000) }
        }
    }

    func sample() {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return }
        lock.withLock { peak = max(peak, kilobytes * 1024) }
    }

    var bytes: Int { lock.withLock { done = true; return peak } }
}
