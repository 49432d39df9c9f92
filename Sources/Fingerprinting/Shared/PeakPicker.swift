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
        scratch = [Float](repeating: 0, count: columns + 2 * neighbourhood.binRadius)
    }

    mutating func add(_ row: UnsafeBufferPointer<Float>) {
        let slot = (rowsSeen % depth) * columns
        power.withUnsafeMutableBufferPointer { ring in
            _ = UnsafeMutableBufferPointer(rebasing: ring[slot..<(slot + columns)]).update(fromContentsOf: row)
        }
        loudest = max(loudest, largest(of: row))
        acrossBins.withUnsafeMutableBufferPointer { output in
            slidingMaximum(row.baseAddress!, into: output.baseAddress! + slot, count: columns,
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
                            candidates.append((UInt32(frame), UInt16(b), value))
                        }
                    }
                    bin = end
                }
            }
        }
        // This frame's strongest few, strongest first.
        candidates[firstFound...].sort { $0.value != $1.value ? $0.value > $1.value : $0.bin < $1.bin }
        candidates.removeLast(max(0, candidates.count - firstFound - p.perFrame))
    }
}

/// output[i] = max(input[i - radius ... i + radius]), clipped to the sequence. The maxima over 2, 4, 8, ...
/// values are built in place, each pass 16 values at a time; a window is then the larger of the two
/// overlapping powers of two that cover it. Exact: a maximum only picks values. `scratch` holds
/// count + 2 × radius values.
func slidingMaximum(_ input: UnsafePointer<Float>, into output: UnsafeMutablePointer<Float>, count n: Int, radius: Int, scratch: inout [Float]) {
    let width = 2 * radius + 1, padded = n + 2 * radius
    var span = 1
    while span * 2 <= width { span *= 2 }
    if scratch.count < padded { scratch = [Float](repeating: 0, count: padded) }
    scratch.withUnsafeMutableBufferPointer { buffer in
        // m[j] starts as input[j - radius], or -infinity outside the sequence.
        let m = buffer.baseAddress!
        m.update(repeating: -.infinity, count: radius)
        (m + radius).update(from: input, count: n)
        (m + radius + n).update(repeating: -.infinity, count: radius)
        // After the pass for s, m[j] is the maximum of padded[j ..< j + 2s] for every j up to padded - 2s.
        // In increasing j, each value is read before it is overwritten.
        var s = 1
        while s < span {
            larger(m, m + s, into: m, count: padded - 2 * s + 1)
            s *= 2
        }
        // The window of output i covers padded [i, i + width - 1].
        larger(m, m + (width - span), into: output, count: n)
    }
}

/// out[j] = max(a[j], b[j]), 16 at a time; `out` may be `a` (each chunk is read before it is written).
@inline(__always)
private func larger(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, into out: UnsafeMutablePointer<Float>, count: Int) {
    var j = 0
    while j &+ 16 <= count {
        let x = UnsafeRawPointer(a + j).loadUnaligned(as: SIMD16<Float>.self), y = UnsafeRawPointer(b + j).loadUnaligned(as: SIMD16<Float>.self)
        UnsafeMutableRawPointer(out + j).storeBytes(of: x.replacing(with: y, where: y .> x), as: SIMD16<Float>.self)
        j &+= 16
    }
    while j < count { out[j] = max(a[j], b[j]); j &+= 1 }
}

/// The largest value of `values` (not NaN), 16 at a time.
func largest(of values: UnsafeBufferPointer<Float>) -> Float {
    var lanes = SIMD16<Float>(repeating: -.infinity), i = 0
    let raw = UnsafeRawBufferPointer(values)
    while i &+ 16 <= values.count {
        let x = raw.loadUnaligned(fromByteOffset: i &* 4, as: SIMD16<Float>.self)
        lanes.replace(with: x, where: x .> lanes)
        i &+= 16
    }
    var result = lanes.largestLane
    while i < values.count { result = max(result, values[i]); i &+= 1 }
    return result
}
