import AudioIO
import DSP

/// MAA's front end: consecutive windows, FFT, the loudest bin in each of the equal frequency ranges.
struct LoudestFrequencyExtractor {
    let parameters: MelodyAnalyzing.Parameters

    var frontEnd: FrameFrontEnd {
        let size = parameters.windowSize, ranges = parameters.rangeCount
        let lastBin = size / 2
        // Bin k (k·fs/N Hz) falls in range ⌊k·ranges / (N/2)⌋; the Nyquist bin joins the last range.
        let rangeOfBin = (0...lastBin).map { min(ranges - 1, $0 * ranges / lastBin) }
        return FrameFrontEnd(stft: STFT(frameSize: size, hop: size, window: .rectangular), columns: ranges) { power, row in
            var best = [Float](repeating: -1, count: ranges)
            for (k, p) in power.enumerated() where p > best[rangeOfBin[k]] {
                best[rangeOfBin[k]] = p
                row[row.startIndex + rangeOfBin[k]] = Float(k)
            }
        }
    }
}
