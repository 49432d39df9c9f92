import AudioIO
import CFiles
import Foundation
import Synchronization
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
    public var wallSeconds: Double
    public var peakResidentBytes: Int
    public var output: Data
    /// The last 4 KiB of standard error (empty unless `keepErrors`).
    public var errors: String
    /// Killed after the time limit.
    public var timedOut: Bool
    /// Killed for printing more than `outputLimit` bytes.
    public var flooded: Bool = false

    /// What a child may print, standard output and error together, before it is stopped: about half a million
    /// answer lines, far beyond any honest call; a child printing without end would otherwise fill the disk.
    public static let outputLimit = 64 << 20

    /// The exit status, a signal, the time limit or the output limit, said for a person.
    public var ending: String {
        if flooded { return "stopped after printing more than \(Self.outputLimit >> 20) MiB" }
        if timedOut { return "stopped after its time limit" }
        return status > 128 ? "killed by signal \(status - 128)" : "exit status \(status)"
    }

    /// Runs `executable` with `arguments`; standard output is captured (through a file, so a child that
    /// hangs cannot block the reader), standard error kept (last 4 KiB) when `keepErrors`, else discarded.
    /// `wholeGroup`: the peak memory counts the child's subprocesses too (see `PeakWatch`).
    /// `environment` entries replace or add to this process's. Past `timeout` seconds of wall time, or once
    /// it has printed `outputLimit` bytes, the child's whole process group is killed (it runs in its own
    /// group, so a wrapper's children go too), and so is any descendant that left the group (`Descendants`).
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                           timeout: Double? = nil, keepErrors: Bool = false, wholeGroup: Bool = false) throws -> ChildRun {
        let folder = try ScratchFolder.make("child")
        defer { try? FileManager.default.removeItem(at: folder) }
        let outPath = folder.appendingPathComponent("stdout").path, errPath = keepErrors ? folder.appendingPathComponent("stderr").path : "/dev/null"
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        var merged = ProcessInfo.processInfo.environment
        merged.merge(environment) { $1 }
        let token = Descendants.token()
        merged[Descendants.variable] = token
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        let clock = ContinuousClock.now
        Orphans.starting()
        defer { Orphans.ended() }
        var error: Int32 = 0
        let pid = cfiles_spawn(executable, argv, envp, outPath, errPath, &error)
        guard pid > 0 else {
            throw NSError(domain: NSPOSIXErrorDomain, code: Int(error), userInfo: [NSLocalizedDescriptionKey: "cannot start \(executable): \(String(cString: strerror(error)))"])
        }
        let peak = PeakWatch(pid: pid, group: wholeGroup)
        var status: Int32 = 0, usage = rusage(), timedOut = false, flooded = false, polls = 0
        while wait4(pid, &status, WNOHANG, &usage) == 0 {
            peak.sample(group: false)  // the child's own mark, cheap; the watcher thread scans its group
            if let timeout, !timedOut, (ContinuousClock.now - clock) > .seconds(timeout) {
                kill(-pid, SIGKILL)
                timedOut = true
            }
            polls += 1
            if !flooded, polls % 10 == 0, size(outPath) + (keepErrors ? size(errPath) : 0) > outputLimit {
                kill(-pid, SIGKILL)
                flooded = true
            }
            usleep(1000)
        }
        kill(-pid, SIGKILL)  // anything the child left running in its group
        Descendants.kill(carrying: token)  // and anything that left the group
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        let exited = status & 0x7f == 0
        let errors = keepErrors ? String(decoding: read(errPath, last: 4096), as: UTF8.self) : ""
        let elapsed = ContinuousClock.now - clock
        var run = ChildRun(status: exited ? (status >> 8) & 0xff : 128 + (status & 0x7f), cpuSeconds: seconds(usage.ru_utime) + seconds(usage.ru_stime),
                           wallSeconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
                           peakResidentBytes: peak.bytes, output: read(outPath, first: outputLimit), errors: errors, timedOut: timedOut)
        run.flooded = flooded
        return run
    }

    private static func size(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : 0
    }

    /// At most the first `first` or the last `last` bytes of a file.
    private static func read(_ path: String, first: Int? = nil, last: Int? = nil) -> Data {
        guard let file = FileHandle(forReadingAtPath: path) else { return Data() }
        defer { try? file.close() }
        if let last { try? file.seek(toOffset: UInt64(max(0, size(path) - last))) }
        return (try? file.read(upToCount: first ?? last ?? 0)) ?? Data()
    }
}

