import Foundation

/// `body(i)` for every i in 0..<count on `threads` workers (1 = in order on this thread); the
/// results come back in index order, so output never depends on scheduling. `body` must only read
/// shared state (every caller here reads immutable inputs and returns a value).
public func parallelMap<T>(_ count: Int, threads: Int, _ body: (Int) -> T) -> [T] {
    if threads <= 1 || count <= 1 { return (0..<count).map(body) }
    let slots = Slots<T>(count)
    let workers = min(threads, count)
    withoutActuallyEscaping(body) { body in
        let shared = ReadOnly(body)
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            for i in stride(from: worker, to: count, by: workers) { slots[i] = shared.value(i) }
        }
    }
    return slots.values.map { $0! }
}

/// A value handed to worker threads that only read it.
private struct ReadOnly<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// Result slots written from several threads, one lock for all.
private final class Slots<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [T?]
    init(_ count: Int) { storage = Array(repeating: nil, count: count) }
    subscript(i: Int) -> T? {
        get { lock.withLock { storage[i] } }
        set { lock.withLock { storage[i] = newValue } }
    }
    var values: [T?] { lock.withLock { storage } }
}

/// "stage 12/80" on standard error, rewritten in place, only when standard error is a terminal.
final class Progress: @unchecked Sendable {
    private let lock = NSLock()
    private let enabled: Bool
    private var stage = "", done = 0, total = 0

    init(enabled: Bool) { self.enabled = enabled && isatty(STDERR_FILENO) != 0 }

    func start(_ stage: String, total: Int) {
        lock.withLock { self.stage = stage; done = 0; self.total = total }
        draw()
    }

    func advance(by count: Int = 1) {
        lock.withLock { done += count }
        draw()
    }

    func finish() {
        if enabled { FileHandle.standardError.write(Data("\n".utf8)) }
    }

    private func draw() {
        guard enabled else { return }
        let line = lock.withLock { "\r\(stage) \(done)/\(total)   " }
        FileHandle.standardError.write(Data(line.utf8))
    }
}
