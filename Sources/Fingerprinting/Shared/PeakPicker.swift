import Foundation
import DSP

/// A spectrogram peak (an event point): frame index, bin and power.
struct Peak: Equatable {
    var frame: Int
    var bin: Int
    var value: Float = 0
}

/// What makes a spectrogram value a peak: the largest within ±binRadius bins and ±frameRadius frames,
/// among the frame's `perFrame` strongest such maxima, in `bins`, above a floor `floorDecibels` below
/// the recording's loudest value.
struct PeakNeighbourhood {
    var binRadius: Int
    var frameRadius: Int
    var perFrame: Int
    var floorDecibels: Double
    var bins: Range<Int>
}

/// Finds the peaks (Wang's constellation, Panako's event points) as a spectrogram's rows come: local
/// maxima of `neighbourhood`. A frame is examined once the frames after it
/// that its neighbourhood reaches have arrived, so only 2 × radius + 1 rows are held. The floor is known
/// only at the end; the strongest candidates above it are the strongest candidates that lie above it, so
/// keeping each frame's strongest few in advance and dropping those below the floor at the end finds
/// exactly the peaks of the whole spectrogram at once.
struct PeakPicker {
    let neighbourhood: PeakNeighbourhood
    private let columns: Int
    private let depth: Int
    /// Ring of the last `depth` rows: the power, and its maximum over ±peakBinRadius bins.
    private var power: [Float]
    private var acrossBins: [Float]
    private var scratch: [Float]
    private var rowsSeen = 0
    private var loudest: Float = 0
    /// Each examined frame's strongest local maxima, strongest first.
    private var candidates: [(frame: UInt32, bin: UInt16, value: Float)] = []

    init(columns: Int, neighbourhood: PeakNeighbourhood) {
        self.neighbourhood = neighbourhood
        self.columns = columns
        depth = 2 * neighbourhood.frameRadius + 1
        power = [Float](repeating: 0, count: depth * columns)
        acrossBins = power
        scratch = [Float](repeating: 0, count: 2 * (columns + 2 * neighbourhood.binRadius))
    }

    mutating func add(_ row: UnsafeBufferPointer<Float>) {
        let slot = (rowsSeen % depth) * columns
        power.withUnsafeMutableBufferPointer { ring in
            _ = UnsafeMutableBufferPointer(rebasing: ring[slot..<(slot + columns)]).update(fromContentsOf: row)
        }
        loudest = max(loudest, largest(of: row))
        acrossBins.withUnsafeMutableBufferPointer { output in
            slidingMaximum(row.baseAddress!, stride: 1, into: output.baseAddress! + slot, count: columns,
                           radius: neighbourhood.binRadius, scratch: &scratch)
        }
        rowsSeen += 1
        let ready = rowsSeen - 1 - neighbourhood.frameRadius
        if ready >= 0 { examine(ready) }
    }

    /// The peaks in frame order, within a frame by bin.
    mutating func finish() -> [Peak] {
        for frame in max(0, rowsSeen - neighbourhood.frameRadius)..<rowsSeen { examine(frame) }
        let floor = loudest * Float(pow(10, -neighbourhood.floorDecibels / 10))
        // Candidates come frame by frame, so ordering by (frame, bin) only reorders within frames.
        return candidates.filter { $0.value > floor }.map { Peak(frame: Int($0.frame), bin: Int($0.bin), value: $0.value) }
            .sorted { ($0.frame, $0.bin) < ($1.frame, $1.bin) }
    }