/// Descendants that leave their group and drop the token too (a daemon that clears its environment): a
/// process that starts children only through `ChildRun` (fpbench: `reapOrphans()` in its `main`) becomes
/// their reaper (`cfiles_become_subreaper`), so once their parent exits they become its children; when no
/// child run is in flight, every child it has left is such an orphan, and is killed and reaped. (A process
/// that also starts children of its own, such as a test runner, must not: they would look like orphans.)
/// Children are started with PR_SET_PDEATHSIG, so a killed fpbench takes its running calls with it.
public enum Orphans {
    private static let state = Mutex((reaper: false, inFlight: 0, spared: Set<pid_t>()))

    /// Makes this process the reaper of its children's orphans, killed once no child run is in flight.
    public static func reapOrphans() {
        state.withLock { $0.reaper = cfiles_become_subreaper() == 0 }
    }

    static func starting() { state.withLock { $0.inFlight += 1 } }

    /// A long-lived child (an external command's `Server`): not an orphan while it serves.
    static func spare(_ pid: pid_t) { state.withLock { _ = $0.spared.insert(pid) } }
    static func release(_ pid: pid_t) { state.withLock { _ = $0.spared.remove(pid) } }

    static func ended() {
        state.withLock {
            $0.inFlight -= 1
            guard $0.reaper, $0.inFlight == 0 else { return }
            let me = getpid()
            for pid in ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap({ pid_t($0) })
            where parent(of: pid) == me && !$0.spared.contains(pid) {
                Glibc.kill(pid, SIGKILL)
                var status: Int32 = 0
                waitpid(pid, &status, 0)
            }
        }
    }

    /// The parent of `pid`, from /proc/PID/stat ("N (name) state ppid ..."; the name may hold spaces).
    static func parent(of pid: pid_t) -> pid_t? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 1 ? pid_t(fields[1]) : nil
    }
}

/// Descendants that leave a child's process group (a daemon that calls `setsid`) survive the group's kill.
/// Every child is started with a token of its run in its environment, which its descendants inherit; once
/// the child is gone, any process still carrying the token is one of those, and is killed.
enum Descendants {
    static let variable = "FPBENCH_CHILD_RUN"
    private static let counter = Mutex(0)

    static func token() -> String { "\(getpid())-\(counter.withLock { $0 += 1; return $0 })" }

    static func kill(carrying token: String) {
        let needle = Data("\(variable)=\(token)\0".utf8)
        for pid in ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap({ pid_t($0) }) where pid != getpid() {
            guard let environment = FileManager.default.contents(atPath: "/proc/\(pid)/environ"), environment.range(of: needle) != nil else { continue }
            Glibc.kill(pid, SIGKILL)
        }
    }
}

/// The high-water mark of a process's resident memory, from /proc/PID/status (VmHWM), sampled on a
/// background thread until the process is gone; its last reading is the peak. With
/// `group`, each sample also sums the resident memory (VmRSS) of every process in the child's process
/// group, so a wrapper's or a decoder's subprocesses count while they run beside it.
final class PeakWatch: @unchecked Sendable {
    private let pid: pid_t
    private let group: Bool
    private let lock = NSLock()
    private var peak = 0
    private var done = false

    init(pid: pid_t, group: Bool = false) {
        self.pid = pid
        self.group = group
        // Every millisecond while the child is young (a short process's peak), then every 20 ms: the kernel
        // keeps the child's own high-water mark, and scanning /proc for its group costs this process CPU.
        Thread.detachNewThread { [self] in
            var samples = 0
            while !lock.withLock({ done }) {
                sample()
                samples += 1
                usleep(samples < 100 || !group ? 1000 : 20_000)
            }
        }
    }

    func sample(group: Bool? = nil) {
        var bytes = Self.field("VmHWM:", of: pid) ?? 0
        if group ?? self.group {
            let members = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { Int32($0) }.filter { member in
                // /proc/N/stat: "N (name) state ppid pgrp ..."; the name may hold spaces, so read after its ')'.
                guard let stat = try? String(contentsOfFile: "/proc/\(member)/stat", encoding: .utf8),
                      let close = stat.lastIndex(of: ")") else { return false }
                let fields = stat[stat.index(after: close)...].split(separator: " ")
                return fields.count > 2 && Int32(fields[2]) == pid
            }
            bytes = max(bytes, members.reduce(0) { $0 + (Self.field("VmRSS:", of: $1) ?? 0) })
        }
        lock.withLock { peak = max(peak, bytes) }
    }

    /// A "Vm...:" line of /proc/PID/status, in bytes.
    static func field(_ name: String, of pid: pid_t) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name) }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return nil }
        return kilobytes * 1024
    }

    var bytes: Int { lock.withLock { done = true; return peak } }
}
