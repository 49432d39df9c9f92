import Foundation
import Synchronization

/// `body(i)` for every i in 0..<count on `threads` workers (1 = in order on this thread); the
/// results come back in index order, so output never depends on scheduling. `body` must only read
/// shared state (every caller here reads immutable inputs and returns a value). Each worker takes the
/// next index not yet taken, so none idles while another still has a queue of slow items; `order` (a
/// permutation of the indices), when given, is the order they are taken in: the slowest first leaves
/// no long item to one worker at the end.
public func parallelMap<T>(_ count: Int, threads: Int, order: [Int]? = nil, _ body: (Int) -> T) -> [T] {
    precondition(order.map { $0.count == count } ?? true, "an order of every index")
    if threads <= 1 || count <= 1 { return (0..<count).map(body) }
    let slots = Slots<T>(count)
    let next = Atomic(0)
    withoutActuallyEscaping(body) { body in
        let shared = ReadOnly(body)
        DispatchQueue.concurrentPerform(iterations: min(threads, count)) { _ in
            while case let n = next.add(1, ordering: .relaxed).oldValue, n < count {
                let i = order?[n] ?? n
                slots[i] = shared.value(i)
            }
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

/// A value made once, on first use, whichever thread asks first.
package final class Once<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value?
    private let make: () -> Value
    package init(_ make: @escaping () -> Value) { self.make = make }
    package var get: Value { lock.withLock { if value == nil { value = make() }; return value! } }
}
