import AudioIO
import DSP

/// MAA's extractor: consecutive windows, FFT, the loudest bin in each of the equal frequency ranges.
struct LoudestFrequencyExtractor {
    let parameters: MelodyAnalyzing.Parameters

    func fingerprint(_ audio: Audio) -> MAAFingerprint {
        let size = parameters.windowSize, ranges = parameters.rangeCount
        let lastBin = size / 2
        // Bin k (k·fs/N Hz) falls in range ⌊k·ranges / (N/2)⌋; the Nyquist bin joins the last range.
        let rangeOfBin = (0...lastBin).map { min(ranges - 1, $0 * ranges / lastBin) }
        let stft = STFT(frameSize: size, hop: size, window: .rectangular)
        let loudest = stft.map(audio.samples, columns: ranges) { power, row in
            var best = [Float](repeating: -1, count: ranges)
            for (k, p) in power.enumerated() where p > best[rangeOfBin[k]] {
                best[rangeOfBin[k]] = p
                row[row.startIndex + rangeOfBin[k]] = Float(k)
            }
        }
        return MAAFingerprint(rangeCount: ranges, binWidth: audio.sampleRate / Double(size),
                              loudestBins: loudest.values.map { UInt16($0) }, duration: audio.duration)
    }
}
