import AudioIO
import Foundation

/// How a long command reports what it is doing, always on standard error (no output file changes).
public enum ProgressMode: String, Sendable, CaseIterable {
    /// One line rewritten in place: phase, done/total, rate, time left.
    case terminal
    /// A line per phase, then every 10 % or 30 s (a log, Slurm's output file).
    case plain
    /// Nothing.
    case none

    /// `terminal` when standard error is a terminal, else `plain`.
    public static var automatic: ProgressMode { isatty(STDERR_FILENO) != 0 ? .terminal : .plain }
}

/// "indexing 12/206 (6 %), 3.1/s, 1:04 left" for the phase under way. A heartbeat redraws the
/// terminal line every second and writes a plain line at least every 30 s, so a slow item never
/// leaves a long command silent.
public final class ProgressReporter: @unchecked Sendable {
    /// Longest silence in a log (plain mode).
    package static let plainInterval = 30.0
    /// Shortest time between two redraws of the terminal line (each redraw is a write to standard error).
    package static let redrawInterval = 0.2

    private let lock = NSLock()
    private let mode: ProgressMode
    private var phase = "", done = 0, total = 0, active = false
    private var phaseStart = Date(), lastWrite = Date.distantPast, lastDecile = -1
    private var heartbeat: DispatchSourceTimer?

    public init(_ mode: ProgressMode) {
        self.mode = mode
        guard mode != .none else { return }
        let timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
        timer.schedule(deadline: .now() + 1, repeating: 1)
        timer.setEventHandler { [weak self] in self?.beat() }
        timer.resume()
        heartbeat = timer
    }

    deinit { heartbeat?.cancel() }

    /// A phase with nothing to do (no outside systems) says nothing.
    public func start(_ phase: String, total: Int) {
        lock.withLock {
            if active && mode == .terminal { Console.endProgress() }
            active = false
            guard total > 0 else { return }
            self.phase = phase; done = 0; self.total = total; active = true
            phaseStart = Date(); lastDecile = 0
            write(force: true)
        }
    }

    public func advance(by count: Int = 1) {
        lock.withLock {
            guard active else { return }
            done += count
            let decile = total > 0 ? 10 * done / total : 0
            let crossed = decile > lastDecile
            if crossed { lastDecile = decile }
            write(force: mode == .plain ? crossed : done == total)
        }
    }

    /// Ends the phase under way (its line stays).
    public func finish() {
        lock.withLock {
            guard active else { return }
            if mode == .terminal { Console.endProgress() }
            active = false
        }
    }

    private func beat() {
        lock.withLock {
            guard active else { return }
            if mode == .terminal || Date().timeIntervalSince(lastWrite) >= Self.plainInterval { write(force: true) }
        }
    }

    /// Called with the lock held.
    private func write(force: Bool) {
        guard mode != .none else { return }
        let now = Date()
        guard force || (mode == .terminal && now.timeIntervalSince(lastWrite) >= Self.redrawInterval) else { return }
        lastWrite = now
        let line = Self.describe(phase: phase, done: done, total: total, elapsed: now.timeIntervalSince(phaseStart))
        Console.progress(line, inPlace: mode == .terminal)
    }

    /// One progress line: done/total with the percentage, then the rate and the time left once
    /// something is done, else the time spent.
    package static func describe(phase: String, done: Int, total: Int, elapsed: Double) -> String {
        var line = "\(phase) \(done)/\(total)"
        if total > 0 { line += " (\(100 * done / total) %)" }
        if done > 0 && elapsed > 0 {
            let rate = Double(done) / elapsed
            line += rate >= 10 ? String(format: ", %.0f/s", rate) : rate >= 1 ? String(format: ", %.1f/s", rate) : String(format: ", %.1f s each", 1 / rate)
            if done < total { line += ", " + clock(Double(total - done) / rate) + " left" }
            else { line += ", took " + clock(elapsed) }
        } else {
            line += ", " + clock(elapsed) + " so far"
        }
        return line
    }

    package static func clock(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        return s >= 3600 ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) : String(format: "%d:%02d", s / 60, s % 60)
    }
}
