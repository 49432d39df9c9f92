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
                        var best: Float = -1, loudest = -1
                        for k in range where power[k] > best { (best, loudest) = (power[k], k) }
                        if loudest >= 0 { row[r] = Float(loudest) }
                    }
                }
            }
        }
    }
}
