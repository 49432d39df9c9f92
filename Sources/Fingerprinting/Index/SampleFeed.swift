import DSP

/// One rate's samples on their way to the algorithms at that rate: an algorithm's own sink, or one frame
/// stream for several whose front ends compute the same rows (`FrameFrontEnd.computesSameRows`).
enum SampleFeed {
    case alone(Int)
    case shared(SharedRows)

    /// The feeds of `members` (indices into `sinks`, all at one rate), each group in order of its first member.
    static func feeds(_ members: [Int], sinks: [SampleSink]) -> [SampleFeed] {
        var groups: [[Int]] = []
        for a in members {
            let same = sinks[a].framed.flatMap { mine in
                groups.firstIndex { sinks[$0[0]].framed?.frames.frontEnd.computesSameRows(as: mine.frames.frontEnd) ?? false }
            }
            if let same { groups[same].append(a) } else { groups.append([a]) }
        }
        // A group's rows come from its first member's frame stream, which its own sink then never feeds.
        return groups.map { $0.count == 1 ? .alone($0[0]) : .shared(SharedRows(sinks[$0[0]].framed!.frames, members: $0)) }
    }

    /// Feeds `block`, adding each algorithm's CPU seconds by `clock` (when there is one) to `time`.
    func consume(_ block: UnsafeBufferPointer<Float>, sinks: [SampleSink], clock: (() -> Double)?, time: inout FeedTime) {
        switch self {
        case .alone(let a):
            let start = clock?()
            sinks[a].consume(block)
            if let clock, let start { time.seconds[a] += clock() - start }
        case .shared(let rows):
            rows.consume(block, sinks: sinks, clock: clock, time: &time)
        }
    }

    /// Hands out what is still held, before the sinks finish.
    func finish(sinks: [SampleSink], clock: (() -> Double)?, time: inout FeedTime) {
        if case .shared(let rows) = self { rows.handOut(sinks: sinks, clock: clock, time: &time) }
    }
}

/// What the algorithms fed together spent, each as if it ran alone.
struct FeedTime {
    /// Per algorithm, CPU seconds.
    var seconds: [Double]
    /// CPU seconds counted for more than one algorithm: shared rows, once per algorithm beyond the first.
    var shared = 0.0
}

/// One frame stream for several algorithms' back ends: its rows are kept a few at a time (they stay in the
/// processor's cache) and then handed to each back end in turn, so that each is timed apart. Each algorithm is
/// charged what it would have spent alone: the rows' time as well as its own back end's.
final class SharedRows {
    /// Rows held before the back ends take them (about 32 KB of Panako's).
    static let rowsAtATime = 16
    private let stream: FrameStream
    private let members: [Int]
    private var rows: [Float] = []
    private var rowSeconds = 0.0

    init(_ stream: FrameStream, members: [Int]) {
        self.stream = stream
        self.members = members
        rows.reserveCapacity((Self.rowsAtATime + 1) * stream.frontEnd.columns)
    }

    func consume(_ block: UnsafeBufferPointer<Float>, sinks: [SampleSink], clock: (() -> Double)?, time: inout FeedTime) {
        // A long block (audio in memory) a few rows' samples at a time.
        let step = stream.frontEnd.stft.hop * Self.rowsAtATime
        for first in stride(from: 0, to: block.count, by: step) {
            let start = clock?()
            stream.consume(UnsafeBufferPointer(rebasing: block[first..<min(block.count, first + step)])) { rows.append(contentsOf: $0) }
            if let clock, let start { rowSeconds += clock() - start }
            if rows.count >= Self.rowsAtATime * stream.frontEnd.columns { handOut(sinks: sinks, clock: clock, time: &time) }
        }
    }

    /// Every row held, to each back end.
    func handOut(sinks: [SampleSink], clock: (() -> Double)?, time: inout FeedTime) {
        let columns = stream.frontEnd.columns
        rows.withUnsafeBufferPointer { rows in
            for a in members {
                let start = clock?(), add = sinks[a].framed!.add
                for row in stride(from: 0, to: rows.count, by: columns) { add(UnsafeBufferPointer(rebasing: rows[row..<(row + columns)])) }
                if let clock, let start { time.seconds[a] += rowSeconds + clock() - start }
            }
        }
        time.shared += rowSeconds * Double(members.count - 1)
        rows.removeAll(keepingCapacity: true)
        rowSeconds = 0
    }
}
