import AudioIO
import DSP

/// MAA's front end: consecutive windows, FFT, the loudest bin in each of the equal frequency ranges.
struct LoudestFrequencyExtractor {
    let parameters: MelodyAnalyzing.Parameters

    var frontEnd: FrameFrontEnd {
        let size = parameters.windowSize, ranges = parameters.rangeCount
        let lastBin = size / 2
        // Bin k (k·fs/N Hz) falls in range ⌊k·ranges / (N/2)⌋; the Nyquist bin joins the last range.
        // The ranges' bins are consecutive: range r holds bins[r] (empty when there are more ranges than bins).
        let rangeOfBin = (0...lastBin).map { min(ranges - 1, $0 * ranges / lastBin) }
        let bins = (0..<ranges).map { r in
            (rangeOfBin.firstIndex(of: r) ?? 0)..<((rangeOfBin.lastIndex(of: r) ?? -1) + 1)
        }
        return FrameFrontEnd(stft: STFT(frameSize: size, hop: size, window: .rectangular), columns: ranges) { power, row in
            // Each range's first loudest bin, through raw buffers (no check per bin).
            power.withUnsafeBufferPointer { power in
                row.withUnsafeMutableBufferPointer { row in
                    for (r, range) in bins.enumerated() {
                        let loudest = firstLoudest(power.baseAddress!, range)
                        if loudest >= 0 { row[r] = Float(loudest) }
                    }
                }
            }
        }
    }
}

/// The first place of the largest of `power[range]` (powers: at least 0), as a scan finds it; -1 when the range is
/// empty or all NaN. Eight places at a time, each lane keeping the first largest of its own places; of the lanes
/// that hold the largest value the earliest place wins, and the places left over (fewer than eight, all later)
/// replace it only when larger. A scan's branch on each new largest value was mispredicted about four times a range.
/// Places are kept as floats (exact below 2^24; bins: at most 32,769), folded as the values are (`smallestLane`).
@inline(__always)
func firstLoudest(_ power: UnsafePointer<Float>, _ range: Range<Int>) -> Int {
    var k = range.lowerBound, best: Float = -1, loudest = -1
    if range.count >= 8 {
        var values = SIMD8<Float>(repeating: -1), places = SIMD8<Float>(repeating: -1)
        var here = SIMD8<Float>(0, 1, 2, 3, 4, 5, 6, 7) + Float(k)
        while k &+ 8 <= range.upperBound {
            let v = UnsafeRawPointer(power + k).loadUnaligned(as: SIMD8<Float>.self), larger = v .> values
            values.replace(with: v, where: larger)
            places.replace(with: here, where: larger)
            here += 8
            k &+= 8
        }
        best = values.largestLane
        loudest = Int(places.replacing(with: .infinity, where: values .!= SIMD8(repeating: best)).smallestLane)
    }
    while k < range.upperBound {
        if power[k] > best { (best, loudest) = (power[k], k) }
        k &+= 1
    }
    return loudest
}
