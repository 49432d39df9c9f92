import AudioIO
import CFiles
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// CPU seconds child processes spent on behalf of the calling thread (an external command's calls and its
/// long-lived process's answers), added to the thread's own CPU time wherever a cost is measured.
public enum ChildCPU {
    private static let key = "fpbench.childCPU"

    static func charge(_ seconds: Double) {
        let dictionary = Thread.current.threadDictionary
        dictionary[key] = ((dictionary[key] as? Double) ?? 0) + max(0, seconds)
    }

    /// The calling thread's children's CPU seconds so far.
    public static var thisThread: Double { (Thread.current.threadDictionary[key] as? Double) ?? 0 }
}

/// A command's long-lived processes (`"mode": "serve"`): one per request in flight, kept for the next
/// request; a process that fails (dies, answers late or floods) is stopped and the next request starts another.
final class ServerPool: Sendable {
    private let idle = Mutex<[Server]>([])

    func ask(_ request: Data, program: String, arguments: [String], timeout: Double) throws -> Data {
        let server = try idle.withLock { $0.popLast() } ?? Server(program: program, arguments: arguments)
        do {
            let answer = try server.ask(request, timeout: timeout)
            idle.withLock { $0.append(server) }
            return answer
        } catch {
            server.stop()
            throw error
        }
    }

    deinit { idle.withLock { $0.forEach { $0.stop() } } }
}

/// One long-lived process spoken to through pipes: a request line written, an answer line read.
final class Server: @unchecked Sendable {
    let pid: pid_t
    private let toChild: Int32, fromChild: Int32
    private let errors: URL
    private let token: String
    private var pending = Data()
    private var stopped = false

    init(program: String, arguments: [String]) throws {
        Server.ignoreBrokenPipes
        errors = try ScratchFolder.make("server").appendingPathComponent("stderr")
        token = Descendants.token()
        var environment = ProcessInfo.processInfo.environment
        environment[Descendants.variable] = token
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var input: Int32 = -1, output: Int32 = -1, error: Int32 = 0
        Orphans.starting()  // no orphan sweep between its start and its being spared
        defer { Orphans.ended() }
        let pid = cfiles_spawn_piped(program, argv, envp, errors.path, &input, &output, &error)
        guard pid > 0 else { throw ServerError(description: "cannot start \(program): \(String(cString: strerror(error)))") }
        (self.pid, toChild, fromChild) = (pid, input, output)
        Orphans.spare(pid)
    }

    /// A broken pipe (the process gone) is an error to report, not a signal that ends fpbench.
    private static let ignoreBrokenPipes: Void = { signal(SIGPIPE, SIG_IGN) }()

    /// The answer line to `request`, with its CPU time charged to the calling thread.
    func ask(_ request: Data, timeout: Double) throws -> Data {
        let cpu = cpuSeconds()
        defer { ChildCPU.charge(cpuSeconds() - cpu) }
        try write(request + Data("\n".utf8))
        let deadline = ContinuousClock.now + .seconds(timeout)
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            if let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = pending[pending.startIndex..<end]
                pending = Data(pending[(end + 1)...])
                return Data(line)
            }
            guard pending.count <= ChildRun.outputLimit else {
                throw ServerError(description: "stopped after an answer of more than \(ChildRun.outputLimit >> 20) MiB without a line end")
            }
            let left = deadline - ContinuousClock.now
            guard left > .zero else { throw ServerError(description: "stopped after its time limit (\(Int(timeout)) s without an answer)") }
            var poller = pollfd(fd: fromChild, events: Int16(POLLIN), revents: 0)
            let milliseconds = Double(left.components.seconds) * 1000 + Double(left.components.attoseconds) / 1e15
            let ready = poll(&poller, 1, Int32(min(1000, max(1, milliseconds))))
            guard ready > 0 else { if ready < 0, errno != EINTR { throw ended() }; continue }
            let count = read(fromChild, &chunk, chunk.count)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw ended() }
            pending.append(contentsOf: chunk[0..<count])
        }
    }

    private func write(_ data: Data) throws {
        try data.withUnsafeBytes { bytes in
            var sent = 0
            while sent < bytes.count {
                let count = Glibc.write(toChild, bytes.baseAddress! + sent, bytes.count - sent)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { throw ended() }
                sent += count
            }
        }
    }

    /// The process has gone (or closed its output): how it ended and the first line of its standard error.
    private func ended() -> ServerError {
        var status: Int32 = 0
        usleep(20_000)
        let gone = waitpid(pid, &status, WNOHANG) == pid
        let said = ((try? String(contentsOf: errors, encoding: .utf8)) ?? "").split(separator: "\n").first.map { ": \($0)" } ?? ""
        let how = !gone ? "closed its output" : status & 0x7f == 0 ? "exit status \((status >> 8) & 0xff)" : "killed by signal \(status & 0x7f)"
        if gone { stopped = true; Orphans.release(pid) }
        return ServerError(description: "its process ended mid-run (\(how))\(said)")
    }

    /// User and system CPU seconds of the process so far (/proc/PID/stat, fields 14 and 15, in clock ticks).
    private func cpuSeconds() -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    func stop() {
        guard !stopped else { return }
        stopped = true
        close(toChild)
        close(fromChild)
        kill(-pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        Descendants.kill(carrying: token)
        Orphans.release(pid)
        try? FileManager.default.removeItem(at: errors.deletingLastPathComponent())
    }

    deinit { stop() }
}

struct ServerError: Error, CustomStringConvertible {
    var description: String
}