    /// Keeps the strongest local maxima of `frame`, whose neighbourhood is all present.
    private mutating func examine(_ frame: Int) {
        let p = neighbourhood
        let row = (frame % depth) * columns
        let neighbours = max(0, frame - p.frameRadius)...min(rowsSeen - 1, frame + p.frameRadius)
        let firstFound = candidates.count, bins = p.bins.clamped(to: 0..<columns), depth = depth, columns = columns
        var found: [(frame: UInt32, bin: UInt16, value: Float)] = []
        power.withUnsafeBufferPointer { power in
            acrossBins.withUnsafeBufferPointer { across in
                let values = power.baseAddress! + row, rowMaxima = across.baseAddress! + row
                // The largest of its row's window first (few are: eight bins tested at once, and a chunk
                // with none is skipped), then of the other frames' windows.
                var bin = bins.lowerBound
                while bin < bins.upperBound {
                    if bin &+ 8 <= bins.upperBound {
                        let v = UnsafeRawPointer(values + bin).loadUnaligned(as: SIMD8<Float>.self)
                        let m = UnsafeRawPointer(rowMaxima + bin).loadUnaligned(as: SIMD8<Float>.self)
                        if !any(v .== m) { bin &+= 8; continue }
                    }
                    let end = min(bin &+ 8, bins.upperBound)
                    for b in bin..<end where values[b] == rowMaxima[b] {
                        let value = values[b]
                        if neighbours.allSatisfy({ $0 == frame || value >= across[($0 % depth) &* columns &+ b] }) {
                            found.append((UInt32(frame), UInt16(b), value))
                        }
                    }
                    bin = end
                }
            }
        }
        candidates.append(contentsOf: found)
        // This frame's strongest few, strongest first.
        candidates[firstFound...].sort { $0.value != $1.value ? $0.value > $1.value : $0.bin < $1.bin }
        candidates.removeLast(max(0, candidates.count - firstFound - p.perFrame))
    }
}

/// output[i] = max(input[i - radius ... i + radius]) (elements `stride` apart, clipped to the sequence),
/// in three comparisons per value whatever the radius: van Herk / Gil-Werman prefix and suffix maxima
/// within blocks of the window's width.
func slidingMaximum(_ input: UnsafePointer<Float>, stride: Int, into output: UnsafeMutablePointer<Float>,
                    count n: Int, radius: Int, scratch: inout [Float]) {
    let width = 2 * radius + 1, padded = n + 2 * radius
    scratch.withUnsafeMutableBufferPointer { buffer in
        // Padded index j holds input[j - radius], or -infinity outside the sequence.
        let prefix = buffer.baseAddress!, suffix = buffer.baseAddress! + padded
        prefix.update(repeating: -.infinity, count: radius)
        for i in 0..<n { prefix[radius &+ i] = input[i &* stride] }
        (prefix + (radius + n)).update(repeating: -.infinity, count: radius)
        suffix.update(from: prefix, count: padded)
        var blockStart = 0
        while blockStart < padded {
            let blockEnd = min(blockStart &+ width, padded)
            // Both running maxima in registers and in one loop: two independent chains of comparisons
            // overlap, and no value is read back just after it was stored.
            var forward = prefix[blockStart], backward = suffix[blockEnd &- 1]
            for k in 1..<max(1, blockEnd &- blockStart) {
                forward = max(forward, prefix[blockStart &+ k]); prefix[blockStart &+ k] = forward
                backward = max(backward, suffix[blockEnd &- 1 &- k]); suffix[blockEnd &- 1 &- k] = backward
            }
            blockStart = blockEnd
        }
        // The window of output i covers padded [i, i + width - 1].
        for i in 0..<n { output[i &* stride] = max(suffix[i], prefix[i &+ width &- 1]) }
    }
}

/// The largest value of `values` (not NaN), in four independent chains of comparisons.
func largest(of values: UnsafeBufferPointer<Float>) -> Float {
    var a = -Float.infinity, b = a, c = a, d = a, i = 0
    while i &+ 4 <= values.count {
        a = max(a, values[i]); b = max(b, values[i &+ 1]); c = max(c, values[i &+ 2]); d = max(d, values[i &+ 3])
        i &+= 4
    }
    while i < values.count { a = max(a, values[i]); i &+= 1 }
    return max(max(a, b), max(c, d))
}
